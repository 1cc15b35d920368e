"""The project's own error type.

Every error that a user can act on (a bad input file, an unreachable model endpoint, a
missing sandbox image, an unknown record version) is a ``NeocoderError``: the CLI turns
it into one message in one place (``neocoder/cli.py``), and library callers catch one
type.  Bugs stay ordinary Python exceptions with their tracebacks.
"""

from __future__ import annotations


class NeocoderError(Exception):
    """Base class of the errors neocoder reports to its user as a message, not a traceback."""
