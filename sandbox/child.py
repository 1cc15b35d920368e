"""One test's process: run the prepared program, then call solve() once.

Started by runner.py as ``python3 -I child.py PROGRAM STATUS ENTRY`` with the test's
stdin, pipes for stdout/stderr, and rlimits already set.  Kept tiny on purpose:
every test pays for this interpreter's start-up.  On an uncaught exception the
exception's class name is written to STATUS, so the runner can name it in the RE.
"""

import sys


def main(program_path, status_path, entry):
    with open(program_path, encoding="utf-8") as f:
        code = compile(f.read(), "solution.py", "exec")
    namespace = {"__name__": "__main__", "__builtins__": __builtins__, "__file__": "solution.py"}
    sys.argv = ["solution.py"]
    try:
        exec(code, namespace)
        if entry == "solve":
            namespace["solve"]()
    except SystemExit:
        raise
    except BaseException as exc:  # report the class; the traceback goes to stderr
        name = type(exc).__name__
        try:
            sys.stdout.flush()
        except BaseException:
            pass
        try:
            import traceback
            traceback.print_exc()
        except BaseException:
            pass
        try:
            with open(status_path, "w") as f:
                f.write(name)
        except BaseException:
            pass
        import os
        os._exit(1)
    finally:
        try:
            sys.stdout.flush()
        except BaseException:
            pass


if __name__ == "__main__":
    main(*sys.argv[1:4])
