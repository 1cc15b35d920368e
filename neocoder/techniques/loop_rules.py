"""Semantic rules about loops and the arrays they walk: two pointers, sliding window,
Kadane's algorithm, greedy, dynamic programming, prefix sums and the other misc
techniques, a C++ hash map, a linked list, binary search.

Each rule relates a loop's condition or a table write to what the code around it does
(the indices a loop's body moves, the earlier entries a write reads, the order a sorted
sequence is walked in), which no single tree-sitter query can express.  Every rule is a
function ``(program: ParsedProgram) -> bool`` marked ``@rule(name, languages)``
(``shapes.py``) and listed in ``semantic.RULES``; docs/techniques.md states each in words.
"""

from __future__ import annotations

from neocoder.techniques.parsed import (
    CALLS,
    COMPARE_OPS,
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
from neocoder.techniques.shapes import computes_midpoint, declared, is_midpoint, priority_queues, rule, table_writes

STREAMS = {"cin", "cout", "cerr", "clog"}


def _is_prefix_sum(program: ParsedProgram, target, op, value, reads) -> bool:
    """``A[i] += A[i - 1]`` or ``A[i] = A[i - 1] + x`` on a one-dimensional table."""
    if subscript_parts(target)[0].type in SUBSCRIPTS or len(reads) != 1:
        return False
    if op == "+=":
        return strip(value) == reads[0]
    parts = binary(strip(value))
    return bool(parts) and parts[1] == "+" and reads[0] in (parts[0], parts[2]) and \
        not any(n.type in CALLS for n in program.walk(value))


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
