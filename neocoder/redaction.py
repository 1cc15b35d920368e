"""Secrets (API keys, tokens, passwords) never written to a run or shown: the one rule.

An option is declared secret once, on its ``Option`` (neocoder/options.py):
``secret=True`` for a value that is a secret as a whole (``--api-key``, ``--token``), and
``secret="url"`` for a URL that may carry one in its ``user:password@`` part or a
``?key=`` query (``--base-url``, ``--database-url``).  Every surface reads that flag:

- the command line (cli/declared.py) tells this module each secret option's flag
  (``declare_flag``) and the value it was given (``remember``), and a config made any
  other way (the Python API, a server's request) its secret values (``Config.__post_init__``);
- ``Manifest.capture`` records ``redact_argv(sys.argv)``: ``--api-key <redacted>`` (and
  ``--api-key=<redacted>``), any known secret value elsewhere replaced, a URL's
  credentials replaced;
- ``Config.public`` (the manifest's config) leaves a ``secret=True`` field out and writes
  a ``secret="url"`` field through ``redact_url``;
- a ``NeocoderError``'s message (what records, metrics and the console show of a failed
  call) goes through ``redact_text``, and ``install()`` (the CLI and the server call it)
  does the same for tracebacks, log records and warnings.

``redact_text`` replaces every secret value this process knows: those remembered from
its options and the values of the environment variables named like secrets
(``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``HF_TOKEN``, ``NEOCODER_TOKEN``,
``NEOCODER_SERVE_TOKENS``, ``*_SECRET``, ``*_PASSWORD``: ``SECRET_ENV``), raw, URL-encoded
and JSON-escaped, each at least ``MIN_SECRET`` characters long (a loopback test's key
``k`` is redacted after its flag, never as text).  It imports nothing of neocoder: every
layer may use it.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from urllib.parse import quote

REDACTED = "<redacted>"
MIN_SECRET = 8  # shorter values are redacted where an option names them, never searched for in text
# environment variables whose values are secrets (a *_TOKENS one holds several, split by whitespace or commas)
SECRET_ENV = re.compile(r"(?:^|_)(?:API_?KEY|TOKENS?|SECRET|SECRET_KEY|ACCESS_KEY|PASSWORD|PASSWD)$", re.I)
# scheme://user:password@ or scheme://token@ (the part before the host)
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#@\s\"'<>]+)@")
# ?key=..., &api_key=..., &token=..., &password=... (a credential sent as a query parameter)
_QUERY = re.compile(r"(?P<name>[?&](?:api[_-]?key|key|token|access_token|password|secret|sig|signature)=)"
                    r"(?P<value>[^&#\s\"'<>]+)", re.I)

_lock = threading.Lock()
_flags: set[str] = set()  # the command-line flags declared secret (--api-key, --token)
_values: set[str] = set()  # the secret values this process was given through them


def declare_flag(flag: str) -> None:
    """Note ``flag`` (``--api-key``) as an option whose value ``redact_argv`` replaces."""
    with _lock:
        _flags.add(flag)


def secret_flags() -> frozenset[str]:
    """The flags declared secret so far (cli/declared.py declares each as it builds it)."""
    with _lock:
        return frozenset(_flags)


def remember(value) -> None:
    """Note ``value`` (a secret option's value as given; None is ignored) as text
    ``redact_text`` replaces wherever it appears."""
    if isinstance(value, str) and value:
        with _lock:
            _values.add(value)


def environment_secrets(environ=None) -> set[str]:
    """The values of the environment variables named like secrets (``SECRET_ENV``; a
    ``*_TOKENS`` variable split by whitespace and commas) in ``environ`` (default: this
    process's)."""
    environ = os.environ if environ is None else environ
    found = set()
    for name, value in environ.items():
        if value and SECRET_ENV.search(name):
            found.update(part for part in re.split(r"[\s,]+", value) if part)
    return found


def known_secrets() -> list[str]:
    """Every secret value this process knows (remembered and from the environment) of at
    least ``MIN_SECRET`` characters, longest first (so a key is replaced before a shorter
    one inside it)."""
    with _lock:
        values = set(_values)
    values |= environment_secrets()
    return sorted((v for v in values if len(v) >= MIN_SECRET), key=len, reverse=True)


def _forms(value: str) -> list[str]:
    """``value`` as it may be written: raw, URL-encoded, JSON-escaped."""
    return list(dict.fromkeys([value, quote(value, safe=""), json.dumps(value)[1:-1]]))


def redact_url(url):
    """``url`` with its credentials replaced by ``REDACTED``: the password of
    ``user:password@`` (a lone ``token@`` whole) and the value of a ``key``, ``api_key``,
    ``token``, ``password``, ``secret`` or ``sig`` query parameter.  None and non-text
    values are returned as they are; a URL without credentials is unchanged."""
    if not isinstance(url, str):
        return url

    def userinfo(m: re.Match) -> str:
        user, sep, _password = m.group("userinfo").partition(":")
        return f"{m.group('scheme')}{user}:{REDACTED}@" if sep else f"{m.group('scheme')}{REDACTED}@"

    url = _USERINFO.sub(userinfo, url)
    return _QUERY.sub(lambda m: m.group("name") + REDACTED, url)


def redact_text(text):
    """``text`` with every known secret (``known_secrets``, in each of its written forms)
    replaced by ``REDACTED`` and every URL's credentials by ``redact_url``'s rule.
    Non-text values are returned as they are."""
    if not isinstance(text, str) or not text:
        return text
    for value in known_secrets():
        for form in _forms(value):
            if form in text:
                text = text.replace(form, REDACTED)
    return redact_url(text)


def redact_argv(argv) -> list[str]:
    """A command line (``sys.argv``) as a manifest records it: the value after a secret
    flag (``secret_flags``) and after ``FLAG=`` replaced by ``REDACTED``, and every other
    argument through ``redact_text``.  ``["neocoder", "eval", "--api-key", "sk-1"]`` ->
    ``["neocoder", "eval", "--api-key", "<redacted>"]``."""
    flags, out, hide_next = secret_flags(), [], False
    for arg in map(str, argv):
        if hide_next:
            out.append(REDACTED)
            hide_next = False
        elif arg in flags:
            out.append(arg)
            hide_next = True
        elif arg.split("=", 1)[0] in flags and "=" in arg:
            out.append(arg.split("=", 1)[0] + "=" + REDACTED)
        else:
            out.append(redact_text(arg))
    return out


_installed = False


def install() -> None:
    """Redact what this process shows beyond its own messages (once; later calls do
    nothing): an uncaught exception's traceback (``sys.excepthook``), every log record's
    message and warnings' text, all through ``redact_text``.  The CLI (``neocoder ...``)
    and the server call it at start."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    import logging
    import traceback
    import warnings

    previous_hook = sys.excepthook

    def excepthook(kind, exc, tb):
        if kind is KeyboardInterrupt:
            previous_hook(kind, exc, tb)
            return
        sys.stderr.write(redact_text("".join(traceback.format_exception(kind, exc, tb))))

    sys.excepthook = excepthook
    make_record = logging.getLogRecordFactory()

    def record_factory(*args, **kwargs):
        record = make_record(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot be formatted is left to the handler's report
            return record
        redacted = redact_text(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return record

    logging.setLogRecordFactory(record_factory)
    format_warning = warnings.formatwarning
    warnings.formatwarning = lambda *args, **kwargs: redact_text(format_warning(*args, **kwargs))
