"""The program contract: how a submitted program is run (NeoCoder: define ``solve()``,
read stdin, print to stdout).

``prepare`` decides, from the program's top level alone, whether the runner calls
``solve()`` once per test, runs the program as written, or first removes a test harness
the model left in; the rule that applied is reported as ``entry_rule``.  Pure (ast
only, no side effects), so the host imports it too (``neocoder.sandbox_recipe.runner.
contract``: tests, the speed scripts) and gets the very decision the sandbox makes.
"""

import ast
import collections

# The host refuses larger programs with a clear verdict (neocoder/judge/protocol.py);
# this guard only keeps a direct caller from making the runner parse megabytes.
SOURCE_LIMIT_BYTES = 64 << 10

# Names whose use marks a test harness rather than a solution.
HARNESS_NAMES = frozenset({"unittest", "doctest", "pytest", "mock", "redirect_stdout"})
HARNESS_MODULES = frozenset({"unittest", "doctest", "pytest", "mock"})  # imported only for a harness
INPUT_TARGETS = frozenset({"sys.stdin", "input", "builtins.input"})
FIXED_READERS = frozenset({"StringIO", "BytesIO", "iter"})
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

Prepared = collections.namedtuple("Prepared", "entry rule calls_solve program")
Prepared.__doc__ = """How a program is run.

entry: "solve" (the runner calls solve() once per test) or "script" (run as written);
rule: which rule of ``prepare`` applied; calls_solve: the program itself calls solve()
(the instruction said not to; reported, never counted as wrong); program: the text run.
"""


def _loaded_names(node):
    """Names read anywhere inside ``node``."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _zero_arg_callable(fn):
    args = fn.args
    required = len(args.posonlyargs) + len(args.args) - len(args.defaults)
    kw_required = sum(1 for d in args.kw_defaults if d is None)
    return required == 0 and kw_required == 0


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return inner and f"{inner}.{node.attr}"
    return None


def _fixed(node, constants):
    """True if ``node`` is sample data written into the program: a string, a list or
    tuple display, a name bound to one at top level, or a StringIO/iter over one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    if isinstance(node, (ast.List, ast.Tuple)):
        return True
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, ast.Attribute):
        return _fixed(node.value, constants)
    if isinstance(node, ast.Call):
        name = _dotted(node.func) or ""
        if name.rsplit(".", 1)[-1] in FIXED_READERS:
            return any(_fixed(a, constants) for a in node.args)
        return isinstance(node.func, ast.Attribute) and _fixed(node.func.value, constants)
    return False


def _assignments(node):
    """(target, value) pairs of every assignment inside ``node``, tuples unpacked."""
    for n in ast.walk(node):
        if isinstance(n, ast.Assign):
            for target in n.targets:
                if isinstance(target, ast.Tuple) and isinstance(n.value, ast.Tuple) \
                        and len(target.elts) == len(n.value.elts):
                    yield from zip(target.elts, n.value.elts)
                else:
                    yield target, n.value


def _harness_markers(node, constants):
    """True if ``node`` tests rather than solves: a test framework or mock, a patch()
    call, stdin or input() fed fixed sample data, stdout captured in a StringIO."""
    if _loaded_names(node) & HARNESS_NAMES:
        return True
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr in HARNESS_NAMES:
            return True
        if isinstance(n, ast.Call) and (_dotted(n.func) or "").rsplit(".", 1)[-1] in ("patch", "redirect_stdout"):
            return True
    for target, value in _assignments(node):
        name = _dotted(target)
        if name in INPUT_TARGETS and _fixed(value, constants):
            return True
        if name == "sys.stdout" and (_dotted(getattr(value, "func", None)) or "").endswith("StringIO"):
            return True
    return False


def _unused_harness_import(stmt, used):
    """True for a top-level import of a test framework none of whose names ``used`` has
    (what a removed harness leaves behind; importing unittest.mock alone costs 60 ms)."""
    if isinstance(stmt, ast.Import):
        modules = [a.name for a in stmt.names]
    elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
        modules = [stmt.module]
    else:
        return False
    bound = {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return all(m.split(".")[0] in HARNESS_MODULES for m in modules) and not bound & used


def _drop_dead_harness(tree, constants):
    """Remove what only the removed harness used: test functions and classes nothing
    refers to any more that test (asserts, mocks, patches), then the test-framework
    imports nothing uses (importing unittest.mock alone costs 60 ms per test)."""
    names = {id(n): _loaded_names(n) for n in tree.body}
    changed = True
    while changed:
        changed = False
        for node in list(tree.body):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or node.name == "solve":
                continue
            used = any(node.name in names[id(n)] for n in tree.body if n is not node)
            asserts = any(isinstance(n, ast.Assert) for n in ast.walk(node))
            if not used and (_harness_markers(node, constants) or asserts):
                tree.body.remove(node)
                changed = True
    used = _loaded_names(tree)
    tree.body = [s for s in tree.body if not _unused_harness_import(s, used)]


def prepare(source, mode="auto"):
    """Decide how ``source`` runs; returns a Prepared.  Raises SyntaxError/ValueError.

    mode "script" runs every program as written (rule "script": a human Codeforces
    solution).  Otherwise, for a program that defines a top-level zero-argument
    ``solve``, with C the top-level functions and classes from which solve() is
    reachable (solve included), a top-level statement *calls solve* if it uses a
    name in C (a call, ``main()``, ``Thread(target=solve)``, an alias):

    - "harness_removed": some top-level statement is a test harness (a test
      framework or mock, patch(), stdin or input() fed fixed sample data, stdout
      captured; or a statement calling solve that asserts, directly or in the
      functions of C it uses): every harness statement and every statement calling
      solve is removed (with the test functions and test-framework imports nothing
      uses any more), and the runner calls solve() once per test;
    - "program_calls_solve": a statement calls solve (a bare call, a driver loop, a
      main() or another name) and none is a harness: the program runs as written;
    - "runner_calls_solve": nothing calls solve: the runner calls it once per test.

    Without a zero-argument ``solve`` the rule is "no_solve": run as written.
    ``calls_solve`` is True when some top-level statement calls solve.
    """
    tree = ast.parse(source, filename="solution.py")
    if mode == "script":
        return Prepared("script", "script", False, source)
    defs = {n.name: n for n in tree.body if isinstance(n, DEFINITIONS)}
    statements = [n for n in tree.body if not isinstance(n, DEFINITIONS)]
    solve = defs.get("solve")
    callers = _solve_callers(defs)
    calling = [s for s in statements if _loaded_names(s) & callers]
    if not (isinstance(solve, ast.FunctionDef) and _zero_arg_callable(solve)):
        return Prepared("script", "no_solve", bool(solve and calling), source)
    constants = {t.id for s in statements if isinstance(s, ast.Assign) for t in s.targets
                 if isinstance(t, ast.Name) and _fixed(s.value, set())}
    harnesses = [s for s in statements if _is_harness(s, s in calling, defs, callers, constants)]
    if harnesses:
        drop = {id(s) for s in harnesses + calling}
        tree.body = [s for s in tree.body if id(s) not in drop]
        _drop_dead_harness(tree, constants)
        return Prepared("solve", "harness_removed", bool(calling), ast.unparse(ast.fix_missing_locations(tree)))
    if calling:
        return Prepared("script", "program_calls_solve", True, source)
    return Prepared("solve", "runner_calls_solve", False, source)


def _solve_callers(defs):
    """Names of the top-level definitions ``defs`` (name -> node) from which solve() is
    reachable, "solve" included: a fixpoint over the definitions that use a caller."""
    callers = {"solve"}
    changed = True
    while changed:
        changed = False
        for name, node in defs.items():
            if name not in callers and _loaded_names(node) & callers:
                callers.add(name)
                changed = True
    return callers


def _used_callers(stmt, defs, callers):
    """The definitions among ``callers`` (solve left out) that ``stmt`` reaches."""
    seen, frontier = set(), _loaded_names(stmt) & callers
    while frontier:
        name = frontier.pop()
        seen.add(name)
        frontier |= (_loaded_names(defs[name]) & callers) - seen
    return seen - {"solve"}


def _is_harness(stmt, calls_solve, defs, callers, constants):
    """True if top-level statement ``stmt`` is a test harness: it has harness markers, or
    it calls solve (``calls_solve``) and asserts, directly or in the callers it uses,
    or one of those callers has harness markers."""
    if _harness_markers(stmt, constants):
        return True
    if not calls_solve:
        return False
    used = [defs[name] for name in _used_callers(stmt, defs, callers)]
    return any(isinstance(n, ast.Assert) for part in [stmt] + used for n in ast.walk(part)) \
        or any(_harness_markers(fn, constants) for fn in used)
