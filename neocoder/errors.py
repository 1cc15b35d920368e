"""The project's own error type.

Every error that a user can act on (a bad input file, an unreachable model endpoint, a
missing sandbox image, an unknown record version) is a ``NeocoderError``: the CLI turns
it into one message in one place (``neocoder/cli/__init__.py``), and library callers catch one
type.  Bugs stay ordinary Python exceptions with their tracebacks.
"""

from __future__ import annotations

from neocoder.redaction import redact_text


class NeocoderError(Exception):
    """Base class of the errors neocoder reports to its user as a message, not a traceback.

    Its text arguments pass through ``redaction.redact_text`` as it is made: a message
    quoting an endpoint's reply or a URL never carries a known API key, token or password
    into a record, ``metrics.json`` or the console."""

    def __init__(self, *args):
        super().__init__(*(redact_text(a) for a in args))


class RecordError(NeocoderError, ValueError):
    """A record of an input or run file is malformed or of another format version.

    The message names the file, the record (an index, a problem id, or ``line N``) and
    the field, so the user can go straight to it.
    """

    def __init__(self, path, record, field_name, problem):
        self.path, self.record, self.field, self.problem = str(path), record, field_name, problem
        super().__init__(f"{path}: record {record}: field {field_name!r}: {problem}")
