"""The learned diversity measure: a logistic regression over what every measure sees (issue 48).

Two programs are one class when the model's probability that a reader would call them
the same algorithm is at least the shipped ``threshold``:

    p(same | a, b) = 1 / (1 + exp(-(w . z + b))),   z_i = (x_i - mean_i) / scale_i,

with x = features.pair_features(a, b) (the row ``features`` names, in that order), and
``mean``, ``scale``, ``w``, ``b`` and ``threshold`` read from the shipped
``algorithm_pairs/classifier.json``.  The weights are fitted on the tuning half of the
labelled pairs only (scikit-learn's LogisticRegression, L2, C and class weights in the
file); the threshold is the one whose greedy partition (measures.partition) agrees best
with the tuning half's labels (Cohen's kappa).  ``neocoder diversity train``
rebuilds the file byte for byte.  Prediction needs only numpy: scikit-learn is needed to
train, never to run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from neocoder.errors import NeocoderError
from neocoder.metrics.diversity.features import FEATURES, Traits, pair_features
from neocoder.metrics.diversity.measures import partition

PACKAGE = "neocoder.codeforces"
FILE = "algorithm_pairs/classifier.json"


class ClassifierError(NeocoderError):
    """The shipped classifier is missing, malformed, or expects other features than this code computes."""


@dataclass(frozen=True)
class Classifier:
    """A fitted same-algorithm classifier (module docstring): ``features`` names the
    columns it expects; ``mean``, ``scale``, ``weights`` have one value per feature."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    intercept: float
    threshold: float

    def probability(self, rows: np.ndarray) -> np.ndarray:
        """p(same) for each row of ``rows`` (shape (n, len(features)) or (len(features),)), in [0, 1]."""
        z = (np.asarray(rows, dtype=np.float64) - self.mean) / self.scale
        return 1.0 / (1.0 + np.exp(-(z @ self.weights + self.intercept)))

    def same(self, a: Traits, b: Traits) -> bool:
        """Whether ``a`` and ``b`` are one class: p(same) >= threshold."""
        return bool(self.probability(pair_features(a, b)) >= self.threshold)

    def classes(self, programs: list[Traits]) -> list[int]:
        """Class labels of ``programs`` in order, by NoveltyBench's greedy rule (measures.partition)."""
        return partition(programs, self.same)

    @classmethod
    def from_dict(cls, data: dict, where: str = "classifier") -> "Classifier":
        """A classifier from the JSON form ``to_dict`` writes.  Raises ClassifierError
        naming the field that is missing or the features that differ from FEATURES."""
        try:
            names = tuple(data["features"])
            got = cls(names, np.asarray(data["mean"], dtype=np.float64), np.asarray(data["scale"], dtype=np.float64),
                      np.asarray(data["weights"], dtype=np.float64), float(data["intercept"]),
                      float(data["threshold"]))
        except KeyError as exc:
            raise ClassifierError(f"{where}: field {exc.args[0]!r} is missing") from exc
        except (TypeError, ValueError) as exc:
            raise ClassifierError(f"{where}: not a classifier ({exc})") from exc
        if names != FEATURES:
            raise ClassifierError(f"{where}: fitted on features {list(names)}, this neocoder computes "
                                  f"{list(FEATURES)}: retrain it (neocoder diversity train)")
        if not (len(got.mean) == len(got.scale) == len(got.weights) == len(names)):
            raise ClassifierError(f"{where}: mean, scale and weights need one value per feature")
        return got


@lru_cache(maxsize=1)
def shipped() -> Classifier:
    """The shipped classifier (``neocoder.codeforces/algorithm_pairs/classifier.json``).
    Raises ClassifierError when it is missing or does not fit this code's features."""
    entry = resources.files(PACKAGE).joinpath(FILE)
    if not entry.is_file():
        raise ClassifierError(f"{PACKAGE}/{FILE} is missing (reinstall neocoder; in a checkout: pip install -e .)")
    return load(Path(str(entry)))


def load(path: Path) -> Classifier:
    """A classifier from a JSON file; ClassifierError naming the file when it cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ClassifierError(f"{path}: cannot read the classifier ({exc})") from exc
    return Classifier.from_dict(data, str(path))
