"""In-container runner: judges submissions sent to it, one after another.

Runs *inside* the sandbox (Debian's python3, standard library only); this package is
copied whole into the image by ``neocoder sandbox build`` (to ``/opt/neocoder/runner``)
and imports nothing of neocoder.  ``python3 -m runner --serve`` reads one JSON request
per line on stdin and answers with JSON lines on stdout; every message and field is
documented with the host side, in ``neocoder/judge/protocol.py``:

    ready once; then per request {"op": "run", ...}: header, one test per input, done

Expected outputs never enter the container: the host compares them.  The runner
reports what it observed (exit status, signal, exception name, CPU time of the whole
process tree, wall time, peak memory, OOM kills, stdout) and its verdict before the
comparison (ok, tle, mle, ole, re), decided by the pure ``limits.classify``.

One job per module:

- ``contract``: the program contract (``prepare``: how a program is run);
- ``limits``: per-test limits, the cgroup counters, the verdict (``classify``);
- ``privileges``: the runner's uid and capabilities, the process backend's namespaces;
- ``scratch``: finding and killing the program's processes, wiping its files;
- ``forkserver``: starting a test (fork server or a new interpreter);
- ``watch``: watching one test until it ends or crosses a limit;
- ``wire``: the host's messages in, the runner's messages out;
- ``session``: one runner's session, the loop over submissions and tests; ``__main__``
  starts it;
- ``native``: C++ programs: the compile step (g++, its flags and limits) and starting the binary;
- ``child``: the test process itself (run as a script, ``child.py --test`` or
  ``--fork-server``, and imported for its set-up).

On the host the package is ``neocoder.sandbox_recipe.runner`` and is imported normally
(tests, the speed scripts in perf/); the names below are the ones host code uses.
"""

from . import child
from .contract import SOURCE_LIMIT_BYTES, Prepared, prepare
from .forkserver import CHILD
from .limits import NEAR_LIMIT_BYTES, UNLIMITED_BYTES, Limits, classify, cpu_backstop, limits_of, signal_name

__all__ = ["CHILD", "Limits", "NEAR_LIMIT_BYTES", "Prepared", "SOURCE_LIMIT_BYTES", "UNLIMITED_BYTES", "child",
           "classify", "cpu_backstop", "limits_of", "prepare", "signal_name"]
