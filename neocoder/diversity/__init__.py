"""Diversity of correct programs (issue 25)."""
