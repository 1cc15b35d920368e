"""Semantic techniques: documented rules over a parsed program (Python and C/C++).

The syntactic techniques (loops, branches, containers, library calls) are tree-sitter
queries in ``queries/<language>.scm``.  The techniques below are about how code is
organised, which a single query cannot express (they relate a loop's condition to the
variables its body moves, or a recursive call to what happens before and after it).

Each rule is one function ``(program: ParsedProgram) -> bool`` marked with its
taxonomy name by ``@rule(name, languages=...)`` (``shapes.py``: the mark only attaches
a ``Rule``); ``RULES`` lists the marked functions explicitly and ``techniques(program)``
runs those for the program's language.  A rule reads only its argument (the parse
tree, its index, the recursive functions: ``parsed.py``), written once for both
languages; docs/techniques.md states every rule in words.

These are heuristics: they name a recognisable shape of code, not every program that
some reader would call "greedy" or "two pointers".  A rule fires on the shape and on
nothing else, so a constraint means the same thing in every run.
"""

from __future__ import annotations

from .parsed import (CALLS, COMPARE_OPS, LOOPS, SUBSCRIPTS, ParsedProgram, arguments, binary, callee,
                     loop_iterable, receiver, strip, subscript_parts, text)
from .shapes import Rule, computes_midpoint, declared, is_halving, is_midpoint, priority_queues, rule, table_writes

STREAMS = {"cin", "cout", "cerr", "clog"}
TRUE_WORDS = {"True", "true", "1"}
FALSE_WORDS = {"False", "false", "0"}
# (do, undo) pairs of method calls on the same object
UNDO_METHODS = {"append": {"pop"}, "push_back": {"pop_back"}, "emplace_back": {"pop_back"},
                "add": {"remove", "discard"}, "insert": {"erase", "remove"}, "push": {"pop"}}


# ----------------------------------------------------------------- the rules

def _is_prefix_sum(program: ParsedProgram, target, op, value, reads) -> bool:
    """``A[i] += A[i - 1]`` or ``A[i] = A[i - 1] + x`` on a one-dimensional table."""
    if subscript_parts(target)[0].type in SUBSCRIPTS or len(reads) != 1:
        return False
    if op == "+=":
        return strip(value) == reads[0]
    parts = binary(strip(value))
    return bool(parts) and parts[1] == "+" and reads[0] in (parts[0], parts[2]) and \
        not any(n.type in CALLS for n in program.walk(value))


# ----------------------------------------------------------------- the rules

@rule("recursion")
def recursion(program: ParsedProgram) -> bool:
    """A function defined in the program lies on a cycle of the call graph."""
    return bool(program.recursive)


@rule("two pointers")
def two_pointers(program: ParsedProgram) -> bool:
    """A loop whose condition compares two indices that its body moves towards each other
    (``while l < r: ... l += 1 ... r -= 1``), or moves both forward as a merge does
    (``while i < n and j < m``).  A loop that computes the midpoint of the two is a
    binary search, not two pointers."""
    for loop, cond in program.conditional_loops():
        moved = program.steps(loop)
        compared = [(text(a), text(b)) for a, op, b in program.comparisons(cond)
                    if op in COMPARE_OPS and a is not None and b is not None]
        if computes_midpoint(program, loop, compared):
            continue
        for a, b in compared:
            if a != b and a in moved and b in moved and (moved[a] | moved[b]) == {1, -1} \
                    and not (moved[a] == {1, -1} or moved[b] == {1, -1}):
                return True
        forward = {a for a, _ in compared if moved.get(a) == {1}}
        if len(forward) >= 2 and len({b for _, b in compared}) >= 2:
            return True
    return False


@rule("sliding window")
def sliding_window(program: ParsedProgram) -> bool:
    """A window over a sequence kept by adding what enters and removing what leaves:
    (a) a loop with an inner while loop that advances a left index ``l`` and removes
    ``x[l]`` from a running value (``s -= a[l]``, ``cnt[a[l]] -= 1``), or (b) one loop
    that adds ``x[i]`` to a running value and subtracts ``x[i - k]`` from it."""
    for loop, body in program.loops():
        for inner in program.walk(body):
            if inner.type != "while_statement":
                continue
            advanced = {v for v, d in program.steps(inner).items() if 1 in d}
            for target, op, value in program.assignments(inner):
                if op == "-=" and value is not None:
                    # the left index inside a subscript: s -= a[l] (value) or cnt[a[l]] -= 1 (target)
                    indices = {text(i) for side in (value, target) for n in program.walk(side)
                               if n.type in SUBSCRIPTS for i in subscript_parts(n)[1]}
                    if indices & advanced:
                        return True
        added, removed = set(), set()
        for target, op, value in program.assignments(body):
            value = strip(value) if value is not None else None
            if target is None or value is None or op not in ("+=", "-=") or value.type not in SUBSCRIPTS:
                continue
            container, index = subscript_parts(value)
            key = (text(target), text(container))
            if op == "+=":
                added.add(key)
            elif any(binary(strip(i)) and binary(strip(i))[1] == "-" for i in index):
                removed.add(key)
        if added & removed:
            return True
    return False


@rule("Kadanes algorithm")
def kadane(program: ParsedProgram) -> bool:
    """Kadane's algorithm: ``cur = max(cur + x, x)`` (or ``max(x, cur + x)``, ``max(0, cur + x)``,
    ``max(cur, 0) + x``, and the same with min) - the best sum ending here, extended or restarted."""
    for target, op, value in program.assignments(program.root):
        if target is None or value is None or op != "=":
            continue
        v, value = text(target), strip(value)
        if value.type in CALLS and callee(value) in ("max", "min"):
            args = arguments(value)
            if len(args) == 2:
                sums = [a for a in args if binary(strip(a)) and binary(strip(a))[1] == "+"
                        and v in (text(binary(strip(a))[0]), text(binary(strip(a))[2]))]
                if sums and any(v not in text(a) for a in args):
                    return True
        parts = binary(value)
        if parts and parts[1] == "+":
            for side in (parts[0], parts[2]):
                side = strip(side)
                if side.type in CALLS and callee(side) in ("max", "min") and \
                        {text(a) for a in arguments(side)} == {v, "0"}:
                    return True
    return False


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


@rule("greedy algorithm")
def greedy(program: ParsedProgram) -> bool:
    """Choosing in order: after a sequence is sorted (``a.sort()``, ``a = sorted(...)``,
    ``sort(a.begin(), ...)``), a later loop walks it in that order (``for x in a``,
    ``for x in sorted(a)``, or ``a[i]`` with ``i`` the loop variable) and, under an ``if``,
    takes what it chose into the answer (``+=``, ``-=``, ``++``, ``append``); or a loop
    repeatedly takes the best element of a heap (``heappop``, a priority queue's ``top()``)."""
    sorted_at, heaps = {}, priority_queues(program)
    for c in program.calls(program.root):
        name = callee(c)
        if name == "sort" and receiver(c):
            sorted_at.setdefault(receiver(c), c.end_byte)
        elif name in ("sort", "stable_sort") and arguments(c):
            first = arguments(c)[0]
            sorted_at.setdefault(receiver(first) if first.type in CALLS else text(first), c.end_byte)
    for target, op, value in program.assignments(program.root):
        if value is not None and strip(value).type in CALLS and callee(strip(value)) == "sorted" \
                and target is not None:
            sorted_at.setdefault(text(target), value.end_byte)
    for loop, body in program.loops():
        if any(callee(c) in ("heappop", "heappushpop", "heapreplace") or
               (callee(c) == "top" and receiver(c) in heaps) for c in program.calls(body)):
            return True
        earlier = {name for name, at in sorted_at.items() if at <= loop.start_byte}
        it = loop_iterable(loop)
        ordered = it is not None and ((strip(it).type in CALLS and callee(strip(it)) == "sorted")
                                      or text(it) in earlier)
        variables = program.loop_variables(loop)
        ordered = ordered or any(
            n.type in SUBSCRIPTS and text(subscript_parts(n)[0]) in earlier
            and variables & {text(m) for i in subscript_parts(n)[1] for m in program.walk(i) if m.type == "identifier"}
            for n in program.walk(body))
        if ordered and any(n.type == "if_statement" and _takes(program, n) for n in program.walk(body)):
            return True
    return False


def _takes(program: ParsedProgram, branch) -> bool:
    """The branch adds to an answer: an augmented assignment, ++/--, or an append/push."""
    for n in program.walk(branch):
        if n.type == "update_expression" or (n.type in CALLS and callee(n) in ("append", "push_back", "add")):
            return True
    return any(op in ("+=", "-=") for _, op, _ in program.assignments(branch))


@rule("dynamic programming")
def dynamic_programming(program: ParsedProgram) -> bool:
    """A table filled from its own earlier entries: ``A[i] = ... A[i - 1] ...`` (any
    index containing the target's index variable and a minus or plus), including 2-D
    tables; a plain running prefix sum (``A[i] = A[i - 1] + x``) is 'misc', not DP."""
    return any(not _is_prefix_sum(program, *write) for write in table_writes(program, ("=", "+=", "-=")))


@rule("misc")
def misc(program: ParsedProgram) -> bool:
    """A named technique outside the other 33: prefix sums (``p[i] = p[i - 1] + a[i]``,
    ``accumulate``, ``partial_sum``), bit manipulation (``&``, ``|``, ``^``, ``~``, shifts;
    not C++ stream ``<<``/``>>``, not a midpoint ``>> 1``), number theory (``gcd``, ``lcm``,
    modular ``pow(a, b, m)``) and combinatorics (``permutations``, ``combinations``,
    ``product``, ``comb``, ``factorial``, ``next_permutation``)."""
    library = {"accumulate", "partial_sum", "gcd", "__gcd", "lcm", "permutations", "combinations",
               "combinations_with_replacement", "comb", "perm", "factorial", "next_permutation",
               "prev_permutation", "popcount", "__builtin_popcount", "__builtin_popcountll", "bit_count"}
    for c in program.calls(program.root):
        name = callee(c)
        if name in library or (name == "pow" and len(arguments(c)) == 3):
            return True
        if name == "product" and program.language == "python" and text(c.child_by_field_name("function")) in (
                "product", "itertools.product"):
            return True
    for n in program.nodes:
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
    return any(_is_prefix_sum(program, *write) for write in table_writes(program, ("=", "+=")))


@rule("hashmap", languages=("cpp",))
def cpp_hashmap(program: ParsedProgram) -> bool:
    """C++ keyed lookup and update on a map (the Python rule, ``.get``/``Counter``, in C++
    terms): ``m[k]++``, ``m[k] += x``, ``m[k] = x``, ``m.count(k)``, ``m.find(k)`` on a
    ``map``/``unordered_map``; ``unordered_map`` itself is a hash map."""
    maps = declared(program, ("map", "unordered_map", "multimap", "unordered_multimap"))
    if not maps:
        return False
    for n in program.nodes:
        if n.type in CALLS and callee(n) in ("count", "find") and receiver(n) in maps:
            return True
        if n.type in SUBSCRIPTS and text(subscript_parts(n)[0]) in maps and n.parent is not None and (
                n.parent.type == "update_expression" or
                (n.parent.type == "assignment_expression" and n.parent.child_by_field_name("left") == n)):
            return True
    return False


@rule("linked list")
def linked_list(program: ParsedProgram) -> bool:
    """Nodes chained by a ``next`` (or ``prev``) field that is assigned: ``node.next = ...``,
    ``p->next = ...``."""
    for target, op, value in program.assignments(program.root):
        if target is not None and target.type in ("attribute", "field_expression"):
            field = target.child_by_field_name("attribute") or target.child_by_field_name("field")
            if text(field) in ("next", "prev", "nxt"):
                return True
    return False


@rule("binary search")
def binary_search(program: ParsedProgram) -> bool:
    """A search interval halved at its midpoint: a loop whose condition compares ``lo`` and
    ``hi`` (or tests ``hi - lo > 1``) and whose body computes ``(lo + hi) // 2`` /
    ``lo + (hi - lo) // 2`` / ``>> 1``; or a recursive function computing that midpoint of
    two of its parameters and calling itself once on one side."""
    for loop, cond in program.conditional_loops():
        pairs = [(text(a), text(b)) for a, op, b in program.comparisons(cond) if a is not None and b is not None]
        pairs += [(text(d[0]), text(d[2])) for a, op, b in program.comparisons(cond) if a is not None
                  for d in [binary(strip(a))] if d and d[1] == "-"]
        if computes_midpoint(program, loop, pairs):
            return True
    for fn in program.recursive_definitions:
        body = fn.child_by_field_name("body")
        params = sorted(program.parameters(fn))
        halves = [v for _, _, v in program.assignments(body) if v is not None and
                  any(is_midpoint(v, a, b) for a in params for b in params if a < b)]
        if halves and len(program.recursive_call_sites(body)) == 1:
            return True
    return False


# ----------------------------------------------------------------- the registry

# every marked rule, in the order the technique names have always had in RULES
CHECKS = (recursion, two_pointers, sliding_window, kadane, back_tracking, divide_and_conquer,
          depth_first_search, width_first_search, graph_traversal, graph, tree_shapes, topological_sort,
          minimax, greedy, dynamic_programming, misc, cpp_hashmap, linked_list, binary_search)


def _registry(checks) -> dict[str, Rule]:
    """Technique name -> ``Rule`` of each marked function of ``checks``, in their order;
    ValueError if two functions claim the same technique."""
    rules: dict[str, Rule] = {}
    for check in checks:
        r = check.rule
        if r.name in rules:
            raise ValueError(f"technique {r.name!r} already has a rule: {rules[r.name].check.__name__}")
        rules[r.name] = r
    return rules


RULES: dict[str, Rule] = _registry(CHECKS)


def techniques(program: ParsedProgram) -> set[str]:
    """Names of the techniques in ``RULES`` whose rule holds for ``program``."""
    return {name for name, r in RULES.items() if program.language in r.languages and program.fact(r.check)}
