"""A parsed program: the one object every technique rule receives.

The rules (``loop_rules.py``, ``graph_rules.py``) need more than tree-sitter's tree:
the nodes under a node, many times over (a preorder index makes that a list slice,
about 10x faster than walking again); the functions on a cycle of the call graph
(recursion, and the rules built on it: back tracking, depth first search, minimax,
...); the earlier entries a table write reads (dynamic programming and prefix sums).
``ParsedProgram`` holds these for one program, computed once, and is passed to every
rule explicitly: a rule reads only its argument, never state installed elsewhere.

The node helpers below read either grammar (tree-sitter-python and tree-sitter-cpp
name the same ideas differently: ``call``/``call_expression``,
``subscript``/``subscript_expression``, ``attribute``/``field_expression``).
"""

from __future__ import annotations

from typing import Callable, Iterator

LOOPS = {"for_statement", "while_statement", "do_statement", "for_range_loop"}
CALLS = {"call", "call_expression"}
SUBSCRIPTS = {"subscript", "subscript_expression"}
COMPARE_OPS = {"<", "<=", ">", ">=", "!="}
_NAME_TYPES = ("identifier", "field_identifier", "qualified_identifier", "destructor_name", "operator_name")


# ----------------------------------------------------------------- node helpers

def text(node) -> str:
    """Source text of ``node`` ("" for None)."""
    return node.text.decode("utf-8", "replace") if node is not None else ""


def strip(node):
    """Look through parentheses and C++ condition clauses."""
    while node is not None and node.type in ("parenthesized_expression", "condition_clause"):
        inner = [c for c in node.named_children if c.type != "comment"]
        node = node.child_by_field_name("value") or (inner[0] if inner else None)
    return node


def callee(call) -> str:
    """Name of the function a call node calls, its last component: f(), obj.f(),
    obj->f(), ns::f(), f<T>() -> "f"; "" when the called thing has no name."""
    f = call.child_by_field_name("function")
    while f is not None:
        if f.type in ("identifier", "field_identifier"):
            return text(f)
        if f.type == "attribute":
            f = f.child_by_field_name("attribute")
        elif f.type == "field_expression":
            f = f.child_by_field_name("field")
        elif f.type in ("qualified_identifier", "template_function"):
            f = f.child_by_field_name("name")
        else:
            return ""
    return ""


def receiver(call) -> str:
    """Text of the object a method is called on (``q`` in q.pop()), or ""."""
    f = call.child_by_field_name("function")
    if f is not None and f.type == "attribute":
        return text(f.child_by_field_name("object"))
    if f is not None and f.type == "field_expression":
        return text(f.child_by_field_name("argument"))
    return ""


def arguments(call) -> list:
    """Argument nodes of a call, comments left out."""
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def subscript_parts(node):
    """(container, [index, ...]) of a subscript in either language."""
    if node.type == "subscript":
        return node.child_by_field_name("value"), node.children_by_field_name("subscript")
    indices = node.child_by_field_name("indices")
    return node.child_by_field_name("argument"), (indices.named_children if indices is not None else [])


def binary(node):
    """(left, operator, right) of a binary expression, or None."""
    if node is None or node.type not in ("binary_operator", "binary_expression"):
        return None
    op = node.child_by_field_name("operator")
    return node.child_by_field_name("left"), text(op), node.child_by_field_name("right")


def loop_condition(loop):
    """The condition of a while, do-while or C-style for loop, or None."""
    if loop.type in ("while_statement", "do_statement", "for_statement"):
        return strip(loop.child_by_field_name("condition"))
    return None


def loop_iterable(loop):
    """What a Python for / C++ range-for iterates over, or None."""
    if loop.type in ("for_statement", "for_range_loop"):
        return loop.child_by_field_name("right")  # Python: for x in <right>; C++: for (x : <right>)
    return None


def function_name(fn) -> str | None:
    """Name of a Python or C/C++ function_definition node."""
    name = fn.child_by_field_name("name")
    if name is not None:  # Python
        return text(name)
    decl = fn.child_by_field_name("declarator")  # C/C++: walk to the innermost declarator
    while decl is not None and decl.type not in _NAME_TYPES:
        decl = decl.child_by_field_name("declarator")
    if decl is None:
        return None
    if decl.type == "qualified_identifier":
        decl = decl.child_by_field_name("name") or decl
    return text(decl)


def _index_texts(sub) -> list[str]:
    """Index expressions of a (possibly multi-dimensional) subscript, outermost last, no spaces."""
    out = []
    while sub is not None and sub.type in SUBSCRIPTS:
        container, index = subscript_parts(sub)
        out = ["".join(text(i).split()) for i in index] + out
        sub = container
    return out


def _table(sub):
    """The innermost subscript of ``a[i][j]`` (``a[i]``), whose container is the table."""
    while subscript_parts(sub)[0] is not None and subscript_parts(sub)[0].type in SUBSCRIPTS:
        sub = subscript_parts(sub)[0]
    return sub


def _preorder(node) -> list:
    """The nodes under ``node`` (itself included) in source order, by walking them."""
    stack, out = [node], []
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(n.children))
    return out


# ----------------------------------------------------------------- the program

class ParsedProgram:
    """One program parsed once, with what the rules share (``detector.parse`` builds it).

    ``tree`` is the tree-sitter tree and ``root`` its root node; ``language`` is the
    grammar it was parsed with ("python" or "cpp"); ``recursive`` maps each function
    (a named function or a lambda, ``callgraph.py``) that calls itself, directly, through
    other functions (f -> g -> f) or through a parameter (``self(self, n - 1)``), to its
    definition nodes, and ``recursive_definitions`` lists those nodes.  The methods that look
    under a node read the preorder index built here.
    """

    def __init__(self, tree, language: str):
        self.tree = tree
        self.root = root = tree.root_node
        self.language = language
        self._nodes: list = []
        self._end: list[int] = []
        self._position: dict[int, int] = {}
        stack = [(root, False)]
        while stack:  # preorder, so that the nodes under any node are one slice
            node, closing = stack.pop()
            if closing:
                self._end[self._position[node.id]] = len(self._nodes)
                continue
            self._position[node.id] = len(self._nodes)
            self._nodes.append(node)
            self._end.append(0)
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.children))
        self._facts: dict[Callable, object] = {}
        self._self_reads: dict[tuple[int, int], list] = {}
        self.recursive: dict[str, list] = self._recursive_functions()
        unique = {fn.id: fn for defs in self.recursive.values() for fn in defs}  # a lambda may have two names
        self.recursive_definitions: list = list(unique.values())

    # ------------------------------------------------------------- looking under a node

    @property
    def nodes(self) -> list:
        """Every node of the program in source order (do not modify)."""
        return self._nodes

    def walk(self, node) -> list:
        """Every node under ``node`` (itself included), in source order."""
        i = self._position.get(node.id)
        if i is not None:
            return self._nodes[i:self._end[i]]
        return _preorder(node)  # not a node of this program's tree

    def calls(self, node) -> Iterator:
        """Call nodes under ``node``."""
        return (n for n in self.walk(node) if n.type in CALLS)

    def comparisons(self, node) -> Iterator[tuple]:
        """(left, op, right) for every comparison in ``node`` (Python chains give pairs)."""
        for n in self.walk(node):
            if n.type == "comparison_operator":  # Python: a < b <= c
                operands = list(n.named_children)
                ops = [text(c) for c in n.children if not c.is_named]
                for i, op in enumerate(ops[:len(operands) - 1]):
                    yield operands[i], op, operands[i + 1]
            elif n.type == "binary_expression":
                left, op, right = binary(n)
                if op in COMPARE_OPS or op == "==":
                    yield left, op, right

    def assignments(self, node) -> Iterator[tuple]:
        """(target, operator, value) for =, +=, -=, ... and C++ declarations with a value."""
        for n in self.walk(node):
            if n.type in ("assignment", "augmented_assignment", "assignment_expression"):
                op = n.child_by_field_name("operator")
                yield n.child_by_field_name("left"), text(op) if op is not None else "=", \
                    n.child_by_field_name("right")
            elif n.type == "init_declarator":
                yield n.child_by_field_name("declarator"), "=", n.child_by_field_name("value")

    def steps(self, node) -> dict[str, set[int]]:
        """Variables moved by one step in ``node``: name -> {+1, -1} (i += 1, i++, i = i - 1, ...)."""
        moved: dict[str, set[int]] = {}
        for n in self.walk(node):
            if n.type == "update_expression":
                arg, op = n.child_by_field_name("argument"), text(n.child_by_field_name("operator"))
                if arg is not None and arg.type == "identifier":
                    moved.setdefault(text(arg), set()).add(1 if op == "++" else -1)
        for target, op, value in self.assignments(node):
            if target is None or target.type != "identifier":
                continue
            name = text(target)
            if op in ("+=", "-="):
                moved.setdefault(name, set()).add(1 if op == "+=" else -1)
            elif op == "=":
                parts = binary(strip(value))
                if parts and parts[1] in ("+", "-") and text(parts[0]) == name:
                    moved.setdefault(name, set()).add(1 if parts[1] == "+" else -1)
        return moved

    def identifiers(self, node) -> set[str]:
        """Names of the identifiers under ``node``."""
        return {text(n) for n in self.walk(node) if n.type == "identifier"}

    def loops(self) -> Iterator[tuple]:
        """(loop, body) for every loop of the program."""
        for loop in self._nodes:
            if loop.type in LOOPS:
                body = loop.child_by_field_name("body")
                if body is not None:
                    yield loop, body

    def conditional_loops(self, kinds=("while_statement", "for_statement", "do_statement")) -> Iterator[tuple]:
        """(loop, condition) for every loop of ``kinds`` that has a condition."""
        for loop in self._nodes:
            if loop.type in kinds:
                cond = loop_condition(loop)
                if cond is not None:
                    yield loop, cond

    def loop_variables(self, loop) -> set[str]:
        """Names a loop steps through: Python ``for v in``, C++ ``for (int i = ...; ...)`` and
        range-for declarators."""
        if loop.type == "for_statement" and loop.child_by_field_name("left") is not None:
            return self.identifiers(loop.child_by_field_name("left"))
        if loop.type == "for_statement":
            init = loop.child_by_field_name("initializer")
            return {text(t) for t, _, _ in self.assignments(init) if t is not None} if init is not None else set()
        if loop.type == "for_range_loop":
            decl = loop.child_by_field_name("declarator")
            return self.identifiers(decl) if decl is not None else set()
        return set()

    def parameters(self, fn) -> set[str]:
        """Parameter names of a Python or C/C++ function definition."""
        params = fn.child_by_field_name("parameters")
        if params is None:  # C/C++: the parameters hang off the function declarator
            decl = fn.child_by_field_name("declarator")
            while decl is not None and params is None:
                params = decl.child_by_field_name("parameters")
                decl = decl.child_by_field_name("declarator")
        names = set()
        for p in (params.named_children if params is not None else []):
            if p.type == "identifier":
                names.add(text(p))
                continue
            ids = [n for n in self.walk(p) if n.type == "identifier"]
            if ids:  # the declared name is the last identifier (after any type or default)
                decl = p.child_by_field_name("declarator") or p.child_by_field_name("name")
                names.add(text([n for n in self.walk(decl) if n.type == "identifier"][-1])
                          if decl is not None else text(ids[0]))
        return names

    # ------------------------------------------------------------- facts computed once

    def fact(self, compute: Callable[[ParsedProgram], object]):
        """``compute(self)``, computed once per program (rules that build on other rules
        share the result)."""
        if compute not in self._facts:
            self._facts[compute] = compute(self)
        return self._facts[compute]

    def recursive_call_sites(self, body) -> list[int]:
        """Start bytes of the calls in ``body`` to a recursive function (any receiver)."""
        if body is None:
            return []
        return [c.start_byte for c in self.calls(body) if callee(c) in self.recursive]

    def self_reads(self, target, value) -> list:
        """Reads in ``value`` of the table that ``target`` writes, at another index that
        shares a variable with the written one (``A[i - 1]`` for ``A[i]``, ``A[i]`` for
        ``A[i + 1]``); children in a heap or segment-tree layout (``A[2 * v]``) are not
        earlier entries."""
        key = (target.id, value.id)
        if key not in self._self_reads:
            self._self_reads[key] = self._find_self_reads(target, value)
        return self._self_reads[key]

    def _find_self_reads(self, target, value) -> list:
        name = text(subscript_parts(_table(target))[0])
        written = _index_texts(target)
        variables = self.identifiers(target) - {name}
        reads = []
        for n in self.walk(value):
            if n.type in SUBSCRIPTS and n.parent is not None and n.parent.type not in SUBSCRIPTS or \
                    (n.type in SUBSCRIPTS and n.parent is None):
                if text(subscript_parts(_table(n))[0]) != name:
                    continue
                idx = _index_texts(n)
                if any(op in i for i in idx for op in ("*", "<<", ">>", "/")):
                    continue
                if idx != written and variables & self.identifiers(n):
                    reads.append(n)
        return reads

    def _recursive_functions(self) -> dict[str, list]:
        """The recursive callables, however written (``callgraph.recursive_functions``)."""
        from neocoder.techniques.callgraph import recursive_functions  # it reads this module's helpers
        return recursive_functions(self)
