"""Semantic techniques: documented AST heuristics over a tree-sitter tree (Python and C/C++).

The syntactic techniques (loops, branches, containers, library calls) are tree-sitter
queries in ``queries/<language>.scm``.  The techniques below are about how code is
organised, which a single query cannot express (they relate a loop's condition to the
variables its body moves, or a recursive call to what happens before and after it).
Each rule is a small function over the parse tree, written once for both languages
through the helpers at the top; docs/techniques.md states every rule in words.

These are heuristics: they name a recognisable shape of code, not every program that
some reader would call "greedy" or "two pointers".  A rule fires on the shape and on
nothing else, so a constraint means the same thing in every run.
"""

from __future__ import annotations

import threading
from typing import Iterator

LOOPS = {"for_statement", "while_statement", "do_statement", "for_range_loop"}
CALLS = {"call", "call_expression"}
SUBSCRIPTS = {"subscript", "subscript_expression"}
COMPARE_OPS = {"<", "<=", ">", ">=", "!="}
STREAMS = {"cin", "cout", "cerr", "clog"}
TRUE_WORDS = {"True", "true", "1"}
FALSE_WORDS = {"False", "false", "0"}
# (do, undo) pairs of method calls on the same object
UNDO_METHODS = {"append": {"pop"}, "push_back": {"pop_back"}, "emplace_back": {"pop_back"},
                "add": {"remove", "discard"}, "insert": {"erase", "remove"}, "push": {"pop"}}


# ----------------------------------------------------------------- tree helpers

class TreeIndex:
    """The nodes of one parse tree in preorder, so that the nodes under any node are one
    slice (the rules walk subtrees many times; building node objects once is ~10x faster)."""

    def __init__(self, root):
        self.nodes, self.end, self.position = [], [], {}
        stack = [(root, False)]
        while stack:
            node, closing = stack.pop()
            if closing:
                self.end[self.position[node.id]] = len(self.nodes)
                continue
            self.position[node.id] = len(self.nodes)
            self.nodes.append(node)
            self.end.append(0)
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.children))

    def __enter__(self):
        _active.index = self
        return self

    def __exit__(self, *exc):
        _active.index = None


_active = threading.local()


def walk(node):
    """Every node under ``node`` (itself included), in source order."""
    index = getattr(_active, "index", None)
    i = index.position.get(node.id) if index is not None else None
    if i is not None:
        return index.nodes[i:index.end[i]]
    return list(_walk(node))


def _walk(node) -> Iterator:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _strip(node):
    """Look through parentheses and C++ condition clauses."""
    while node is not None and node.type in ("parenthesized_expression", "condition_clause"):
        inner = [c for c in node.named_children if c.type != "comment"]
        node = node.child_by_field_name("value") or (inner[0] if inner else None)
    return node


def callee(call) -> str:
    """Last component of a call's name: f(), obj.f(), obj->f(), ns::f(), f<T>() -> "f"."""
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
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def subscript_parts(node):
    """(container, [index, ...]) of a subscript in either language."""
    if node.type == "subscript":
        return node.child_by_field_name("value"), node.children_by_field_name("subscript")
    indices = node.child_by_field_name("indices")
    return node.child_by_field_name("argument"), (indices.named_children if indices is not None else [])


def calls(node) -> Iterator:
    return (n for n in walk(node) if n.type in CALLS)


def binary(node):
    """(left, operator, right) of a binary expression, or None."""
    if node is None or node.type not in ("binary_operator", "binary_expression"):
        return None
    op = node.child_by_field_name("operator")
    return node.child_by_field_name("left"), text(op), node.child_by_field_name("right")


def comparisons(node) -> Iterator[tuple]:
    """(left, op, right) for every comparison in ``node`` (Python chains give pairs)."""
    for n in walk(node):
        if n.type == "comparison_operator":  # Python: a < b <= c
            operands = [c for c in n.named_children]
            ops = [text(c) for c in n.children if not c.is_named]
            for i, op in enumerate(ops[:len(operands) - 1]):
                yield operands[i], op, operands[i + 1]
        elif n.type == "binary_expression":
            left, op, right = binary(n)
            if op in COMPARE_OPS or op == "==":
                yield left, op, right


def assignments(node) -> Iterator[tuple]:
    """(target, operator, value) for =, +=, -=, ... and C++ declarations with a value."""
    for n in walk(node):
        if n.type in ("assignment", "augmented_assignment", "assignment_expression"):
            op = n.child_by_field_name("operator")
            yield n.child_by_field_name("left"), text(op) if op is not None else "=", n.child_by_field_name("right")
        elif n.type == "init_declarator":
            yield n.child_by_field_name("declarator"), "=", n.child_by_field_name("value")


def steps(node) -> dict[str, set[int]]:
    """Variables moved by one step in ``node``: name -> {+1, -1} (i += 1, i++, i = i - 1, ...)."""
    moved: dict[str, set[int]] = {}
    for n in walk(node):
        if n.type == "update_expression":
            arg, op = n.child_by_field_name("argument"), text(n.child_by_field_name("operator"))
            if arg is not None and arg.type == "identifier":
                moved.setdefault(text(arg), set()).add(1 if op == "++" else -1)
    for target, op, value in assignments(node):
        if target is None or target.type != "identifier":
            continue
        name = text(target)
        if op in ("+=", "-="):
            moved.setdefault(name, set()).add(1 if op == "+=" else -1)
        elif op == "=":
            parts = binary(_strip(value))
            if parts and parts[1] in ("+", "-") and text(parts[0]) == name:
                moved.setdefault(name, set()).add(1 if parts[1] == "+" else -1)
    return moved


def loop_condition(loop):
    if loop.type in ("while_statement", "do_statement", "for_statement"):
        return _strip(loop.child_by_field_name("condition"))
    return None


def loop_iterable(loop):
    """What a Python for / C++ range-for iterates over, or None."""
    if loop.type == "for_statement" and loop.child_by_field_name("right") is not None:
        return loop.child_by_field_name("right")  # Python: for x in <right>
    if loop.type == "for_range_loop":
        return loop.child_by_field_name("right")
    return None


def is_halving(node) -> bool:
    """x // 2, x / 2, x >> 1."""
    parts = binary(node)
    return bool(parts) and ((parts[1] in ("//", "/") and text(parts[2]) == "2")
                            or (parts[1] == ">>" and text(parts[2]) == "1"))


def is_midpoint(value, a: str, b: str) -> bool:
    """(a + b) // 2, (a + b) >> 1, a + (b - a) // 2 (either order of a and b)."""
    value = _strip(value)
    if is_halving(value):
        inner = binary(_strip(binary(value)[0]))
        return bool(inner) and inner[1] == "+" and {text(inner[0]), text(inner[2])} == {a, b}
    parts = binary(value)
    if parts and parts[1] == "+" and text(parts[0]) in (a, b) and is_halving(_strip(parts[2])):
        diff = binary(_strip(binary(_strip(parts[2]))[0]))
        return bool(diff) and diff[1] == "-" and {text(diff[0]), text(diff[2])} == {a, b}
    return False


def parameters(fn) -> set[str]:
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
        ids = [n for n in walk(p) if n.type == "identifier"]
        if ids:  # the declared name is the last identifier (after any type or default)
            decl = p.child_by_field_name("declarator") or p.child_by_field_name("name")
            names.add(text([n for n in walk(decl) if n.type == "identifier"][-1]) if decl is not None else text(ids[0]))
    return names


# ----------------------------------------------------------------- the rules

def loop_bodies(root) -> Iterator[tuple]:
    """(loop, body) for every loop of either language."""
    for loop in walk(root):
        if loop.type in LOOPS:
            body = loop.child_by_field_name("body")
            if body is not None:
                yield loop, body


def conditional_loops(root, kinds=("while_statement", "for_statement", "do_statement")) -> Iterator[tuple]:
    """(loop, condition) for every loop of ``kinds`` that has a condition."""
    for loop in walk(root):
        if loop.type in kinds:
            cond = loop_condition(loop)
            if cond is not None:
                yield loop, cond


def two_pointers(root) -> bool:
    """A loop whose condition compares two indices that its body moves towards each other
    (``while l < r: ... l += 1 ... r -= 1``), or moves both forward as a merge does
    (``while i < n and j < m``).  A loop that computes the midpoint of the two is a
    binary search, not two pointers."""
    for loop, cond in conditional_loops(root):
        moved = steps(loop)
        compared = [(text(a), text(b)) for a, op, b in comparisons(cond)
                    if op in COMPARE_OPS and a is not None and b is not None]
        if any(is_midpoint(v, a, b) for a, b in compared for _, _, v in assignments(loop) if v is not None):
            continue
        for a, b in compared:
            if a != b and a in moved and b in moved and (moved[a] | moved[b]) == {1, -1} \
                    and not (moved[a] == {1, -1} or moved[b] == {1, -1}):
                return True
        forward = {a for a, _ in compared if moved.get(a) == {1}}
        if len(forward) >= 2 and len({b for _, b in compared}) >= 2:
            return True
    return False


def sliding_window(root) -> bool:
    """A window over a sequence kept by adding what enters and removing what leaves:
    (a) a loop with an inner while loop that advances a left index ``l`` and removes
    ``x[l]`` from a running value (``s -= a[l]``, ``cnt[a[l]] -= 1``), or (b) one loop
    that adds ``x[i]`` to a running value and subtracts ``x[i - k]`` from it."""
    for loop, body in loop_bodies(root):
        for inner in walk(body):
            if inner.type != "while_statement":
                continue
            advanced = {v for v, d in steps(inner).items() if 1 in d}
            for target, op, value in assignments(inner):
                if op == "-=" and value is not None:
                    # the left index inside a subscript: s -= a[l] (value) or cnt[a[l]] -= 1 (target)
                    indices = {text(i) for side in (value, target) for n in walk(side) if n.type in SUBSCRIPTS
                               for i in subscript_parts(n)[1]}
                    if indices & advanced:
                        return True
        added, removed = set(), set()
        for target, op, value in assignments(body):
            value = _strip(value) if value is not None else None
            if target is None or value is None or op not in ("+=", "-=") or value.type not in SUBSCRIPTS:
                continue
            container, index = subscript_parts(value)
            key = (text(target), text(container))
            if op == "+=":
                added.add(key)
            elif any(binary(_strip(i)) and binary(_strip(i))[1] == "-" for i in index):
                removed.add(key)
        if added & removed:
            return True
    return False


def kadane(root) -> bool:
    """Kadane's algorithm: ``cur = max(cur + x, x)`` (or ``max(x, cur + x)``, ``max(0, cur + x)``,
    ``max(cur, 0) + x``, and the same with min) - the best sum ending here, extended or restarted."""
    for target, op, value in assignments(root):
        if target is None or value is None or op != "=":
            continue
        v, value = text(target), _strip(value)
        if value.type in CALLS and callee(value) in ("max", "min"):
            args = arguments(value)
            if len(args) == 2:
                sums = [a for a in args if binary(_strip(a)) and binary(_strip(a))[1] == "+"
                        and v in (text(binary(_strip(a))[0]), text(binary(_strip(a))[2]))]
                if sums and any(v not in text(a) for a in args):
                    return True
        parts = binary(value)
        if parts and parts[1] == "+":
            for side in (parts[0], parts[2]):
                side = _strip(side)
                if side.type in CALLS and callee(side) in ("max", "min") and \
                        {text(a) for a in arguments(side)} == {v, "0"}:
                    return True
    return False


def _undo_pairs(fn_body) -> list[tuple[int, int]]:
    """(do, undo) byte offsets inside a function: a.append(x) ... a.pop(), s.add(x) ...
    s.remove(x), v[i] = True ... v[i] = False, c[x] += 1 ... c[x] -= 1."""
    pairs = []
    done: dict[tuple[str, str], list[int]] = {}
    for call in calls(fn_body):
        name, obj = callee(call), receiver(call)
        if not obj:
            continue
        for do, undos in UNDO_METHODS.items():
            if name in undos:
                pairs += [(start, call.start_byte) for start in done.get((obj, do), [])]
        done.setdefault((obj, name), []).append(call.start_byte)
    marks: dict[tuple[str, str], list[int]] = {}
    for target, op, value in assignments(fn_body):
        if target is None or value is None:
            continue
        t, v = text(target), text(value)
        node_start = target.start_byte
        if (op == "=" and v in TRUE_WORDS) or op == "+=":
            marks.setdefault((t, "do" if op == "=" else v), []).append(node_start)
        elif op == "=" and v in FALSE_WORDS:
            pairs += [(s, node_start) for s in marks.get((t, "do"), [])]
        elif op == "-=":
            pairs += [(s, node_start) for s in marks.get((t, v), [])]
    return pairs


def back_tracking(root, recursive: dict) -> bool:
    """A recursive function that changes shared state, recurses, and undoes the change
    (``path.append(x); go(...); path.pop()``, ``used[i] = True; go(...); used[i] = False``)."""
    for fn in _recursive_defs(recursive):
        body = fn.child_by_field_name("body")
        sites = _recursive_calls(body, recursive)
        for do, undo in _undo_pairs(body):
            if any(do < s < undo for s in sites):
                return True
    return False


def divide_and_conquer(root, recursive: dict) -> bool:
    """A recursive function that halves its range (``// 2``, ``/ 2``, ``>> 1``) and calls
    itself on at least two parts (merge sort, a segment tree build)."""
    for fn in _recursive_defs(recursive):
        body = fn.child_by_field_name("body")
        if len(_recursive_calls(body, recursive)) >= 2 and any(is_halving(n) for n in walk(body)):
            return True
    return False


def depth_first_search(root, recursive: dict) -> bool:
    """(a) A recursive function that loops over the neighbours of its argument
    (``for v in g[u]``, ``for (int v : adj[u])``, ``adj[u][i]``) or marks its state as
    visited before recursing (``seen[u] = True`` / ``seen.add(u)`` then a recursive call);
    (b) an explicit stack: a loop over a container that pops its last element
    (``s.pop()``, ``s.top()``) and pushes more."""
    for fn in _recursive_defs(recursive):
        body = fn.child_by_field_name("body")
        if _loops_over_neighbours(body, parameters(fn)):
            return True
        sites = _recursive_calls(body, recursive)
        marks = [call.start_byte for call in calls(body) if callee(call) in ("add", "insert")]
        marks += [t.start_byte for t, op, v in assignments(body)
                  if t is not None and t.type in SUBSCRIPTS and op == "=" and text(v) in TRUE_WORDS]
        if any(m < s for m in marks for s in sites) and _reads_in_condition(body):
            return True
    return _container_loop(root, lifo=True)


def _loops_over_neighbours(body, params: set[str]) -> bool:
    """A loop in ``body`` over ``g[p]`` (Python for / C++ range-for), or one reading
    ``g[p][i]`` / ``g[p].size()``, with p a parameter of the function."""
    for loop in walk(body):
        if loop.type not in LOOPS:
            continue
        iterable = loop_iterable(loop)
        for n in walk(iterable if iterable is not None else loop):
            if n.type not in SUBSCRIPTS:
                continue
            container, index = subscript_parts(n)
            if container is None or container.type != "identifier" or not index or text(index[0]) not in params:
                continue
            used_as_list = n.parent is not None and (n.parent.type in SUBSCRIPTS or n.parent.type == "field_expression")
            if iterable is not None or used_as_list:
                return True
    return False


def width_first_search(root) -> bool:
    """A loop over a queue that takes from the front (``q.popleft()``, ``q.pop(0)``,
    ``q.get()``, ``q.front()`` then ``q.pop()``) and appends to it (``append``, ``push``,
    ``put``): breadth-first search."""
    return _container_loop(root, lifo=False)


def graph(root) -> bool:
    """An adjacency list that is built and used: ``g[u].append(v)`` / ``adj[u].push_back(v)``
    (the index and the value are variables) and a loop over ``g[x]``."""
    built = set()
    for call in calls(root):
        if callee(call) in ("append", "push_back", "emplace_back", "add", "insert"):
            f = call.child_by_field_name("function")
            obj = f.child_by_field_name("object") or f.child_by_field_name("argument")
            args = arguments(call)
            if obj is not None and obj.type in SUBSCRIPTS and args:
                container, index = subscript_parts(obj)
                if container is not None and container.type == "identifier" and len(index) == 1 \
                        and index[0].type == "identifier" and args[0].type in ("identifier", "tuple",
                                                                                 "initializer_list"):
                    built.add(text(container))
    for loop in walk(root):
        it = loop_iterable(loop) if loop.type in LOOPS else None
        if it is not None and it.type in SUBSCRIPTS and text(subscript_parts(it)[0]) in built:
            return True
    return False


def tree(root) -> bool:
    """A tree in code: nodes with ``left`` and ``right`` (or ``children``) fields, a
    parent array (``parent[v] = u``, ``par``, ``fa``), a Fenwick tree (``i & -i``), or a
    segment tree (children at ``2 * v`` and ``2 * v + 1``)."""
    fields = set()
    for n in walk(root):
        if n.type == "attribute":
            fields.add(text(n.child_by_field_name("attribute")))
        elif n.type == "field_expression":
            fields.add(text(n.child_by_field_name("field")))
        parts = binary(n)
        if parts and parts[1] == "&" and _strip(parts[2]).type in ("unary_operator", "unary_expression") \
                and text(_strip(parts[2])).replace(" ", "") == "-" + text(parts[0]):
            return True
        if n.type in SUBSCRIPTS:
            container, index = subscript_parts(n)
            if text(container) in ("parent", "par", "fa", "children", "subtree") and n.parent is not None \
                    and n.parent.type in ("assignment", "assignment_expression") \
                    and n.parent.child_by_field_name("left") == n:
                return True
    if {"left", "right"} <= fields or "children" in fields:
        return True
    doubled = {}
    for n in walk(root):
        if n.type in SUBSCRIPTS:
            container, index = subscript_parts(n)
            if len(index) == 1:
                s = text(index[0]).replace(" ", "")
                if s.startswith("2*") and "+" not in s:
                    doubled.setdefault(text(container), set()).add(("l", s[2:]))
                elif s.startswith("2*") and s.endswith("+1"):
                    doubled.setdefault(text(container), set()).add(("r", s[2:-2]))
                elif s.endswith("<<1") and "|" not in s:
                    doubled.setdefault(text(container), set()).add(("l", s[:-3]))
                elif s.endswith("<<1|1"):
                    doubled.setdefault(text(container), set()).add(("r", s[:-5]))
    return any({("l", v), ("r", v)} <= kinds for kinds in doubled.values() for _, v in kinds)


def topological_sort(root) -> bool:
    """Kahn's algorithm (an in-degree decremented, then tested for zero: ``deg[v] -= 1``
    with ``if deg[v] == 0``) or graphlib's TopologicalSorter."""
    if any(callee(c) == "TopologicalSorter" for c in calls(root)):
        return True
    for loop in walk(root):
        if loop.type not in LOOPS:
            continue
        dec = {text(n.child_by_field_name("argument")) for n in walk(loop) if n.type == "update_expression"
               and text(n.child_by_field_name("operator")) == "--"}
        dec |= {text(t) for t, op, v in assignments(loop) if op == "-=" and text(v) == "1"}
        dec = {d for d in dec if "[" in d}
        for a, op, b in comparisons(loop):
            if op == "==" and text(b) == "0" and text(a) in dec:
                return True
        for n in walk(loop):  # --deg[v] == 0 / !--deg[v]
            if n.type == "update_expression" and n.parent is not None and n.parent.type in (
                    "binary_expression", "unary_expression") and "[" in text(n):
                parent = n.parent
                if (parent.type == "unary_expression" and text(parent).startswith("!")) or text(
                        parent.child_by_field_name("right")) == "0":
                    return True
    return False


def minimax(root, recursive: dict) -> bool:
    """A recursive game search: a recursive function whose result takes max over recursive
    calls for one player and min for the other (both used, one around a recursive call),
    or negamax (``max(..., -f(...))``)."""
    for fn in _recursive_defs(recursive):
        body = fn.child_by_field_name("body")
        names = {callee(c) for c in calls(body)}
        for c in calls(body):
            if callee(c) in ("max", "min"):
                inner = [n for a in arguments(c) for n in walk(a) if n.type in CALLS and callee(n) in recursive]
                if inner and {"max", "min"} <= names:
                    return True
                if inner and any(n.parent is not None and n.parent.type in ("unary_operator", "unary_expression")
                                 and text(n.parent).startswith("-") for n in inner):
                    return True
    return False


def loop_variables(loop) -> set[str]:
    """Names a loop steps through: Python ``for v in``, C++ ``for (int i = ...; ...)`` and
    range-for declarators."""
    if loop.type == "for_statement" and loop.child_by_field_name("left") is not None:
        return {text(n) for n in walk(loop.child_by_field_name("left")) if n.type == "identifier"}
    if loop.type == "for_statement":
        init = loop.child_by_field_name("initializer")
        return {text(t) for t, _, _ in assignments(init) if t is not None} if init is not None else set()
    if loop.type == "for_range_loop":
        decl = loop.child_by_field_name("declarator")
        return {text(n) for n in walk(decl) if n.type == "identifier"} if decl is not None else set()
    return set()


def greedy(root) -> bool:
    """Choosing in order: after a sequence is sorted (``a.sort()``, ``a = sorted(...)``,
    ``sort(a.begin(), ...)``), a later loop walks it in that order (``for x in a``,
    ``for x in sorted(a)``, or ``a[i]`` with ``i`` the loop variable) and, under an ``if``,
    takes what it chose into the answer (``+=``, ``-=``, ``++``, ``append``); or a loop
    repeatedly takes the best element of a heap (``heappop``, a priority queue's ``top()``)."""
    sorted_at, heaps = {}, priority_queues(root)
    for c in calls(root):
        name = callee(c)
        if name == "sort" and receiver(c):
            sorted_at.setdefault(receiver(c), c.end_byte)
        elif name in ("sort", "stable_sort") and arguments(c):
            first = arguments(c)[0]
            sorted_at.setdefault(receiver(first) if first.type in CALLS else text(first), c.end_byte)
    for target, op, value in assignments(root):
        if value is not None and _strip(value).type in CALLS and callee(_strip(value)) == "sorted" \
                and target is not None:
            sorted_at.setdefault(text(target), value.end_byte)
    for loop, body in loop_bodies(root):
        if any(callee(c) in ("heappop", "heappushpop", "heapreplace") or
               (callee(c) == "top" and receiver(c) in heaps) for c in calls(body)):
            return True
        earlier = {name for name, at in sorted_at.items() if at <= loop.start_byte}
        it = loop_iterable(loop)
        ordered = it is not None and ((_strip(it).type in CALLS and callee(_strip(it)) == "sorted")
                                      or text(it) in earlier)
        variables = loop_variables(loop)
        ordered = ordered or any(
            n.type in SUBSCRIPTS and text(subscript_parts(n)[0]) in earlier
            and variables & {text(m) for i in subscript_parts(n)[1] for m in walk(i) if m.type == "identifier"}
            for n in walk(body))
        if ordered and any(n.type == "if_statement" and _takes(n) for n in walk(body)):
            return True
    return False


def _takes(branch) -> bool:
    """The branch adds to an answer: an augmented assignment, ++/--, or an append/push."""
    for n in walk(branch):
        if n.type == "update_expression" or (n.type in CALLS and callee(n) in ("append", "push_back", "add")):
            return True
    return any(op in ("+=", "-=") for _, op, _ in assignments(branch))


def _self_reads(target, value) -> list:
    """Reads in ``value`` of the table that ``target`` writes, at another index that shares
    a variable with the written one (``A[i - 1]`` for ``A[i]``, ``A[i]`` for ``A[i + 1]``)."""
    base = target
    while subscript_parts(base)[0] is not None and subscript_parts(base)[0].type in SUBSCRIPTS:
        base = subscript_parts(base)[0]
    name = text(subscript_parts(base)[0])
    written = _index_texts(target)
    variables = {text(n) for n in walk(target) if n.type == "identifier"} - {name}
    reads = []
    for n in walk(value):
        if n.type in SUBSCRIPTS and n.parent is not None and n.parent.type not in SUBSCRIPTS or \
                (n.type in SUBSCRIPTS and n.parent is None):
            inner = n
            while subscript_parts(inner)[0] is not None and subscript_parts(inner)[0].type in SUBSCRIPTS:
                inner = subscript_parts(inner)[0]
            if text(subscript_parts(inner)[0]) != name:
                continue
            idx = _index_texts(n)
            if any(op in i for i in idx for op in ("*", "<<", ">>", "/")):
                continue  # a child in a heap or segment tree layout, not an earlier entry
            if idx != written and variables & {text(m) for m in walk(n) if m.type == "identifier"}:
                reads.append(n)
    return reads


def _index_texts(sub) -> list[str]:
    """Index expressions of a (possibly multi-dimensional) subscript, outermost last, no spaces."""
    out = []
    while sub is not None and sub.type in SUBSCRIPTS:
        container, index = subscript_parts(sub)
        out = ["".join(text(i).split()) for i in index] + out
        sub = container
    return out


def dynamic_programming(root) -> bool:
    """A table filled from its own earlier entries: ``A[i] = ... A[i - 1] ...`` (any
    index containing the target's index variable and a minus or plus), including 2-D
    tables; a plain running prefix sum (``A[i] = A[i - 1] + x``) is 'misc', not DP."""
    for target, op, value in assignments(root):
        if target is None or value is None or target.type not in SUBSCRIPTS or op not in ("=", "+=", "-="):
            continue
        reads = _self_reads(target, value)
        if reads and not _is_prefix_sum(target, op, value, reads):
            return True
    return False


def _is_prefix_sum(target, op, value, reads) -> bool:
    """``A[i] += A[i - 1]`` or ``A[i] = A[i - 1] + x`` on a one-dimensional table."""
    if subscript_parts(target)[0].type in SUBSCRIPTS or len(reads) != 1:
        return False
    if op == "+=":
        return _strip(value) == reads[0]
    parts = binary(_strip(value))
    return bool(parts) and parts[1] == "+" and reads[0] in (parts[0], parts[2]) and \
        not any(n.type in CALLS for n in walk(value))


def misc(root, language: str) -> bool:
    """A named technique outside the other 33: prefix sums (``p[i] = p[i - 1] + a[i]``,
    ``accumulate``, ``partial_sum``), bit manipulation (``&``, ``|``, ``^``, ``~``, shifts;
    not C++ stream ``<<``/``>>``, not a midpoint ``>> 1``), number theory (``gcd``, ``lcm``,
    modular ``pow(a, b, m)``) and combinatorics (``permutations``, ``combinations``,
    ``product``, ``comb``, ``factorial``, ``next_permutation``)."""
    library = {"accumulate", "partial_sum", "gcd", "__gcd", "lcm", "permutations", "combinations",
               "combinations_with_replacement", "comb", "perm", "factorial", "next_permutation",
               "prev_permutation", "popcount", "__builtin_popcount", "__builtin_popcountll", "bit_count"}
    for c in calls(root):
        name = callee(c)
        if name in library or (name == "pow" and len(arguments(c)) == 3):
            return True
        if name == "product" and language == "python" and text(c.child_by_field_name("function")) in (
                "product", "itertools.product"):
            return True
    for n in walk(root):
        if n.type in ("unary_operator", "unary_expression") and text(n).startswith("~"):
            return True
        parts = binary(n)
        if not parts:
            continue
        op = parts[1]
        if op in ("&", "|", "^"):
            return True
        if op in ("<<", ">>"):
            leftmost = parts[0]
            while binary(leftmost):
                leftmost = binary(leftmost)[0]
            if text(leftmost) in STREAMS or (op == ">>" and text(parts[2]) == "1"):
                continue
            return True
    for target, op, value in assignments(root):
        if target is not None and value is not None and target.type in SUBSCRIPTS and op in ("=", "+="):
            reads = _self_reads(target, value)
            if reads and _is_prefix_sum(target, op, value, reads):
                return True
    return False


def cpp_hashmap(root) -> bool:
    """C++ keyed lookup and update on a map (the Python rule, ``.get``/``Counter``, in C++
    terms): ``m[k]++``, ``m[k] += x``, ``m[k] = x``, ``m.count(k)``, ``m.find(k)`` on a
    ``map``/``unordered_map``; ``unordered_map`` itself is a hash map."""
    maps = declared(root, ("map", "unordered_map", "multimap", "unordered_multimap"))
    if not maps:
        return False
    for n in walk(root):
        if n.type in CALLS and callee(n) in ("count", "find") and receiver(n) in maps:
            return True
        if n.type in SUBSCRIPTS and text(subscript_parts(n)[0]) in maps and n.parent is not None and (
                n.parent.type == "update_expression" or
                (n.parent.type == "assignment_expression" and n.parent.child_by_field_name("left") == n)):
            return True
    return False


def linked_list(root) -> bool:
    """Nodes chained by a ``next`` (or ``prev``) field that is assigned: ``node.next = ...``,
    ``p->next = ...``."""
    for target, op, value in assignments(root):
        if target is not None and target.type in ("attribute", "field_expression"):
            field = target.child_by_field_name("attribute") or target.child_by_field_name("field")
            if text(field) in ("next", "prev", "nxt"):
                return True
    return False


def binary_search(root, recursive: dict) -> bool:
    """A search interval halved at its midpoint: a loop whose condition compares ``lo`` and
    ``hi`` (or tests ``hi - lo > 1``) and whose body computes ``(lo + hi) // 2`` /
    ``lo + (hi - lo) // 2`` / ``>> 1``; or a recursive function computing that midpoint of
    two of its parameters and calling itself once on one side."""
    for loop, cond in conditional_loops(root):
        pairs = [(text(a), text(b)) for a, op, b in comparisons(cond) if a is not None and b is not None]
        pairs += [(text(d[0]), text(d[2])) for a, op, b in comparisons(cond) if a is not None
                  for d in [binary(_strip(a))] if d and d[1] == "-"]
        if any(is_midpoint(v, a, b) for a, b in pairs for _, _, v in assignments(loop) if v is not None):
            return True
    for fn in _recursive_defs(recursive):
        body = fn.child_by_field_name("body")
        params = sorted(parameters(fn))
        halves = [v for _, _, v in assignments(body) if v is not None and
                  any(is_midpoint(v, a, b) for a in params for b in params if a < b)]
        if halves and len(_recursive_calls(body, recursive)) == 1:
            return True
    return False


# ----------------------------------------------------------------- shared pieces

def _recursive_defs(recursive: dict) -> list:
    return [fn for defs in recursive.values() for fn in defs]


def _recursive_calls(body, recursive: dict) -> list[int]:
    if body is None:
        return []
    return [c.start_byte for c in calls(body) if callee(c) in recursive]


def _reads_in_condition(body) -> bool:
    """Some if/while condition in ``body`` tests membership or a subscript (a visited check)."""
    for n in walk(body):
        if n.type in ("if_statement", "while_statement", "conditional_expression"):
            cond = n.child_by_field_name("condition")
            if cond is not None and any(m.type in SUBSCRIPTS or text(m) in ("in", "not in", "count", "find")
                                        for m in walk(cond)):
                return True
    return False


def priority_queues(root) -> set[str]:
    """Names declared as C++ ``priority_queue`` (their top() is the best, not the last)."""
    return declared(root, ("priority_queue",))


def declared(root, types: tuple[str, ...]) -> set[str]:
    """Names of C++ variables whose declared type is one of ``types`` (``map<int, int> m``)."""
    names = set()
    for n in walk(root):
        if n.type in ("declaration", "field_declaration") and \
                text(n.child_by_field_name("type")).split("<")[0].split("::")[-1].strip() in types:
            for d in n.children_by_field_name("declarator"):
                ids = [m for m in walk(d) if m.type in ("identifier", "field_identifier")]
                if ids:
                    names.add(text(ids[0]))
    return names


def _container_loop(root, lifo: bool) -> bool:
    """A loop over container q that takes from q (LIFO: pop()/top(); FIFO: popleft(),
    pop(0), get(), front()) and puts into q (append/push/put/emplace)."""
    takes_fifo = {"popleft", "get", "front"}
    heaps = priority_queues(root)
    for loop, cond in conditional_loops(root, ("while_statement", "do_statement")):
        names = {text(n) for n in walk(cond) if n.type == "identifier"}
        body = loop.child_by_field_name("body")
        if body is None:
            continue
        taken, put = set(), set()
        for c in calls(body):
            obj, name = receiver(c), callee(c)
            if obj not in names:
                continue
            args = arguments(c)
            if name in ("append", "push", "put", "emplace", "push_back", "appendleft"):
                put.add(obj)
            elif lifo and (name == "top" or (name == "pop" and not args)):
                taken.add(obj)
            elif not lifo and (name in takes_fifo or (name == "pop" and [text(a) for a in args] == ["0"])):
                taken.add(obj)
        if lifo:  # a C++ queue pops too (front() means FIFO); a priority queue's top is its best
            taken -= {receiver(c) for c in calls(body) if callee(c) == "front"} | heaps
        if taken & put:
            return True
    return False
