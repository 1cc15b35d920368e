"""Diversity of correct programs: algorithm classes by technique, structure and execution (issue 25)."""
