import json

import pytest

from neocoder.techniques import DETECTED, TAXONOMY, UnsupportedLanguage, canonical, detect, guess_language


@pytest.mark.parametrize("code,expected", [
    ("for i in range(3):\n    print(i)\n", {"for loop"}),
    ("print([i * i for i in range(3)])\n", {"for loop"}),
    ("print(sum(i for i in range(3)))\n", {"for loop"}),
    ("while n:\n    n -= 1\n", {"while loop"}),
    ("if a:\n    b = 1\nelif c:\n    b = 2\n", {"if statement"}),
    ("b = 1 if a else 2\n", {"if statement"}),
    ("for x in a:\n    if x:\n        break\n    continue\n", {"for loop", "if statement", "break statement", "continue statement"}),
    ("def f():\n    pass\n", {"pass statement"}),
    ("match x:\n    case 1:\n        y = 2\n", {"match statement"}),
    ("def f(n):\n    return n and f(n - 1)\n", {"recursion"}),
    ("def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\n", {"recursion"}),
    ("def f(n):\n    return g(n)\ndef g(n):\n    return n\n", set()),
    ("t = (1, 2)\n", {"tuple"}),
    ("def f():\n    return 1, 2\n", {"tuple"}),
    ("a, b = map(int, input().split())\n", set()),
    ("s = {1, 2}\nu = set()\n", {"set"}),
    ("d = {}\nfrom collections import defaultdict\nc = defaultdict(int)\n", {"dictionary", "hashmap"}),
    ("a = sorted(b)\nb.sort()\n", {"sorting"}),
    ("import heapq\nh = []\nheapq.heappush(h, 1)\n", {"heap"}),
    ("from heapq import heappop\nx = heappop(h)\n", {"heap"}),
])
def test_detects_python_techniques(code, expected):
    assert detect(code) == expected


@pytest.mark.parametrize("code,present,absent", [
    ("from collections import deque\nq = deque([1])\nq.popleft()\n", {"queue"}, {"stack"}),
    ("s = [1, 2]\ns.append(3)\ns.pop()\n", {"stack"}, {"queue"}),
    ("s = [1, 2]\ns.pop(0)\n", set(), {"stack"}),
    ("from collections import Counter\nc = Counter('aab')\n", {"hashmap", "dictionary"}, set()),
    ("d = {}\nfor k, v in d.items():\n    pass\n", {"hashmap", "dictionary"}, set()),
    ("d = {1: 2}\n", {"dictionary"}, {"hashmap"}),
    ("g = [[0] * 3 for _ in range(3)]\ng[1][2] = 5\n", {"matrix operation"}, set()),
    ("print(list(zip(*m)))\n", {"matrix operation"}, set()),
    ("a = [0] * 3\na[1] = 2\n", set(), {"matrix operation"}),
    ("import bisect\ni = bisect.bisect_left(a, 3)\n", {"binary search"}, set()),
    ("while lo < hi:\n    mid = (lo + hi) // 2\n", {"binary search"}, set()),
    ("x = (a + b) // 2\n", set(), {"binary search"}),
    ("dp = [0] * 5\ndp[1] = dp[0] + 1\n", {"dynamic programming"}, set()),
    ("from functools import lru_cache\n@lru_cache(None)\ndef f(n):\n    return n\n", {"dynamic programming"}, {"recursion"}),
    ("a = [0] * 5\na[1] = a[0] + 1\n", set(), {"dynamic programming"}),
])
def test_semantic_python_techniques(code, present, absent):
    found = detect(code)
    assert present <= found and not (absent & found), found


CPP = "#include <bits/stdc++.h>\nusing namespace std;\n"


@pytest.mark.parametrize("body,expected", [
    ("int main(){ for(int i=0;i<3;i++){} }", {"for loop"}),
    ("int main(){ vector<int> v; for(int x: v){} }", {"for loop"}),
    ("int main(){ int t; while(t--){} do{}while(0); }", {"while loop"}),
    ("int main(){ int x = 1; if(x){} }", {"if statement"}),
    ("int main(){ int x = 1; int y = x ? 1 : 2; }", {"if statement"}),
    ("int main(){ for(;;){ break; } }", {"for loop", "break statement"}),
    ("int main(){ for(;;){ continue; } }", {"for loop", "continue statement"}),
    ("int main(){ int t; switch(t){ default: ; } }", {"match statement"}),
    ("int f(int n){ return f(n); }\nint main(){ f(1); }", {"recursion"}),
    ("int f(int n){ return g(n); }\nint g(int n){ return 0; }\nint main(){ f(1); }", set()),
    ("int main(){ pair<int,int> p = make_pair(1, 2); }", {"tuple"}),
    ("int main(){ set<int> s; }", {"set"}),
    ("int main(){ map<int,int> m; }", {"dictionary"}),
    ("int main(){ unordered_map<int,int> m; }", {"hashmap"}),
    ("int main(){ priority_queue<int> q; }", {"heap"}),
    ("int main(){ queue<int> q; }", {"queue"}),
    ("int main(){ stack<int> s; }", {"stack"}),
    ("int main(){ list<int> l; }", {"linked list"}),
    ("int main(){ int a[3]; sort(a, a + 3); }", {"sorting"}),
    ("int main(){ vector<int> a; std::sort(a.begin(), a.end()); }", {"sorting"}),
    ("int main(){ vector<int> a; auto it = lower_bound(a.begin(), a.end(), 3); }", {"binary search"}),
    ("int main(){ int g[3][3]; g[1][2] = 0; }", {"matrix operation"}),
    ("int main(){ vector<vector<int>> g; }", {"matrix operation"}),
    ("int main(){ int a[3]; a[1] = 0; }", set()),
])
def test_cpp_techniques(body, expected):
    assert detect(CPP + body, "cpp") == expected


def test_a_truncated_program_is_still_analysed():
    assert "for loop" in detect("def solve():\n    for i in range(3):\n        print(i\n")


def test_detected_names_are_taxonomy_names():
    assert set(DETECTED) <= set(TAXONOMY)
    assert len(TAXONOMY) == 34
    assert canonical("Breadth First Search") == "width first search"
    assert canonical("For  Loop") == "for loop"
    assert canonical("vector") is None


def test_language_guess_and_unsupported_language():
    assert guess_language("print(1)\n") == "python"
    assert guess_language("#include <bits/stdc++.h>\nint main(){}\n") == "cpp"
    assert guess_language("print 1\n") == "unknown"
    with pytest.raises(UnsupportedLanguage):
        detect("fn main() {}", language="rust")


def test_human_sets_use_python_and_cpp_solutions(release_dir):
    from neocoder.techniques.human import human_technique_sets
    sets = human_technique_sets(release_dir, ["1901A", "1773F"])
    assert sets["1901A"]["techniques"] >= {"for loop"}
    assert sets["1901A"]["by_language"]["python"] > 0 and sets["1901A"]["by_language"]["cpp"] > 0
    assert sets["1773F"]["techniques"] is None  # no human solutions in the release


def test_detect_command_on_a_file_and_an_unsupported_language(tmp_path):
    from click.testing import CliRunner
    from neocoder.cli import main
    py = tmp_path / "a.py"
    py.write_text("for i in range(3):\n    print(i if i else 0)\n")
    out = CliRunner().invoke(main, ["detect", str(py), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["techniques"] == ["for loop", "if statement"]
    cpp = tmp_path / "a.cpp"
    cpp.write_text("#include <cstdio>\nint main(){ for(;;){} }\n")
    out = CliRunner().invoke(main, ["detect", str(cpp), "--json"])
    assert out.exit_code == 0 and json.loads(out.output) == {"file": str(cpp), "language": "cpp",
                                                             "techniques": ["for loop"]}
    rb = tmp_path / "a.rb"
    rb.write_text("puts 1\n")
    out = CliRunner().invoke(main, ["detect", str(rb), "--language", "auto"])
    assert out.exit_code != 0 and "not supported" in out.output


def test_agreement_with_real_labels_on_a_slice(tmp_path, release_dir):
    from click.testing import CliRunner
    from neocoder.cli import main
    labels = json.loads((release_dir / "human_solution_techniques.json").read_text())
    slice_ = {pid: labels[pid] for pid in sorted(labels)[:3]}
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(slice_))
    out = CliRunner().invoke(main, ["detect", "--agreement", str(path), "--release", str(release_dir),
                                    "--json", "--min-support", "1"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    py = result["python"]
    assert set(py) >= {"micro_f1", "macro_f1", "per_technique"}
    assert 0.5 < py["per_technique"]["for loop"]["f1"] <= 1.0
    assert py["per_technique"]["for loop"]["support"] > 0
    bad = dict(slice_)
    first = sorted(bad)[0]
    bad[first] = bad[first][:-1]  # no longer aligned with the solutions
    path.write_text(json.dumps(bad))
    out = CliRunner().invoke(main, ["detect", "--agreement", str(path), "--release", str(release_dir)])
    assert out.exit_code != 0 and first in out.output and "aligned" in out.output


def test_llm_reply_parsing_maps_aliases_drops_unknown_and_never_defaults():
    from neocoder.techniques.llm import parse_labels
    found, dropped = parse_labels("Here you go:\n- For Loop\n* breadth first search\n1. sorting.\n- vector\n")
    assert found == {"for loop", "width first search", "sorting"} and dropped == ["vector"]
    assert parse_labels("- none") == (set(), [])
    assert parse_labels("It uses a loop, I think.") == (None, [])  # unparseable: retried, never 'for loop'
