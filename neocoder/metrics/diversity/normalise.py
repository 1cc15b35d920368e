"""Style removed from a Python program before its structure is compared (issue 39).

Read side by side, accepted solutions of one problem that implement one algorithm
differ mostly in things that are not the algorithm: how the input is parsed
(``map(int, input().split())``, ``[*open(0)]``, ``sys.stdin.readline``), how the output
is formatted, ``for`` against ``while`` for the test-case loop, a ``solve()`` wrapper and
a test harness (GPT-4's replies), imports, and dead code.  ``normalise`` rewrites a
program's syntax tree (Python's ``ast``) so that these become one form, and returns the
source again (``ast.unparse``); the structure measure (structure.py) then compares
these normal forms.  The rewrites, in order:

1. the harness: ``if __name__ == "__main__":`` blocks, imports, docstrings and bare
   constants, ``input = sys.stdin.readline`` and the like are dropped; a module-level
   function without parameters that holds the program (``solve``, ``main``) is
   inlined where the module calls it (also inside the test-case loop; else where the
   program contract would call it), and a
   golfed ``exec("..." * n)`` becomes the loop it stands for;
2. reading: every maximal expression that only reads and parses input (calls of
   ``input``, ``open``, ``readline``, ``read`` wrapped in ``int``, ``map``, ``list``,
   ``split``, ``strip``, slices, unpacking, comprehensions over them) becomes ``READ``;
3. writing: ``print``/``write`` calls become ``WRITE(values)``: separators, ``join``,
   ``map(str, ...)``, ``str()``, f-string text and string constants are dropped;
4. the test-case loop: a loop over ``range(READ)``/``READ``, or ``while t:`` over a
   counter read from input, is replaced by its body (one test case);
5. loops: ``while c: ...`` becomes ``for _ in c: ...`` and the counter step that only
   drives a while loop (``t -= 1``, ``i += 1`` of the tested name) is dropped;
6. dead code: assignments to names never read, self-assignments (``x = x``), a bare
   name or ``READ`` as a statement (a line read and thrown away), and
   ``pass``/``continue`` at the end of a block, are dropped.

What stays is what computes the answer: its loops and their nesting, the operations,
the built-ins and methods called (``sorted``, ``set``, ``count``, ``max``), the
arithmetic.  A program that does not parse as Python is returned unchanged.
"""

from __future__ import annotations

import ast
import warnings

READERS = {"input", "open", "readline", "readlines", "read", "stdin"}
PARSERS = {"int", "map", "list", "tuple", "split", "strip", "rstrip", "lstrip", "str", "iter", "float",
           "splitlines", "encode", "decode", "next"} | READERS
WRITERS = {"print", "write", "writelines"}
_FORMAT = {"join", "str", "map", "format"}
_READ_NODES = (ast.Call, ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Constant, ast.ListComp,
               ast.GeneratorExp, ast.comprehension, ast.Starred, ast.List, ast.Tuple, ast.Load, ast.Store,
               ast.UnaryOp, ast.USub, ast.BinOp, ast.Mult, ast.keyword, ast.Set, ast.SetComp)


def parse_program(source: str) -> ast.Module:
    """``ast.parse(source)`` with the compiler's warnings about the text silenced
    (``1if x else 2``: "invalid decimal literal"; ``"\\d"``: "invalid escape sequence"): the
    text is a model's or a person's program, whose style is not ours to warn about, as in
    the technique detector.  Raises SyntaxError or ValueError as ``ast.parse`` does."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(source)


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _is_read(node: ast.AST, readers: frozenset = frozenset()) -> bool:
    """True when ``node`` only reads and parses input (rewrite 2); ``readers`` are the
    program's own names for a reader (``R = lambda: map(int, input().split())``)."""
    reads = False
    for sub in ast.walk(node):
        if not isinstance(sub, _READ_NODES):
            return False
        if isinstance(sub, ast.Call):
            name = _callee(sub)
            if name not in PARSERS and name not in readers:
                return False
            reads |= name in READERS or name in readers
        if isinstance(sub, ast.Attribute) and sub.attr in READERS:
            reads = True
    return reads


def _values(node: ast.AST) -> list[ast.expr]:
    """The values a print/write call shows, without their formatting (rewrite 3)."""
    if isinstance(node, ast.Starred):
        return _values(node.value)
    if isinstance(node, ast.Constant):
        return []
    if isinstance(node, ast.JoinedStr):
        return [v for part in node.values for v in _values(part)]
    if isinstance(node, ast.FormattedValue):
        return _values(node.value)
    if isinstance(node, ast.Call) and _callee(node) in _FORMAT:
        args = node.args[1:] if _callee(node) == "map" else node.args
        return [v for a in args for v in _values(a)]
    text = (ast.Constant, ast.JoinedStr)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and (
            isinstance(node.left, text) or isinstance(node.right, text)):
        return _values(node.left) + _values(node.right)
    return [node]


class _Rewrite(ast.NodeTransformer):
    """Rewrites 2, 3 and 5 over the whole tree; ``readers`` as in ``_is_read``."""

    def __init__(self, readers: frozenset):
        self.readers = readers

    def visit(self, node):
        if isinstance(node, ast.expr) and not isinstance(node, (ast.Name, ast.Constant)) and \
                _is_read(node, self.readers):
            return ast.copy_location(ast.Name("READ", ast.Load()), node)
        return super().visit(node)

    def visit_Call(self, node: ast.Call):
        if _callee(node) in WRITERS:
            values = [self.visit(v) for a in node.args for v in _values(a)]
            return ast.copy_location(ast.Call(ast.Name("WRITE", ast.Load()), values, []), node)
        return self.generic_visit(node)

    def visit_While(self, node: ast.While):
        self.generic_visit(node)
        tested = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
        body = [s for s in node.body if not _is_step(s, tested)] or [ast.Pass()]
        loop = ast.For(ast.Name("_", ast.Store()), node.test, body, node.orelse)
        loop.from_while = True
        return ast.copy_location(loop, node)


def _is_step(stmt: ast.stmt, names: set[str]) -> bool:
    return (isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in names
            and isinstance(stmt.op, (ast.Add, ast.Sub)) and isinstance(stmt.value, ast.Constant))


def _is_harness(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return True
    if isinstance(stmt, ast.If) and "__name__" in ast.unparse(stmt.test):
        return True
    if isinstance(stmt, ast.Assign) and any(isinstance(n, ast.Attribute) and n.attr in ("stdin", "stdout")
                                            for t in stmt.targets for n in ast.walk(t)):
        return True  # sys.stdin = io.StringIO(...)
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, (ast.Attribute, ast.Name)) and \
            _is_read(stmt.value) and not isinstance(stmt.value, ast.Name):
        return True  # input = sys.stdin.readline
    return False


def _exec_text(stmt: ast.stmt) -> list[ast.stmt] | None:
    """``exec("code" * n)`` or ``exec("code")`` (golfed loops) as ``for _ in range(n): code``
    or the code itself; None for anything else or code that does not parse."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _callee(stmt.value) == "exec"
            and stmt.value.args):
        return None
    arg, times = stmt.value.args[0], None
    if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Mult):
        arg, times = (arg.left, arg.right) if isinstance(arg.left, ast.Constant) else (arg.right, arg.left)
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
        return None
    try:
        body = parse_program(arg.value).body
    except SyntaxError:
        return None
    if times is None:
        return body
    return [ast.For(ast.Name("_", ast.Store()), ast.Call(ast.Name("range", ast.Load()), [times], []), body, [])]


def _inline(body: list[ast.stmt]) -> list[ast.stmt]:
    """Rewrite 1: drop the harness, inline a parameterless program function and the
    code of a golfed ``exec``."""
    body = [s for s in body if not _is_harness(s)]
    body = [x for s in body for x in (_exec_text(s) or [s])]
    defs = {s.name: s for s in body if isinstance(s, ast.FunctionDef) and not s.args.args}
    called = {_callee(s.value) for s in body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)}
    looped = {_callee(n.value) for s in body if isinstance(s, (ast.For, ast.While)) for n in ast.walk(s)
              if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)}
    main = [n for n in defs if n in called | looped] or (["solve"] if "solve" in defs else [])
    bodies = {n: _inline(defs[n].body) for n in main}
    out: list[ast.stmt] = []
    placed = False
    for s in body:
        if isinstance(s, ast.FunctionDef) and s.name in main:
            continue
        got = _place(s, bodies)
        placed |= got is not None
        out.extend(got if got is not None else [s])
    if main and not placed:
        out.extend(bodies[main[0]])
    return out


def _place(stmt: ast.stmt, bodies: dict[str, list[ast.stmt]]) -> list[ast.stmt] | None:
    """``stmt`` with each call statement of an inlined function replaced by its body
    (also inside a loop: ``for _ in range(t): solve()``); None when it holds no such call."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _callee(stmt.value) in bodies:
        return list(bodies[_callee(stmt.value)])
    if isinstance(stmt, (ast.For, ast.While)):
        new = [_place(s, bodies) for s in stmt.body]
        if any(n is not None for n in new):
            stmt.body = [x for s, n in zip(stmt.body, new) for x in (n if n is not None else [s])]
            return [stmt]
    return None


def _unroll_cases(body: list[ast.stmt], counters: set[str]) -> list[ast.stmt]:
    """Rewrite 4 on the module's block (after rewrites 2, 3 and 5): the first loop over
    the test cases becomes its body."""
    out: list[ast.stmt] = []
    done = False
    for s in body:
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Name) and s.value.id == "READ":
            counters |= {n.id for t in s.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if not done and isinstance(s, ast.For) and _over_cases(s.iter, counters, getattr(s, "from_while", False)):
            out.extend(s.body)  # only the outermost such loop: an inner one (q queries) is the algorithm's
            done = True
            continue
        out.append(s)
    return out


def _over_cases(it: ast.expr, counters: set[str], count: bool) -> bool:
    """Whether a loop over ``it`` runs once per test case: over READ itself (the input's
    lines), or ``count`` times for a counter read from input (``range(t)``, ``[0] * t``,
    and the tests of a while loop: ``t``, ``t > 0``)."""
    if isinstance(it, ast.Name):
        return it.id == "READ" or (count and it.id in counters)
    if isinstance(it, ast.Call) and _callee(it) == "range" and len(it.args) == 1:
        return _over_cases(it.args[0], counters, True)
    if isinstance(it, ast.BinOp):  # [0] * READ, READ * ' '
        return _over_cases(it.left, counters, True) or _over_cases(it.right, counters, True)
    if isinstance(it, ast.Compare) and count:  # while t > 0
        return _over_cases(it.left, counters, True)
    return False


def _drop_dead(tree: ast.AST) -> None:
    """Rewrite 6: assignments to names never read, self-assignments, trailing pass/continue."""
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            block = getattr(node, name, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            kept = [s for s in block if not _dead(s, read)]
            while len(kept) > 1 and isinstance(kept[-1], (ast.Pass, ast.Continue)):
                kept.pop()
            setattr(node, name, kept or [ast.Pass()])


def _dead(stmt: ast.stmt, read: set[str]) -> bool:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Name):
        return True  # a bare READ (a line read and thrown away) or a bare name
    if not isinstance(stmt, ast.Assign):
        return False
    names = [n for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if len(names) == 1 and isinstance(stmt.value, ast.Name) and stmt.value.id == names[0].id:
        return True  # x = x
    calls = any(isinstance(n, ast.Call) and _callee(n) != "READ" for n in ast.walk(stmt.value))
    return bool(names) and all(n.id not in read for n in names) and not calls


def _reader(value: ast.expr) -> bool:
    """A value that makes its name a reader: ``lambda: map(int, input().split())``, ``input``."""
    if isinstance(value, ast.Lambda):
        return _is_read(value.body)
    return isinstance(value, ast.Name) and value.id in READERS


def normalise(source: str) -> str:
    """``source`` with its style removed (module docstring, rewrites 1-6), as Python
    source.  Returns ``source`` unchanged when it does not parse as Python."""
    try:
        tree = parse_program(source)
    except (SyntaxError, ValueError):
        return source
    tree.body = _inline(tree.body)
    readers = frozenset(t.id for s in tree.body if isinstance(s, ast.Assign) and _reader(s.value)
                        for t in s.targets if isinstance(t, ast.Name))
    tree = _Rewrite(readers).visit(tree)
    tree.body = _unroll_cases(tree.body, set()) or [ast.Pass()]
    _drop_dead(tree)
    ast.fix_missing_locations(tree)
    try:
        return ast.unparse(tree)
    except (ValueError, TypeError, AttributeError, RecursionError):
        return source
