"""Dataset stage: the NeoCoder release turned into canonical problem-state records."""

from neocoder.dataset.records import first_problems, load_states, load_tests, write_states
from neocoder.dataset.release import (
    RELEASE_DATASET,
    BuildReport,
    DatasetError,
    build_from_release,
    default_release_dir,
    load_release_problems,
)

__all__ = ["RELEASE_DATASET", "BuildReport", "DatasetError", "build_from_release", "default_release_dir",
           "first_problems", "load_release_problems", "load_states", "load_tests", "write_states"]
