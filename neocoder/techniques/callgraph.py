"""The call graph of a program: which of the functions it defines are recursive, however
they are written.

A program defines callables in four shapes, in both languages:

- a named function (Python ``def f``, a C/C++ function or method);
- a lambda bound to a name (Python ``f = lambda n: ...``; C++ ``auto f = [&](...) {...}``,
  ``function<int(int)> f = [&](int n) {...}``, ``function<...> f([&](...) {...})``, or
  ``f = [&](...) {...}`` assigned after the declaration);
- a callable that calls one of its own parameters with that parameter as an argument
  (``self(self, n - 1)``: the self-passing, Y-combinator style of a generic C++ lambda
  ``[&](auto self, int n)`` or a Python ``lambda f, n: ... f(f, n - 1)``);
- a C++23 lambda with an explicit object parameter (``[](this auto&& self, int n)``) that
  calls that parameter.

A named callable is recursive when it lies on a cycle of the call graph (f calls f, or
f -> g -> f), where an edge f -> g is a call of g in f's body with no receiver or the
receiver ``self`` / ``this`` (not ``obj.g()``, another object's method).  The last two
shapes are recursive by themselves: the parameter they call is the callable.  A lambda that
calls some other function, or calls a parameter with other arguments (``g(x)``,
``g(g(x))``), is not recursion.
"""

from __future__ import annotations

from neocoder.techniques.parsed import callee, function_name, receiver, text

LAMBDAS = {"lambda", "lambda_expression"}
# The receiver of a call that stays inside the program's own functions: f(), self.f(), this->f()
OWN_RECEIVERS = {"python": ("", "self"), "cpp": ("", "this")}


def _lambda_value(value):
    """The lambda a binding's value is (``= [&](...) {...}``, ``= lambda ...``), or wraps
    alone (``function<...> f([&](...) {...})``, ``{[&](...) {...}}``); else None."""
    if value is None:
        return None
    if value.type in LAMBDAS:
        return value
    if value.type in ("argument_list", "initializer_list"):
        inner = [c for c in value.named_children if c.type != "comment"]
        if len(inner) == 1 and inner[0].type in LAMBDAS:
            return inner[0]
    return None


def _bound_lambda(node) -> tuple[str, object] | None:
    """(name, lambda node) when ``node`` binds a lambda to a plain name: a Python
    assignment, a C++ declaration with a value, or a C++ assignment expression."""
    if node.type in ("assignment", "assignment_expression"):
        target, value = node.child_by_field_name("left"), node.child_by_field_name("right")
    elif node.type == "init_declarator":
        target, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
    else:
        return None
    lam = _lambda_value(value)
    if target is None or target.type != "identifier" or lam is None:
        return None
    return text(target), lam


def definitions(program) -> list[tuple[str, object]]:
    """(name, definition node) of every named callable ``program`` (a ``ParsedProgram``)
    defines: function definitions and lambdas bound to a name (the node is the lambda's).
    A lambda node has a ``body`` and its parameters as a function's have, so the rules
    built on recursion read both alike."""
    out = []
    for node in program.nodes:
        if node.type == "function_definition":
            name = function_name(node)
            if name is not None:
                out.append((name, node))
        else:
            bound = _bound_lambda(node)
            if bound is not None:
                out.append(bound)
    return out


def _parameter_nodes(fn) -> list:
    """The parameter nodes of a function definition or lambda, in either grammar."""
    params = fn.child_by_field_name("parameters")
    decl = fn.child_by_field_name("declarator")
    while params is None and decl is not None:  # C/C++: the parameters hang off the declarator
        params = decl.child_by_field_name("parameters")
        decl = decl.child_by_field_name("declarator")
    return [p for p in params.named_children if p.type != "comment"] if params is not None else []


def _parameter_name(program, param) -> str | None:
    """The name a parameter node declares, or None: a C++ declarator's last identifier, a
    Python default's name, else the first identifier (``g`` of ``g: int``, ``*args``)."""
    if param.type == "identifier":
        return text(param)
    decl = param.child_by_field_name("declarator") or param.child_by_field_name("name")
    ids = [n for n in program.walk(decl if decl is not None else param) if n.type == "identifier"]
    return text(ids[-1] if decl is not None else ids[0]) if ids else None


def self_calling_parameters(program, fn) -> set[str]:
    """Names of the parameters of ``fn`` (a function definition or lambda) that are the
    callable itself: one it calls with itself as an argument (``self(self, n - 1)``), and a
    C++23 explicit object parameter (``this auto&& self``) that it calls."""
    body = fn.child_by_field_name("body")
    if body is None:
        return set()
    names = {}
    for i, param in enumerate(_parameter_nodes(fn)):
        name = _parameter_name(program, param)
        if name is not None:
            names[name] = i == 0 and program.language == "cpp" and text(param).split()[:1] == ["this"]
    found = set()
    for call in program.calls(body):
        f = call.child_by_field_name("function")
        if f is None or f.type != "identifier" or text(f) not in names:
            continue
        name = text(f)
        args = call.child_by_field_name("arguments")
        passed = args is not None and any(a.type == "identifier" and text(a) == name for a in args.named_children)
        if passed or names[name]:
            found.add(name)
    return found


def recursive_functions(program) -> dict[str, list]:
    """The recursive callables of ``program``: ``{name: [definition nodes]}``.

    Named callables on a cycle of the call graph are keyed by their name; a callable that
    calls itself through a parameter (``self(self, ...)``, ``this auto&& self``) is keyed by
    that parameter's name (the name its recursive calls use) and by its own name where it
    is bound to one, so ``recursive_call_sites`` finds its recursive calls either way.
    """
    own = OWN_RECEIVERS.get(program.language, ("",))
    calls: dict[str, set[str]] = {}
    defs: dict[str, list] = {}
    recursive: dict[str, list] = {}
    self_calling = set()
    for node in program.nodes:  # self-passing callables, bound to a name or not
        if node.type in LAMBDAS or node.type == "function_definition":
            for param in self_calling_parameters(program, node):
                recursive.setdefault(param, []).append(node)
                self_calling.add(node.id)
    for name, fn in definitions(program):
        defs.setdefault(name, []).append(fn)
        if fn.id in self_calling:
            recursive.setdefault(name, []).append(fn)
        body = fn.child_by_field_name("body")
        called = calls.setdefault(name, set())
        if body is not None:
            called.update(c for c in (callee(n) for n in program.calls(body) if receiver(n) in own) if c)
    for start in calls:  # start is recursive iff it reaches itself
        seen, todo = set(), list(calls[start] & calls.keys())
        while todo:
            f = todo.pop()
            if f == start:
                known = {fn.id for fn in recursive.get(start, [])}
                recursive.setdefault(start, []).extend(fn for fn in defs[start] if fn.id not in known)
                break
            if f not in seen:
                seen.add(f)
                todo.extend(calls.get(f, set()) & calls.keys())
    return recursive
