"""A deterministic operation count for a Python program run in the sandbox (issue 25).

CPU time is noisy on a shared machine (Python starts in about 20 ms, two cores are
shared), so the cost of a run is counted instead: ``instrument(source)`` puts one
statement in front of the program that installs, before any of its code runs,

- a ``sys.settrace`` hook that counts every **line event** of the program's own frames
  (the main module, its functions, ``solve()`` when the runner calls it, other threads
  through ``threading.settrace``);
- a ``sys.setprofile`` hook that adds the **size of the object** a built-in method works
  on (``__self__``): ``len(self)`` for the linear methods in ``LINEAR_METHODS``
  (``str.split`` on an input line, ``list.count``, ...) and ``k log2 k`` for
  ``list.sort``;
- wrappers of the built-in functions ``sorted`` (``k log2 k``) and ``sum``, ``min``,
  ``max``, ``any``, ``all`` (``k``) for one sized argument (the wrappers' own lines are not
  counted).

At the end (``atexit``) the count follows the program's output on a line of its own,
behind ``MARKER``; ``split_output`` takes it off again.  When the number of line events (the
part that costs time: C work is cheap) passes the cap the program stops at once with
``CAP_EXIT`` and the marker line says ``capped``: a run that is too slow to finish costs at
most the cap (about a second).

What it cannot see (documented in docs/diversity-execution.md): C work whose size is not
visible to a profile hook - ``x in list``, slices, ``list(map(...))``, ``str.join``,
``dict``/``set``/``Counter`` building, big-integer arithmetic - counts one event per line,
so such work looks cheaper than it is.  A program with ``from __future__`` imports does
not compile once instrumented (the count is then missing).

Line counting follows the "empirical computational complexity" line of work (Goldsmith,
Aiken and Wilkerson, ESEC/FSE 2007, trend-prof: counts of executed basic blocks against
input size), here at the granularity Python's tracer offers (lines).
"""

from __future__ import annotations

MARKER = "@@NEOCODER-OPS@@"
CAP = 1_000_000
CAP_EXIT = 3
LINEAR_METHODS = ("split", "rsplit", "count", "index", "find", "rfind", "replace", "copy", "reverse", "strip",
                  "lstrip", "rstrip", "splitlines", "upper", "lower", "extend", "startswith", "endswith")

_PRELUDE = r'''
import sys, os, atexit, builtins, math, threading
_count = [0]
_lines = [0]
_skip = set()
def _capped():
    sys.settrace(None); sys.setprofile(None)
    try:
        sys.stdout.write("\n%(marker)s %%d capped\n" %% _count[0]); sys.stdout.flush()
    finally:
        os._exit(%(exit)d)
def _line(frame, event, arg):
    if event == "line":
        _count[0] += 1
        _lines[0] += 1
        if _lines[0] > %(cap)d:
            _capped()
    return _line
def _call(frame, event, arg):
    return None if frame.f_code in _skip else _line
def _size(obj):
    try:
        return len(obj)
    except Exception:
        return 0
_linear = frozenset(%(linear)r)
def _prof(frame, event, arg):
    if event == "c_call":
        owner = getattr(arg, "__self__", None)
        if owner is None or owner is builtins or isinstance(owner, type(sys)):
            return
        name = getattr(arg, "__name__", "")
        if name == "sort":
            k = _size(owner); _count[0] += int(k * math.log2(k + 1))
        elif name in _linear:
            _count[0] += _size(owner)
def _wrap(fn, nlogn):
    def wrapper(*args, **kwargs):
        if len(args) == 1:
            k = _size(args[0]); _count[0] += int(k * math.log2(k + 1)) if nlogn else k
        return fn(*args, **kwargs)
    _skip.add(wrapper.__code__)
    return wrapper
builtins.sorted = _wrap(sorted, True)
for _name in ("sum", "min", "max", "any", "all"):
    setattr(builtins, _name, _wrap(getattr(builtins, _name), False))
def _report():
    sys.settrace(None); sys.setprofile(None)
    sys.stdout.write("\n%(marker)s %%d\n" %% _count[0]); sys.stdout.flush()
_skip.add(_report.__code__)
atexit.register(_report)
threading.settrace(_call); threading.setprofile(_prof)
sys.settrace(_call); sys.setprofile(_prof)
sys._getframe(1).f_trace = _line
''' % {"marker": MARKER, "exit": CAP_EXIT, "cap": CAP, "linear": LINEAR_METHODS}


def instrument(source: str) -> str:
    """``source`` with the counting statement (module docstring) in front, on one line,
    so the program's line numbers move by one and the program contract
    (sandbox/runner/contract.py) sees one more top-level statement that calls nothing of it."""
    return f"exec({_PRELUDE!r}, {{'__name__': '_neocoder_ops'}})\n" + source


def split_output(stdout: str) -> tuple[str, int | None, bool]:
    """(the program's own output, the count or None when the marker is missing, capped)."""
    at = stdout.rfind("\n" + MARKER + " ")
    if at < 0:
        return stdout, None, False
    tail = stdout[at + len(MARKER) + 2:].split()
    try:
        count = int(tail[0])
    except (IndexError, ValueError):
        return stdout[:at], None, False
    return stdout[:at], count, "capped" in tail[1:2]
