"""The C++ glossary (neocoder/techniques/glossary.py, prompts/solve_cpp_glossary.txt): one
line per technique, the same in docs/techniques.md, true of the C++ detector, shown in the
C++ prompts for the techniques a state denies (and nowhere else), with the techniques that
have no C++ form marked."""

import re

import pytest
from checkout import CHECKOUT
from loopback import RespondingServer

from neocoder.benchmarks.neocoder.denial import denial_chain
from neocoder.benchmarks.neocoder.solve import SOLVE_PROMPTS, solve_prompt
from neocoder.dataset import shipped
from neocoder.dataset.statement import with_constraints
from neocoder.models.openai_compat import OpenAICompatModel
from neocoder.resources import prompt_text
from neocoder.techniques import TAXONOMY, detect
from neocoder.techniques.glossary import (
    NO_CPP_FORM,
    GlossaryError,
    cpp_glossary,
    denied_techniques,
    glossary_lines,
    parse_glossary,
    without_cpp_form,
)

CPP = "#include <bits/stdc++.h>\nusing namespace std;\n"
HEADING = cpp_glossary()[0]

# One C++ program per technique with a C++ form, written as its glossary line describes it.
EXAMPLES = {
    "if statement": "int main(){ int x = 1; int y = x ? 1 : 2; }",
    "for loop": "int main(){ vector<int> v; for (auto x : v) {} }",
    "while loop": "int main(){ do {} while (0); }",
    "break statement": "int main(){ int t = 1; switch (t) { case 1: break; } }",
    "continue statement": "int main(){ for (;;) { continue; } }",
    "match statement": "int main(){ int t = 1; switch (t) { default: ; } }",
    "recursion": "int main(){ auto f = [&](auto self, int n) -> int { return n ? self(self, n - 1) : 0; }; }",
    "stack": "int main(){ stack<int> s; }",
    "queue": "int main(){ deque<int> d; }",
    "tuple": "int main(){ pair<int, int> p; }",
    "set": "int main(){ bitset<8> b; }",
    "dictionary": "int main(){ multimap<int, int> m; }",
    "linked list": "struct N { N* next; };\nint main(){ N a, b; a.next = &b; }",
    "tree": "int t[64];\nint main(){ int v = 1; t[v] = t[2 * v] + t[2 * v + 1]; }",
    "graph": "vector<int> adj[9];\nint main(){ int u = 0, v = 1; adj[u].push_back(v); for (int w : adj[u]) {} }",
    "graph traversal": "int main(){ queue<int> q; q.push(0); while (!q.empty()) { int u = q.front(); q.pop();"
                       " if (u < 3) q.push(u + 1); } }",
    "two pointers": "int main(){ int l = 0, r = 9; while (l < r) { l++; r--; } }",
    "sliding window": "int a[9];\nint main(){ int s = 0, k = 2; for (int i = k; i < 9; i++) { s += a[i];"
                      " s -= a[i - k]; } }",
    "matrix operation": "int main(){ vector<vector<int>> g; }",
    "hashmap": "int main(){ map<int, int> m; int k = 1; m[k]++; }",
    "depth first search": "vector<int> adj[9];\nint main(){ function<void(int)> dfs = [&](int u)"
                          " { for (int v : adj[u]) dfs(v); }; dfs(0); }",
    "width first search": "int main(){ queue<int> q; q.push(0); while (!q.empty()) { int u = q.front(); q.pop();"
                          " if (u < 3) q.push(u + 1); } }",
    "back tracking": "vector<int> p;\nvoid go(int i){ if (i == 3) return; p.push_back(i); go(i + 1); p.pop_back(); }\n"
                     "int main(){ go(0); }",
    "dived & conquer": "int s(int lo, int hi){ if (hi - lo < 2) return 0; int m = (lo + hi) / 2;"
                       " return s(lo, m) + s(m, hi); }\nint main(){ s(0, 8); }",
    "Kadanes algorithm": "int a[9];\nint main(){ int cur = 0;"
                         " for (int i = 0; i < 9; i++) cur = max(cur + a[i], a[i]); }",
    "binary search": "int main(){ vector<int> a; auto it = equal_range(a.begin(), a.end(), 3); }",
    "heap": "int main(){ vector<int> h; make_heap(h.begin(), h.end()); }",
    "dynamic programming": "long long dp[50];\nint main(){"
                           " for (int i = 2; i < 50; i++) dp[i] = dp[i - 1] + dp[i - 2]; }",
    "greedy algorithm": "int main(){ vector<int> a; sort(a.begin(), a.end()); int s = 0;"
                        " for (int i = 0; i < (int)a.size(); i++) if (a[i] > 0) s += a[i]; }",
    "misc": "int main(){ int g = __gcd(4, 6); }",
    "minimax": "int f(int d){ if (!d) return 0; return max(-f(d - 1), 1); }\nint main(){ f(3); }",
    "topological sort": "int deg[9]; vector<int> adj[9];\nint main(){ queue<int> q; while (!q.empty()) {"
                        " int u = q.front(); q.pop(); for (int v : adj[u]) if (--deg[v] == 0) q.push(v); } }",
    "sorting": "int main(){ vector<int> a; stable_sort(a.begin(), a.end()); }",
}


def test_every_technique_has_one_line_and_the_docs_show_the_same_lines():
    heading, meanings = cpp_glossary()
    assert list(meanings) == list(TAXONOMY)
    docs = (CHECKOUT / "docs" / "techniques.md").read_text(encoding="utf-8")
    shown = re.search(r"<!-- cpp-glossary[^\n]*-->\n(.*?)\n<!-- /cpp-glossary -->", docs, re.S)
    assert shown is not None, "docs/techniques.md lost its cpp-glossary markers"
    assert shown.group(1).strip().split("\n") == [heading, ""] + glossary_lines()


def test_each_c_plus_plus_meaning_is_what_the_detector_finds():
    _, meanings = cpp_glossary()
    with_form = {t for t, m in meanings.items() if not m.startswith(NO_CPP_FORM)}
    assert set(EXAMPLES) == with_form  # a new technique needs its example here
    missed = {t: sorted(detect(CPP + code, "cpp")) for t, code in EXAMPLES.items()
              if t not in detect(CPP + code, "cpp")}
    assert not missed


def test_only_pass_statement_has_no_cpp_form_and_cpp_never_uses_it():
    assert without_cpp_form(list(TAXONOMY)) == ["pass statement"]
    assert without_cpp_form(["while loop", "Pass Statement"]) == ["Pass Statement"]  # aliases and case
    assert without_cpp_form(["match statement", "tuple", "not a technique"]) == []
    assert "pass statement" not in detect(CPP + "int main(){ ; {} if (1) {} for (;;) {} }", "cpp")
    # the shipped states that deny it: 1729B from its second constraint on
    marked = [(s.problem_id, s.state) for s in shipped.load_states() if without_cpp_form(s.constraints)]
    assert marked == [("1729B", 2), ("1729B", 3), ("1729B", 4), ("1729B", 5)]


GOOD = "Heading\n" + "\n".join(f"- {t}: meaning of {t}" for t in TAXONOMY) + "\n"


@pytest.mark.parametrize("text,fault", [
    ("- for loop: a for\n" + GOOD, r"line 1: expected a heading"),
    (GOOD.replace("- tuple: meaning of tuple", "- tuple meaning"),
     r"line 12: expected '- <technique>: <C\+\+ meaning>'"),
    (GOOD.replace("- tuple:", "- tuples:"), r"line 12: 'tuples' is not a technique of the taxonomy"),
    (GOOD.replace("- tuple:", "- Tuple:"), r"line 12: 'Tuple' is not a technique"),
    (GOOD + "- tuple: again\n", r"line 36: 'tuple' is given twice"),
    (GOOD.replace("- tuple: meaning of tuple", "- tuple:  "), r"line 12: 'tuple' has no meaning"),
    (GOOD.replace("- tuple: meaning of tuple\n", ""), r"no line for tuple"),
])
def test_a_malformed_glossary_is_refused_naming_file_and_line(text, fault):
    with pytest.raises(GlossaryError, match=r"^glossary.txt.*" + fault):
        parse_glossary(text, "glossary.txt")


def test_a_well_formed_glossary_is_read():
    heading, meanings = parse_glossary(GOOD.replace("\n- set", "\n\n- set"), "glossary.txt")  # blank lines skipped
    assert heading == "Heading" and meanings["tuple"] == "meaning of tuple" and len(meanings) == len(TAXONOMY)


STATEMENT = "A. Sum\nPrint the sum of a and b."


def test_a_cpp_prompt_shows_the_lines_of_the_denied_techniques_only():
    statement = with_constraints(STATEMENT, ["tuple", "match statement"])
    assert denied_techniques(statement) == ["tuple", "match statement"]
    prompt = solve_prompt(statement, None, "cpp")
    user = prompt.messages[1]["content"]
    _, meanings = cpp_glossary()
    block = f"{HEADING}\n- tuple: {meanings['tuple']}\n- match statement: {meanings['match statement']}\n"
    assert "techniques named there.\n" + block + "\nAnswer with the C++ code only" in user
    assert "- for loop:" not in user and user.count(HEADING) == 1
    assert "`std::pair`" in user and "`switch`" in user
    # the completion prompt has them as comments, before the quoted statement and its code
    assert f"// {HEADING}\n// - tuple: " in prompt.completion
    assert prompt.code_prefix.startswith("#include") and HEADING not in prompt.code_prefix


def test_prompts_without_constraints_and_python_prompts_are_unchanged():
    """No glossary in a state-0 C++ prompt or in any Python prompt: the text is the template's
    with ``{glossary}`` left empty, and Python's templates have no ``{glossary}`` at all."""
    for statement in (STATEMENT, with_constraints(STATEMENT, ["tuple"])):
        python = solve_prompt(statement)
        assert python.messages[1]["content"] == prompt_text("solve_user.txt").replace("{statement}", statement)
        assert HEADING not in python.completion
    cpp = solve_prompt(STATEMENT, None, "cpp")
    template = prompt_text(SOLVE_PROMPTS["cpp"].user)
    assert "{glossary}" in template
    assert cpp.messages[1]["content"] == template.replace("{glossary}", "").replace("{statement}", STATEMENT)
    assert HEADING not in cpp.completion
    assert all("{glossary}" not in prompt_text(name) for name in ("solve_user.txt", "solve_completion.txt",
                                                                    "denial_followup.txt"))


@pytest.mark.docker
def test_a_cpp_denial_chain_shows_the_glossary_for_what_it_denies(sandbox):
    """A real chain: a scripted endpoint on loopback answers a program using only std::pair,
    the detector finds tuple, so round 1 denies it, and the follow-up request tells the model
    what tuple means in C++; the first request has no glossary."""
    first = CPP + "int main(){ pair<int, int> p = make_pair(1, 0); cout << p.first << endl; }"
    second = CPP + "int main(){ cout << 1 << endl; }"

    def respond(kind, body):
        return f"```cpp\n{first if len(body['messages']) == 2 else second}\n```", None

    problem = {"problem_id": "T1", "statement": "A. One\nPrint 1.", "tests": [{"input": "", "output": "1\n"}],
               "checker": None, "time_limit_s": 2, "memory_limit_mb": 256}
    with RespondingServer(respond) as server:
        model = OpenAICompatModel("scripted", "scripted", base_url=server.url, api_key="k")
        records = denial_chain(problem, model, lambda code: detect(code, "cpp"), sandbox, rounds=1, language="cpp")
        asked = [body["messages"] for _, body in server.requests]
    assert [r["constraints"] for r in records] == [[], ["tuple"]]
    assert [r["augmentation"]["accepted"] for r in records] == [True, True]
    assert all(HEADING not in m["content"] for m in asked[0])
    followup = asked[1][-1]["content"]
    assert f"{HEADING}\n- tuple: {cpp_glossary()[1]['tuple']}\n" in followup and followup.count("\n- ") == 2
