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
    ("d = {}\nfrom collections import defaultdict\nc = defaultdict(int)\n", {"dictionary"}),
    ("a = sorted(b)\nb.sort()\n", {"sorting"}),
    ("import heapq\nh = []\nheapq.heappush(h, 1)\n", {"heap"}),
    ("from heapq import heappop\nx = heappop(h)\n", {"heap"}),
])
def test_detects_python_techniques(code, expected):
    assert detect(code) == expected


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
        detect("int main(){}", language="cpp")


def test_human_sets_use_only_python_solutions(release_dir):
    from neocoder.techniques.human import human_technique_sets
    sets = human_technique_sets(release_dir, ["1901A", "1773F"])
    assert sets["1901A"]["techniques"] >= {"for loop"}
    assert sets["1901A"]["by_language"]["python"] > 0
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
    cpp.write_text("#include <cstdio>\nint main(){}\n")
    out = CliRunner().invoke(main, ["detect", str(cpp)])
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
