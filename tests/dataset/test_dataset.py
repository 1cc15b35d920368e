import json

import pytest

from neocoder.cli import parse_states
from neocoder.dataset import DatasetError, build_from_release, load_states, write_states
from neocoder.dataset.statement import parse_examples, parse_limits
from neocoder.records import ProblemState


def test_states_per_t_match_paper_table_1(release_states):
    _, report = release_states
    assert report.states_per_t == {0: 199, 1: 199, 2: 198, 3: 194, 4: 176, 5: 97}
    assert report.skips == []


def test_state_records_are_canonical(release_states):
    records, _ = release_states
    by_key = {(r["problem_id"], r["state"]): r for r in records}
    assert len(by_key) == len(records) == 1063
    r = by_key[("1901A", 0)]
    assert r["constraints"] == []
    assert r["tests"] == [{"input": "3\n3 7\n1 2 5\n3 6\n1 2 5\n1 10\n7\n", "output": "4\n3\n7\n",
                           "source": "statement"}]
    assert r["time_limit_s"] == 2.0 and r["memory_limit_mb"] == 256
    # 1901A's list repeats at index 2 and 4: state t keeps the first index holding t techniques
    assert [by_key[("1901A", t)]["source_index"] for t in range(4)] == [0, 1, 3, 5]
    assert by_key[("1901A", 3)]["constraints"] == ["for loop", "while loop", "sorting"]
    for rec in records:
        assert len(rec["constraints"]) == rec["state"]
        assert "this is the og problem" not in rec["constraints"]
        assert rec["tests"] and all(t["input"].endswith("\n") for t in rec["tests"])
        assert "\n- \n" not in rec["statement"]  # the empty bullet of a repeated round is gone


def test_constraints_appear_in_the_statement(release_states):
    records, _ = release_states
    rec = next(r for r in records if r["problem_id"] == "1901A" and r["state"] == 2)
    assert "DO NOT use the following techniques\n- while loop\n- for loop\n" in rec["statement"]


def test_examples_with_several_input_output_pairs():
    text = "T\nExamples\nInput\n1\nOutput\n2\nInput\n3 4\n\nOutput\nYES\nNote\nblah"
    assert parse_examples(text) == [{"input": "1\n", "output": "2\n"}, {"input": "3 4\n", "output": "YES\n"}]
    assert parse_examples("no examples here") == []
    assert parse_examples("Example\nInput\n1\n") == []  # no Output block: cannot be parsed


def test_limits_from_crawled_header():
    assert parse_limits("A. X\ntime limit per test\n2 seconds\nmemory limit per test\n512 megabytes\n") == (2.0, 512)
    assert parse_limits("nothing") == (None, None)


def test_falls_back_to_annotated_tests_and_records_it(tmp_path, release_dir):
    problems = json.loads((release_dir / "NeoCoder.json").read_text())[:1]
    problems[0]["problem_statements"] = [s.replace("Example\n", "Exemplary\n")
                                         for s in problems[0]["problem_statements"]]
    (tmp_path / "NeoCoder.json").write_text(json.dumps(problems))
    (tmp_path / "test_cases_annotated.json").write_text((release_dir / "test_cases_annotated.json").read_text())
    records, report = build_from_release(tmp_path)
    assert report.tests_from == {"annotated": 4}
    assert records[0]["tests"][0]["input"] == "3\n3 7\n1 2 5\n3 6\n1 2 5\n1 10\n7\n"
    assert records[0]["tests"][0]["source"] == "annotated"


def test_malformed_release_names_file_record_and_field(tmp_path, release_dir):
    problems = json.loads((release_dir / "NeoCoder.json").read_text())[:3]
    del problems[2]["codes"]
    (tmp_path / "NeoCoder.json").write_text(json.dumps(problems))
    (tmp_path / "test_cases_annotated.json").write_text("[]")
    with pytest.raises(DatasetError) as err:
        build_from_release(tmp_path)
    assert "NeoCoder.json" in str(err.value) and "#2" in str(err.value) and "'codes'" in str(err.value)


def test_jsonl_round_trip_and_bad_line(tmp_path, release_states):
    records, _ = release_states
    states = [ProblemState.from_dict(r) for r in records[:10]]
    path = tmp_path / "states.jsonl"
    write_states(states, path)
    assert load_states(path) == states and [s.to_dict() for s in states][3]["checker"] == records[3]["checker"]
    (tmp_path / "plain.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[:3]))  # no version
    assert load_states(tmp_path / "plain.jsonl") == states[:3]
    path.write_text(path.read_text() + '{"problem_id": "X", "state": 0, "constraints": [], "statement": "s", '
                    '"tests": [{"input": 1}]}\n')
    with pytest.raises(DatasetError, match=r"line 11.*tests\[0\]"):
        load_states(path)


def test_parse_states():
    assert parse_states("0-5") == [0, 1, 2, 3, 4, 5]
    assert parse_states("0,2,4") == [0, 2, 4]
    with pytest.raises(Exception):
        parse_states("five")


def test_1767A_gets_its_blank_lines_back(release_states):
    """1767A's Input section says each test case starts with an empty line; the text of the
    statement lost them. They are restored in the example (and the statement shown)."""
    from neocoder.dataset.statement import restore_blank_lines
    records, _ = release_states
    states = [r for r in records if r["problem_id"] == "1767A"]
    assert len(states) >= 5 and all("repaired" in r for r in states)
    assert states[0]["tests"][0]["input"].startswith("4\n\n4 7\n6 8\n3 5\n\n4 5\n")
    assert states[0]["tests"][0]["output"] == "YES\nYES\nYES\nNO\n"
    assert "Input\n4\n\n4 7" in states[0]["statement"]
    others = [r for r in records if r["problem_id"] != "1767A"]
    assert not any("repaired" in r for r in others)  # the rule fires nowhere else
    plain = "Each test case consists of three lines.\nExample\nInput\n2\n1\n2\nOutput\n3\n"
    assert restore_blank_lines(plain) == plain  # no "first of them is empty": unchanged
