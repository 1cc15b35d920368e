"""Dataset stage: the NeoCoder release turned into canonical problem-state records."""

from .release import (RELEASE_DATASET, BuildReport, DatasetError, build_from_release, default_release_dir,
                      load_release_problems)
from .records import first_problems, load_states, load_tests, write_states

__all__ = ["RELEASE_DATASET", "BuildReport", "DatasetError", "build_from_release", "default_release_dir",
           "first_problems", "load_release_problems", "load_states", "load_tests", "write_states"]
