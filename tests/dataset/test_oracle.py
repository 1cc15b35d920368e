"""Checkers, input mutation and the human-solution oracle (issue 5)."""

import json

import pytest
from click.testing import CliRunner

from neocoder.cli import main
from neocoder.dataset.mutate import _rows, mutate_inputs
from neocoder.dataset.statement import choose_checker
from neocoder.judge.checkers import as_checker, check
from neocoder.oracle import _case_evidence, _several_answers_evidence, label_extended, validate_examples

# ----------------------------------------------------------------- checkers on hand-made outputs

TOKENS = {"kind": "tokens", "ignore_case": False, "tolerance": None}


@pytest.mark.parametrize("checker,actual,test,expected", [
    (TOKENS, b"YES\n3 4\n", {"output": "YES\n3 4\n"}, True),
    (TOKENS, b"  YES  3\r\n4", {"output": "YES\n3 4\n"}, True),  # whitespace and CRLF do not matter
    (TOKENS, b"yes\n3 4\n", {"output": "YES\n3 4\n"}, False),
    (dict(TOKENS, ignore_case=True), b"yEs\nno\n", {"output": "YES\nNO\n"}, True),
    (dict(TOKENS, ignore_case=True), b"YES\nYES\n", {"output": "YES\nNO\n"}, False),
    ({"kind": "float", "ignore_case": False, "tolerance": 1e-6}, b"0.3333333\n", {"output": "0.333333333\n"}, True),
    ({"kind": "float", "ignore_case": False, "tolerance": 1e-6}, b"0.3334\n", {"output": "0.333333333\n"}, False),
    # relative error counts for large values, absolute for small ones
    ({"kind": "float", "ignore_case": False, "tolerance": 1e-6}, b"1000000.5\n", {"output": "1000000.0\n"}, True),
    ({"kind": "float", "ignore_case": False, "tolerance": 1e-6}, b"1 2\n", {"output": "1\n"}, False),
    ({"kind": "float", "ignore_case": False, "tolerance": 1e-6}, b"nan\n", {"output": "nan\n"}, True),
    ({"kind": "float", "ignore_case": False, "tolerance": 1e-6}, b"abc\n", {"output": "abd\n"}, False),
    ({"kind": "consensus", "ignore_case": False, "tolerance": None}, b"2 1 3\n",
     {"output": "1 2 3\n", "accepted_outputs": ["3 2 1", "2 1 3"]}, True),
    ({"kind": "consensus", "ignore_case": False, "tolerance": None}, b"1 3 2\n",
     {"output": "1 2 3\n", "accepted_outputs": ["3 2 1", "2 1 3"]}, False),
    ({"kind": "consensus", "ignore_case": False, "tolerance": None}, b"1 2 3\n", {"output": "1 2 3\n"}, True),
])
def test_checkers(checker, actual, test, expected):
    assert check(checker, actual, test) is expected


def test_legacy_and_unknown_checkers():
    assert as_checker("tokens")["kind"] == "tokens"
    assert as_checker(None)["kind"] == "tokens"
    with pytest.raises(ValueError):
        as_checker({"kind": "regex"})


def test_checker_choice_from_real_statements(release_states):
    records, _ = release_states
    by_id = {r["problem_id"]: r for r in records if r["state"] == 0}
    assert choose_checker(by_id["1901A"]["statement"]) == TOKENS  # prints a number
    assert choose_checker(by_id["1742A"]["statement"])["ignore_case"] is True  # YES/NO "in any case"
    assert choose_checker(by_id["1890A"]["statement"])["ignore_case"] is True  # "in any case (upper or lower)"
    assert choose_checker(by_id["1895B"]["statement"])["kind"] == "consensus"  # "print any of them"
    float_statement = ("Print the answer. Your answer is considered correct if its absolute or relative error "
                       "does not exceed $$$10^{-6}$$$.")
    assert choose_checker(float_statement) == {"kind": "float", "ignore_case": False, "tolerance": 1e-6}
    kinds = [choose_checker(r["statement"]) for r in by_id.values()]
    assert 35 <= sum(c["ignore_case"] for c in kinds) <= 45  # the release README: about 40
    assert 30 <= sum(c["kind"] == "consensus" for c in kinds) <= 45  # and 30 to 45


# ----------------------------------------------------------------- mutation rules on real statements

def _example_inputs(release_states, pid):
    records, _ = release_states
    return [t["input"] for t in next(r for r in records if r["problem_id"] == pid and r["state"] == 0)["tests"]]


@pytest.mark.parametrize("pid", ["1742A", "1895B", "1890B", "1883A"])
def test_mutations_keep_the_input_format(release_states, pid):
    examples = _example_inputs(release_states, pid)
    shapes = {tuple(len(r) for r in _rows(e)) for e in examples}
    firsts = {_rows(e)[0][0] for e in examples}
    got = mutate_inputs(examples, 12, f"0:{pid}")
    assert got and len(set(got)) == len(got) and not set(got) & set(examples)
    assert got == mutate_inputs(examples, 12, f"0:{pid}")  # same seed, same inputs
    assert got != mutate_inputs(examples, 12, f"1:{pid}")
    for text in got:
        rows = _rows(text)
        assert tuple(len(r) for r in rows) in shapes  # row widths kept: arrays still match their n
        assert rows[0][0] in firsts  # the leading test count is never changed


def test_mutation_keeps_binary_strings_binary_and_their_lengths(release_states):
    examples = _example_inputs(release_states, "1890B")
    originals = [_rows(e) for e in examples]
    for text in mutate_inputs(examples, 12, "0:1890B"):
        rows = _rows(text)
        source = next(o for o in originals if [len(r) for r in o] == [len(r) for r in rows])
        for row, orig in zip(rows, source):
            for tok, old in zip(row, orig):
                if set(old) <= {"0", "1"} and len(old) > 1:
                    assert set(tok) <= {"0", "1"} and len(tok) == len(old), (old, tok)


def test_mutation_values_stay_in_observed_ranges(release_states):
    examples = _example_inputs(release_states, "1742A")  # 0 <= a, b, c <= 20
    for text in mutate_inputs(examples, 20, "0:1742A"):
        values = [int(x) for row in _rows(text)[1:] for x in row]
        assert all(0 <= v <= 20 for v in values)


# ----------------------------------------------------------------- oracle decisions on hand-made runs

def test_validate_examples_drops_and_collects_consensus():
    tests = [{"input": "1\n", "output": "5\n"}, {"input": "2\n", "output": "7\n"}, {"input": "3\n", "output": "9\n"}]
    runs = ([[["ok", "5\n"], ["ok", "7\n"], ["RE", ""]] for _ in range(9)]
            + [[["ok", "5\n"], ["ok", "1\n"], ["ok", "9\n"]]])
    kept, log = validate_examples(tests, TOKENS, runs)
    assert [t["input"] for t in kept] == ["1\n", "2\n"]
    assert kept[0]["human_pass_share"] == 1.0 and kept[1]["human_pass_share"] == 0.9
    assert log == [{"test": 2, "action": "dropped", "share": 0.1}]
    consensus = {"kind": "consensus", "ignore_case": False, "tolerance": None}
    kept, log = validate_examples(tests[:1], consensus, [[["ok", "1 2\n"]], [["ok", "2  1\n"]], [["TLE", ""]]])
    assert kept[0]["accepted_outputs"] == ["1 2", "2 1"]
    assert kept[0]["human_pass_share"] == pytest.approx(2 / 3, abs=1e-3)


def test_human_evidence_turns_on_any_case_and_consensus():
    tests = [{"input": "1\n", "output": "YES\n8\n"}]
    assert _case_evidence(TOKENS, tests, [[["ok", "Yes\n8\n"]]])["ignore_case"] is True
    assert _case_evidence(TOKENS, tests, [[["ok", "YES\n9\n"]]]) == TOKENS
    agree = [[["ok", "YES\n9\n"]] for _ in range(9)] + [[["ok", "YES\n8\n"]]]
    checker = _several_answers_evidence(TOKENS, tests, agree)
    assert checker["kind"] == "consensus" and "9 of 10" in checker["consensus_evidence"]
    kept, _ = validate_examples(tests, checker, agree)
    assert check(checker, b"YES 9", kept[0]) and check(checker, b"YES 8", kept[0])
    assert not check(checker, b"NO", kept[0])
    split = [[["ok", f"YES\n{k}\n"]] for k in range(10)]  # humans disagree: no evidence of anything
    assert _several_answers_evidence(TOKENS, tests, split) == TOKENS


def test_time_limit_allows_twice_the_slowest_clean_human_run():
    from neocoder.oracle import time_limit
    runs = [["ok", "", 0.5], ["ok", "", 1.43], ["TLE", "", None], ["RE", "", 0.1]]
    got = time_limit(2.0, runs)
    assert got == {"time_limit_s": 2.9, "human_cpu_max_s": 1.43, "allowance": True, "too_slow": 1}
    assert time_limit(2.0, [["ok", "", 0.3]])["time_limit_s"] == 2.0  # the Codeforces limit stays
    assert time_limit(1.0, [["ok", "", 0.5]])["allowance"] is False  # 2 x 0.5 is not above 1.0


def test_label_extended_keeps_only_unanimous_clean_runs():
    cands = ["a\n", "b\n", "c\n"]
    runs = [[["ok", "1\n"], ["ok", "2\n"], ["ok", "3\n"]] for _ in range(5)]
    runs[4][1] = ["ok", "9\n"]  # one solution disagrees on b
    runs[0][2] = ["TLE", ""]  # one does not finish c
    got = label_extended(cands, TOKENS, runs)
    assert [(t["input"], t["output"]) for t in got] == [("a\n", "1\n")]
    assert label_extended(cands, TOKENS, runs[:4]) == []  # fewer than 5 labellers: nothing kept


# ----------------------------------------------------------------- the real build and eval

def test_build_dataset_with_the_oracle_resumes_and_eval_reports_both_tiers(tmp_path, release_dir, sandbox):
    out = tmp_path / "dataset"
    args = ["build-dataset", "--from-release", str(release_dir), "--out", str(out), "--limit", "2",
            "--extended", "12", "--quiet"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert {r["problem_id"] for r in records} == {"1901A", "1899A"}
    for r in records:
        assert r["oracle"]["humans"] >= 5 and r["checker"]["kind"] in ("tokens", "consensus")
        assert all(t["human_pass_share"] >= 0.9 for t in r["tests"])
        assert len(r["extended_tests"]) >= 5
        assert all(t["humans"] >= 5 and t["provenance"] == "mutation" for t in r["extended_tests"])
    report = json.loads((out / "metrics.json").read_text())["oracle"]
    assert set(report["problems"]) == {"1901A", "1899A"}
    for pid, entry in report["problems"].items():  # no accepted human solution is TLE on a kept test
        assert entry["too_slow"] == 0 and entry["human_cpu_max_s"] > 0
    for r in records:
        assert r["time_limit_s"] >= r["codeforces_time_limit_s"] and r["oracle"]["human_cpu_max_s"] > 0
    cache = out / "oracle-cache.jsonl"
    before, runs = (out / "records.jsonl").read_bytes(), len(cache.read_text().splitlines())
    second = CliRunner().invoke(main, args)  # every human run comes from the cache
    assert second.exit_code == 0, second.output
    assert len(cache.read_text().splitlines()) == runs  # no run made again
    assert json.loads((out / "metrics.json").read_text())["oracle"]["cache_hits"] > report["cache_hits"]
    assert (out / "records.jsonl").read_bytes() == before

    run = tmp_path / "run"
    result = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--dataset", str(out),
                                       "--release", str(release_dir), "--out", str(run), "--states", "0",
                                       "--quiet", "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert "pass@1+ext" in result.output
    samples = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    # fail fast: a sample wrong on the examples skips its extended tier
    assert all(s["plus"]["correct"] in (True, False) and len(s["plus"]["tests"]) + s["plus"]["skipped"] >= 5
               for s in samples)
    metrics = json.loads((run / "metrics.json").read_text())["states"]["0"]
    assert metrics["n_extended"] == 2 and metrics["pass@1_plus"] <= metrics["pass@1_examples_tiered"]


def test_script_mode_runs_a_human_solution_as_written(sandbox):
    """Human Codeforces solutions call their per-case solve() from their own loop; they run
    as written, and so does a model's program that drives solve() itself."""
    src = "def solve():\n    print(int(input()) * 2)\nfor _ in range(int(input())):\n    solve()\n"
    tests = [{"input": "2\n3\n4\n", "output": "6\n8\n"}]
    as_model = sandbox.run(src, tests)  # the program contract: a driver loop runs as written
    assert as_model.verdicts == ["AC"] and as_model.entry_rule == "program_calls_solve" and as_model.calls_solve
    assert sandbox.run(src, tests, entry="script").verdicts == ["AC"]


def test_special_checker_for_1758A_accepts_any_valid_palindrome():
    special = {"kind": "special", "special": "1758A", "ignore_case": False, "tolerance": None}
    test = {"input": "2\na\nab\n", "output": "aa\nabba\n"}
    assert check(special, b"aa\nbaab\n", test)  # another valid answer
    assert not check(special, b"aa\nabab\n", test)  # not a palindrome
    assert not check(special, b"aa\naabb\n", test)
    assert not check(special, b"aa\n", test)  # a case missing
    with pytest.raises(ValueError):
        as_checker({"kind": "special", "special": "9999Z"})


def test_1767A_human_solutions_pass_its_restored_example(release_dir, release_states, sandbox):
    from neocoder.judge import Limits
    from neocoder.techniques.human import solutions_by_language
    state = next(r for r in release_states[0] if r["problem_id"] == "1767A" and r["state"] == 0)
    humans = [src for lang, src in solutions_by_language(release_dir, ["1767A"])["1767A"] if lang == "python"][:6]
    assert len(humans) >= 5
    verdicts = [sandbox.run(src, state["tests"], Limits.for_cpu(state["time_limit_s"]), checker=state["checker"],
                            entry="script").verdicts for src in humans]
    assert all(v == ["AC"] for v in verdicts), verdicts
