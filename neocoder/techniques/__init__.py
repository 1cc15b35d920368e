"""Techniques stage: the taxonomy and the detectors that find techniques in code."""

from neocoder.techniques.detector import UnsupportedLanguage, detect, guess_language
from neocoder.techniques.taxonomy import ALIASES, DETECTED, TAXONOMY, canonical, judge_constraints

__all__ = ["ALIASES", "DETECTED", "TAXONOMY", "UnsupportedLanguage", "canonical", "detect",
           "guess_language", "judge_constraints"]
