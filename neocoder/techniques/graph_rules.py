"""Semantic rules about recursion, search and graphs: recursion, back tracking, divide and
conquer, depth and width first search, graph traversal, graph, tree, topological sort,
minimax.

Most of them read the call graph (``program.recursive_definitions``) and relate a
recursive call to what happens around it (a change undone after it, a visited mark
before it, a range halved for it), or a loop to the container it takes from and puts
into; recursion itself is the call graph's cycle.  Every rule is a function
``(program: ParsedProgram) -> bool`` marked ``@rule(name, languages)`` (``shapes.py``)
and listed in ``semantic.RULES``; docs/techniques.md states each in words.
"""

from __future__ import annotations

from neocoder.techniques.parsed import (
    CALLS,
    LOOPS,
    SUBSCRIPTS,
    ParsedProgram,
    arguments,
    binary,
    callee,
    loop_iterable,
    receiver,
    strip,
    subscript_parts,
    text,
)
from neocoder.techniques.shapes import is_halving, priority_queues, rule

TRUE_WORDS = {"True", "true", "1"}
FALSE_WORDS = {"False", "false", "0"}
# (do, undo) pairs of method calls on the same object
UNDO_METHODS = {"append": {"pop"}, "push_back": {"pop_back"}, "emplace_back": {"pop_back"},
                "add": {"remove", "discard"}, "insert": {"erase", "remove"}, "push": {"pop"}}


@rule("recursion")
def recursion(program: ParsedProgram) -> bool:
    """A function defined in the program lies on a cycle of the call graph."""
    return bool(program.recursive)


def _undo_pairs(program: ParsedProgram, fn_body) -> list[tuple[int, int]]:
    """(do, undo) byte offsets inside a function: a.append(x) ... a.pop(), s.add(x) ...
    s.remove(x), v[i] = True ... v[i] = False, c[x] += 1 ... c[x] -= 1."""
    pairs = []
    done: dict[tuple[str, str], list[int]] = {}
    for call in program.calls(fn_body):
        name, obj = callee(call), receiver(call)
        if not obj:
            continue
        for do, undos in UNDO_METHODS.items():
            if name in undos:
                pairs += [(start, call.start_byte) for start in done.get((obj, do), [])]
        done.setdefault((obj, name), []).append(call.start_byte)
    marks: dict[tuple[str, str], list[int]] = {}
    for target, op, value in program.assignments(fn_body):
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


@rule("back tracking")
def back_tracking(program: ParsedProgram) -> bool:
    """A recursive function that changes shared state, recurses, and undoes the change
    (``path.append(x); go(...); path.pop()``, ``used[i] = True; go(...); used[i] = False``)."""
    for fn in program.recursive_definitions:
        body = fn.child_by_field_name("body")
        sites = program.recursive_call_sites(body)
        for do, undo in _undo_pairs(program, body):
            if any(do < s < undo for s in sites):
                return True
    return False


@rule("dived & conquer")
def divide_and_conquer(program: ParsedProgram) -> bool:
    """A recursive function that halves its range (``// 2``, ``/ 2``, ``>> 1``) and calls
    itself on at least two parts (merge sort, a segment tree build)."""
    for fn in program.recursive_definitions:
        body = fn.child_by_field_name("body")
        if len(program.recursive_call_sites(body)) >= 2 and any(is_halving(n) for n in program.walk(body)):
            return True
    return False


@rule("depth first search")
def depth_first_search(program: ParsedProgram) -> bool:
    """(a) A recursive function that loops over the neighbours of its argument
    (``for v in g[u]``, ``for (int v : adj[u])``, ``adj[u][i]``) or marks its state as
    visited before recursing (``seen[u] = True`` / ``seen.add(u)`` then a recursive call);
    (b) an explicit stack: a loop over a container that pops its last element
    (``s.pop()``, ``s.top()``) and pushes more."""
    for fn in program.recursive_definitions:
        body = fn.child_by_field_name("body")
        if _loops_over_neighbours(program, body, program.parameters(fn)):
            return True
        sites = program.recursive_call_sites(body)
        marks = [call.start_byte for call in program.calls(body) if callee(call) in ("add", "insert")]
        marks += [t.start_byte for t, op, v in program.assignments(body)
                  if t is not None and t.type in SUBSCRIPTS and op == "=" and text(v) in TRUE_WORDS]
        if any(m < s for m in marks for s in sites) and _reads_in_condition(program, body):
            return True
    return _container_loop(program, lifo=True)


def _loops_over_neighbours(program: ParsedProgram, body, params: set[str]) -> bool:
    """A loop in ``body`` over ``g[p]`` (Python for / C++ range-for), or one reading
    ``g[p][i]`` / ``g[p].size()``, with p a parameter of the function."""
    for loop in program.walk(body):
        if loop.type not in LOOPS:
            continue
        iterable = loop_iterable(loop)
        for n in program.walk(iterable if iterable is not None else loop):
            if n.type not in SUBSCRIPTS:
                continue
            container, index = subscript_parts(n)
            if container is None or container.type != "identifier" or not index or text(index[0]) not in params:
                continue
            used_as_list = n.parent is not None and (n.parent.type in SUBSCRIPTS or n.parent.type == "field_expression")
            if iterable is not None or used_as_list:
                return True
    return False


def _reads_in_condition(program: ParsedProgram, body) -> bool:
    """Some if/while condition in ``body`` tests membership or a subscript (a visited check)."""
    for n in program.walk(body):
        if n.type in ("if_statement", "while_statement", "conditional_expression"):
            cond = n.child_by_field_name("condition")
            if cond is not None and any(m.type in SUBSCRIPTS or text(m) in ("in", "not in", "count", "find")
                                        for m in program.walk(cond)):
                return True
    return False


def _container_loop(program: ParsedProgram, lifo: bool) -> bool:
    """A loop over container q that takes from q (LIFO: pop()/top(); FIFO: popleft(),
    pop(0), get(), front()) and puts into q (append/push/put/emplace)."""
    takes_fifo = {"popleft", "get", "front"}
    heaps = priority_queues(program)
    for loop, cond in program.conditional_loops(("while_statement", "do_statement")):
        names = program.identifiers(cond)
        body = loop.child_by_field_name("body")
        if body is None:
            continue
        taken, put = set(), set()
        for c in program.calls(body):
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
            taken -= {receiver(c) for c in program.calls(body) if callee(c) == "front"} | heaps
        if taken & put:
            return True
    return False


@rule("width first search")
def width_first_search(program: ParsedProgram) -> bool:
    """A loop over a queue that takes from the front (``q.popleft()``, ``q.pop(0)``,
    ``q.get()``, ``q.front()`` then ``q.pop()``) and appends to it (``append``, ``push``,
    ``put``): breadth-first search."""
    return _container_loop(program, lifo=False)


@rule("graph traversal")
def graph_traversal(program: ParsedProgram) -> bool:
    """Depth first search or width first search (their results, computed once)."""
    return program.fact(depth_first_search) or program.fact(width_first_search)


@rule("graph")
def graph(program: ParsedProgram) -> bool:
    """An adjacency list that is built and used: ``g[u].append(v)`` / ``adj[u].push_back(v)``
    (the index and the value are variables) and a loop over ``g[x]``."""
    built = set()
    for call in program.calls(program.root):
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
    for loop in program.nodes:
        it = loop_iterable(loop) if loop.type in LOOPS else None
        if it is not None and it.type in SUBSCRIPTS and text(subscript_parts(it)[0]) in built:
            return True
    return False


@rule("tree")
def tree_shapes(program: ParsedProgram) -> bool:
    """A tree in code: nodes with ``left`` and ``right`` (or ``children``) fields, a
    parent array (``parent[v] = u``, ``par``, ``fa``), a Fenwick tree (``i & -i``), or a
    segment tree (children at ``2 * v`` and ``2 * v + 1``)."""
    fields = set()
    for n in program.nodes:
        if n.type == "attribute":
            fields.add(text(n.child_by_field_name("attribute")))
        elif n.type == "field_expression":
            fields.add(text(n.child_by_field_name("field")))
        parts = binary(n)
        if parts and parts[1] == "&" and strip(parts[2]).type in ("unary_operator", "unary_expression") \
                and text(strip(parts[2])).replace(" ", "") == "-" + text(parts[0]):
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
    for n in program.nodes:
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


@rule("topological sort")
def topological_sort(program: ParsedProgram) -> bool:
    """Kahn's algorithm (an in-degree decremented, then tested for zero: ``deg[v] -= 1``
    with ``if deg[v] == 0``) or graphlib's TopologicalSorter."""
    if any(callee(c) == "TopologicalSorter" for c in program.calls(program.root)):
        return True
    for loop in program.nodes:
        if loop.type not in LOOPS:
            continue
        dec = {text(n.child_by_field_name("argument")) for n in program.walk(loop) if n.type == "update_expression"
               and text(n.child_by_field_name("operator")) == "--"}
        dec |= {text(t) for t, op, v in program.assignments(loop) if op == "-=" and text(v) == "1"}
        dec = {d for d in dec if "[" in d}
        for a, op, b in program.comparisons(loop):
            if op == "==" and text(b) == "0" and text(a) in dec:
                return True
        for n in program.walk(loop):  # --deg[v] == 0 / !--deg[v]
            if n.type == "update_expression" and n.parent is not None and n.parent.type in (
                    "binary_expression", "unary_expression") and "[" in text(n):
                parent = n.parent
                if (parent.type == "unary_expression" and text(parent).startswith("!")) or text(
                        parent.child_by_field_name("right")) == "0":
                    return True
    return False


@rule("minimax")
def minimax(program: ParsedProgram) -> bool:
    """A recursive game search: a recursive function whose result takes max over recursive
    calls for one player and min for the other (both used, one around a recursive call),
    or negamax (``max(..., -f(...))``)."""
    for fn in program.recursive_definitions:
        body = fn.child_by_field_name("body")
        names = {callee(c) for c in program.calls(body)}
        for c in program.calls(body):
            if callee(c) in ("max", "min"):
                inner = [n for a in arguments(c) for n in program.walk(a)
                         if n.type in CALLS and callee(n) in program.recursive]
                if inner and {"max", "min"} <= names:
                    return True
                if inner and any(n.parent is not None and n.parent.type in ("unary_operator", "unary_expression")
                                 and text(n.parent).startswith("-") for n in inner):
                    return True
    return False
