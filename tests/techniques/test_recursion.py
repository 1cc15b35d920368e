"""Recursion however it is written (neocoder/techniques/callgraph.py), in both languages:
named functions, lambdas bound to a name (Python ``f = lambda``, C++ ``std::function``,
``auto``), the self-passing (Y-combinator) generic lambda ``self(self, n - 1)`` and a C++23
explicit object parameter; and what is not recursion: a lambda calling another function, a
parameter called with other arguments, a lambda applied to its own result from outside.

The positive programs are also run in the real sandbox, so each is a working program that
recurses (it prints 5! = 120), not a shape the detector merely accepts."""

import pytest

from neocoder.judge import Limits
from neocoder.techniques import detect

CPP = "#include <bits/stdc++.h>\nusing namespace std;\n"

PY_RECURSIVE = {
    "lambda bound to a name": "f = lambda n: 1 if n == 0 else n * f(n - 1)\nprint(f(5))\n",
    "self-passing lambda": "fact = lambda self, n: 1 if n == 0 else n * self(self, n - 1)\nprint(fact(fact, 5))\n",
    "self-passing def": "def fact(me, n):\n    return 1 if n == 0 else n * me(me, n - 1)\nprint(fact(fact, 5))\n",
    "lambda inside solve": "def solve():\n    f = lambda n: n and n * f(n - 1) or 1\n    print(f(5))\nsolve()\n",
    "annotated lambda": "from typing import Callable\nf: Callable = lambda n: 1 if n < 1 else n * f(n - 1)\n"
                        "print(f(5))\n",
    "lambdas calling each other": "even = lambda n: n == 0 or odd(n - 1)\nodd = lambda n: n != 0 and even(n - 1)\n"
                                  "print(120 if even(4) else 0)\n",
}
CPP_RECURSIVE = {
    "std::function": "int main(){ function<int(int)> f = [&](int n) -> int { return n ? n * f(n - 1) : 1; };"
                     " cout << f(5) << endl; }",
    "std::function from its constructor": "int main(){ std::function<int(int)> f([&](int n) -> int"
                                          " { return n ? n * f(n - 1) : 1; }); cout << f(5) << endl; }",
    "std::function assigned later": "int main(){ function<int(int)> f; f = [&](int n) -> int"
                                    " { return n ? n * f(n - 1) : 1; }; cout << f(5) << endl; }",
    "generic lambda passed itself": "int main(){ auto f = [&](auto self, int n) -> int"
                                    " { return n ? n * self(self, n - 1) : 1; }; cout << f(f, 5) << endl; }",
    "generic lambda by reference": "int main(){ auto f = [](auto&& self, int n) -> int"
                                   " { return n ? n * self(self, n - 1) : 1; }; cout << f(f, 5) << endl; }",
    "unnamed self-passing lambda": "int main(){ cout << [](auto self, int n) -> int"
                                   " { return n ? n * self(self, n - 1) : 1; }([](auto self, int n) -> int"
                                   " { return n ? n * self(self, n - 1) : 1; }, 5) << endl; }",
}


@pytest.mark.parametrize("name", sorted(PY_RECURSIVE))
def test_python_recursion_written_with_lambdas_is_recursion(name):
    assert "recursion" in detect(PY_RECURSIVE[name])


@pytest.mark.parametrize("name", sorted(CPP_RECURSIVE))
def test_cpp_recursion_written_with_lambdas_is_recursion(name):
    assert "recursion" in detect(CPP + CPP_RECURSIVE[name], "cpp")


def test_a_lambda_with_an_explicit_object_parameter_is_recursion():
    """C++23 ``this auto&& self`` (our C++17 judge does not compile it, so it is not run)."""
    code = CPP + "int main(){ auto f = [](this auto&& self, int n) -> int { return n ? n * self(n - 1) : 1; }; }"
    assert "recursion" in detect(code, "cpp")
    # without ``this`` the first parameter is an ordinary one, and calling it is not recursion
    assert "recursion" not in detect(code.replace("this auto&&", "auto"), "cpp")


@pytest.mark.parametrize("code", [
    "g = lambda n: f(n - 1)\n",  # calls a different function
    "def f(n):\n    return n\ng = lambda n: f(n - 1)\nprint(g(3))\n",  # f is not recursive either
    "f = lambda n: n + 1\nprint(f(f(3)))\n",  # applied to its own result, from outside
    "apply = lambda g, x: g(x)\n",  # a parameter called with another argument
    "twice = lambda g, x: g(g(x))\n",  # ... or with its own result: not passed itself
    "def apply(g, x):\n    return g(x)\n",
    "key = lambda p: p[0]\nprint(sorted([(2, 1), (1, 2)], key=key))\n",
    "import sys\ninput = lambda: sys.stdin.readline().rstrip()\n",  # another object's method of the same name
    "class A:\n    f = 1\n\ndef g(a):\n    h = lambda n: a.f(n)\n    return h\n",
])
def test_python_lambdas_that_do_not_recurse_are_not_recursion(code):
    assert "recursion" not in detect(code)


@pytest.mark.parametrize("body", [
    "int g(int n){ return n; }\nint main(){ auto f = [&](int n) { return g(n - 1); }; cout << f(5); }",
    "int main(){ auto f = [&](int n) { return n + 1; }; cout << f(f(3)); }",
    "int main(){ auto ap = [](auto h, int n) { return h(n); }; }",
    "int main(){ auto twice = [](auto h, int n) { return h(h(n)); }; }",
    "int main(){ function<int(int)> f = [&](int n) { return n * 2; }; cout << f(3); }",
    "struct S{ int f(int n){ return n; } };\nint main(){ S s; auto f = [&](int n) { return s.f(n); }; }",
])
def test_cpp_lambdas_that_do_not_recurse_are_not_recursion(body):
    assert "recursion" not in detect(CPP + body, "cpp")


@pytest.mark.parametrize("code,language,found", [
    # depth first search through a std::function lambda: it loops over its argument's neighbours
    (CPP + "vector<int> adj[9]; bool seen[9];\nint main(){ function<void(int)> dfs = [&](int u)"
           " { seen[u] = true; for (int v : adj[u]) if (!seen[v]) dfs(v); }; dfs(0); }", "cpp",
     {"recursion", "depth first search", "graph traversal"}),
    # back tracking in a generic lambda passed itself: push, recurse, pop
    (CPP + "int main(){ vector<int> p; auto go = [&](auto&& go, int i) -> void"
           " { if (i == 3) return; p.push_back(i); go(go, i + 1); p.pop_back(); }; go(go, 0); }", "cpp",
     {"recursion", "back tracking"}),
    # a Python lambda doing divide and conquer: halves and calls itself twice
    ("s = lambda lo, hi: 0 if hi - lo < 2 else s(lo, (lo + hi) // 2) + s((lo + hi) // 2, hi)\n", "python",
     {"recursion", "dived & conquer"}),
])
def test_rules_built_on_recursion_see_recursive_lambdas(code, language, found):
    assert found <= detect(code, language)


@pytest.mark.docker
def test_the_recursive_programs_really_run_and_recurse(sandbox):
    """Every positive program compiles (C++17) or runs (Python 3) and prints 120."""
    programs = [(code, "python") for code in PY_RECURSIVE.values()]
    programs += [(CPP + body, "cpp") for body in CPP_RECURSIVE.values()]
    for code, language in programs:
        result = sandbox.run(code, [{"input": "", "output": "120\n"}], Limits.for_cpu(5), language=language)
        assert result.verdicts == ["AC"], (code, result.compile_error, [t.detail for t in result.tests])
