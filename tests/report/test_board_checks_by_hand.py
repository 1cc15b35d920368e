"""The board's checks of a submitted run folder (neocoder/report/leaderboard/submissions.py
``check_run``, ``_manifest``, ``_check_source``, ``_check_items``, ``_check_metrics``,
``_verify``; issue 56), worked by hand in both directions on hand-made manifests and
suites and on copies of one small real AidanBench run (tests/support/board_hand.py): each
check on what it must accept and on what it must refuse, with its whole one line."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from board_hand import MODEL, QUESTIONS, aidan_run, edit_json, manifest, refused, suite_of, write_manifest

from neocoder.benchmarks import benchmark, register_benchmark, unregister_benchmark
from neocoder.benchmarks.descriptor import Benchmark, RecordsDisagree
from neocoder.errors import NeocoderError
from neocoder.report.leaderboard import submissions
from neocoder.report.leaderboard.collect import sources_of
from neocoder.report.leaderboard.submissions import check_run
from neocoder.store import RunFolder

RESCORED = "re-scored from recorded judgements: 4 of 4 judge replies and 2 of 2 questions agree (novelty as recorded)"
SKIPPED = "not re-judged (checks of the records skipped)"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return aidan_run(tmp_path_factory.mktemp("hand") / "run")


def copy(run, tmp_path, name="copy") -> Path:
    return Path(shutil.copytree(run, tmp_path / name))


def source(folder, **change):
    """The run's Source of ``MODEL``, fields changed by ``change``."""
    (got,) = [s for s in sources_of(Path(folder)) if s.model == MODEL]
    return replace(got, **change)


# ---------------------------------------------------------------- manifest

def test_a_complete_manifest_is_read(tmp_path):
    got = submissions._manifest(write_manifest(tmp_path / "m", manifest()))
    assert (got.kind, got.started, got.packages, got.config) == (
        "aidanbench", "2024-05-01T10:00:00+00:00", {"neocoder": "0.1.0"}, {"model": {"spec": MODEL}})


def test_a_missing_or_unreadable_manifest_is_refused_and_no_folder_is_made(tmp_path):
    missing = tmp_path / "missing"
    assert refused("manifest", submissions._manifest, missing) == (
        f"refused (manifest): {missing}: {missing}: no such run folder")
    assert not missing.exists()
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "manifest.json").write_text("{not json", encoding="utf-8")
    assert refused("manifest", submissions._manifest, folder).startswith(
        f"refused (manifest): {folder}: Expecting property name")


INCOMPLETE = "manifest.json: incomplete (needs started, packages.neocoder and config.model.spec)"


@pytest.mark.parametrize("change", [
    {"started": ""}, {"packages": ["neocoder"]}, {"packages": {"neocoder": None}}, {"packages": {}},
    {"config": {"model": {"name": MODEL}}}, {"config": {"model": None}}, {"config": {}}, {"config": [1]}])
def test_a_manifest_missing_one_field_is_refused_naming_the_fields(tmp_path, change):
    folder = write_manifest(tmp_path / "m", manifest(**change))
    assert refused("manifest", submissions._manifest, folder) == f"refused (manifest): {folder}/{INCOMPLETE}"


@pytest.mark.parametrize("change, name, value", [
    ({"config": {"model": {"spec": ["a", "b"]}}}, "config.model.spec", "['a', 'b']"),
    ({"started": 20240501}, "started", "20240501"), ({"kind": 5}, "kind", "5"),
    ({"packages": {"neocoder": 1}}, "packages.neocoder", "1")])
def test_a_manifest_field_of_another_type_is_refused_naming_it(tmp_path, change, name, value):
    folder = write_manifest(tmp_path / "m", manifest(**change))
    assert refused("types", submissions._manifest, folder) == (
        f"refused (types): {folder}/manifest.json: {name} is {value}, not a string")


# ---------------------------------------------------------------- check_run

def test_a_run_is_rescored_by_default_and_its_cells_say_how(run):
    (checked,) = check_run(run)
    assert checked.verified == RESCORED
    assert checked.source.folder == run and checked.source.model == MODEL
    assert {k: c["verified"] for k, c in checked.source.values.items()} == {
        "aidanbench.answers": RESCORED, "aidanbench.novelty_sum": RESCORED}
    (cheap,) = check_run(run, verify=False)
    assert cheap.verified == SKIPPED and {c["verified"] for c in cheap.source.values.values()} == {SKIPPED}


def test_a_run_holding_a_symlink_is_refused_before_its_manifest_is_read(run, tmp_path):
    linked = copy(run, tmp_path)
    (linked / "other.json").symlink_to(linked / "metrics.json")
    (linked / "manifest.json").write_text("{}", encoding="utf-8")
    assert refused("files", check_run, linked) == (
        f"refused (files): {linked / 'other.json'}: a symlink (nothing outside the run folder is read)")


def test_an_incomplete_manifest_is_refused_by_check_run(run, tmp_path):
    folder = copy(run, tmp_path)
    edit_json(folder, "manifest.json", lambda m: m.update(started=""))
    assert refused("manifest", check_run, folder) == f"refused (manifest): {folder}/{INCOMPLETE}"


def test_a_run_with_no_headline_measures_or_unfinished_is_refused(run, tmp_path):
    why = "no finished run of a benchmark with headline measures (metrics.json missing, or a build or validation run)"
    unfinished = copy(run, tmp_path, "unfinished")
    (unfinished / "metrics.json").unlink()
    assert refused("manifest", check_run, unfinished) == f"refused (manifest): {unfinished}: {why}"
    rescore = copy(run, tmp_path, "rescore")
    edit_json(rescore, "manifest.json", lambda m: m.update(kind="aidanbench-rescore"))
    assert refused("manifest", check_run, rescore) == f"refused (manifest): {rescore}: {why}"


def test_a_run_of_an_unknown_kind_is_refused_naming_the_folder(run, tmp_path):
    other = copy(run, tmp_path)
    edit_json(other, "manifest.json", lambda m: m.update(kind="nonesuch"))
    line = refused("manifest", check_run, other)
    assert line.startswith(f"refused (manifest): {other}: {other}: unknown benchmark 'nonesuch'")


def test_a_suite_is_checked_step_by_step(run, tmp_path):
    suite = suite_of(tmp_path / "suite", [{"benchmark": "aidanbench", "folder": "aidanbench"}])
    shutil.copytree(run, suite / "aidanbench")
    (checked,) = check_run(suite, verify=False)
    assert (checked.source.folder, checked.source.suite) == (suite / "aidanbench", suite)
    assert checked.verified == SKIPPED


def test_a_suites_records_of_other_types_are_not_read_as_steps(run, tmp_path):
    suite = suite_of(tmp_path / "suite", [{"benchmark": "aidanbench", "folder": "aidanbench"}])
    shutil.copytree(run, suite / "aidanbench")
    with (suite / "records.jsonl").open("a", encoding="utf-8") as f:
        f.write((run / "records.jsonl").read_text(encoding="utf-8").splitlines()[0] + "\n")  # an answer record
    (checked,) = check_run(suite, verify=False)
    assert checked.source.folder == suite / "aidanbench"


def test_a_suite_step_outside_the_suite_is_refused_even_when_skipped(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    suite = suite_of(tmp_path / "suite", [{"benchmark": "aidanbench", "folder": "../elsewhere",
                                           "skipped": "no judges"}])
    assert refused("files", check_run, suite) == (
        f"refused (files): {suite}: a suite step's folder '../elsewhere' points outside the run folder")


def test_a_suite_whose_records_do_not_read_is_refused_as_its_manifest(tmp_path):
    suite = suite_of(tmp_path / "suite", [{"benchmark": "aidanbench", "folder": "aidanbench"}])
    assert refused("manifest", check_run, suite) == (
        f"refused (manifest): {suite}: {suite / 'aidanbench'}: no such run folder")


def _own_questions(folder):
    edit_json(folder, "manifest.json", lambda m: m["config"].update(questions="mine.txt"))


def _answers_raised(folder):
    edit_json(folder, "metrics.json", lambda m: m["models"][MODEL].update(answers=5))


def _reply_changed(folder):
    rows = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
    next(r for r in rows if r["type"] == "answer")["judge_replies"] = ["<score>3</score>"]
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.parametrize("tamper, check", [(_own_questions, "dataset"), (_answers_raised, "metrics"),
                                           (_reply_changed, "records")])
def test_each_refusal_of_a_run_names_its_folder_benchmark_and_model(run, tmp_path, tamper, check):
    folder = copy(run, tmp_path)
    tamper(folder)
    assert refused(check, check_run, folder).startswith(f"refused ({check}): {folder} (aidanbench, {MODEL}): ")


# ---------------------------------------------------------------- a source's types and cells

def test_a_model_name_that_is_not_a_string_is_refused(run):
    for change in ({"model": 5}, {"row_model": ["a"]}):
        src = source(run, **change)
        assert refused("types", submissions._check_source, src, False) == (
            f"refused (types): {run} (aidanbench, {src.model}): the model's name is not a string")


def test_a_claimed_cell_is_type_checked_but_its_interval_is_left_to_the_recomputation(run, tmp_path):
    src = source(run)
    src.values["aidanbench.answers"] = {"value": "4", "low": 4.0, "high": 4.0}
    assert refused("types", submissions._check_source, src, False) == (
        f"refused (types): {run} (aidanbench, {MODEL}): aidanbench.answers in metrics.json value is '4', "
        "not a number")
    plain = _plain(tmp_path)
    wide = source(run, bench=plain.name)
    wide.values["aidanbench.answers"] = {"value": 9.0, "low": 0.0, "high": 1.0}  # holds=False: no interval test
    assert submissions._check_source(wide, False).source.values["aidanbench.answers"]["value"] == 9.0


def _plain(tmp_path, **change) -> Benchmark:
    """AidanBench's descriptor under a name of its own with neither ``recompute`` nor
    ``verify`` (or those ``change`` gives), registered for the test that asks for it."""
    name = f"plain-{tmp_path.name}"[:40]
    declared = replace(benchmark("aidanbench"), name=name, tasks={f"{name}-task": "nowhere:Task"},
                       **{"recompute": None, "verify": None, **change})
    _registered.append(register_benchmark(declared))
    return declared


_registered: list = []


@pytest.fixture(autouse=True)
def _unregister():
    yield
    while _registered:
        unregister_benchmark(_registered.pop())


@pytest.mark.parametrize("keep", [{}, {"recompute": "neocoder.benchmarks.aidanbench.verify:recompute"},
                                  {"verify": "neocoder.benchmarks.aidanbench.verify:rescore"}])
def test_a_benchmark_without_both_recompute_and_verify_is_kept_not_verified(run, tmp_path, keep):
    plain = _plain(tmp_path, **keep)
    src = source(run, bench=plain.name)
    src.values["aidanbench.answers"]["value"] = 99.0  # never recomputed
    checked = submissions._check_source(src, True)
    assert checked.verified == "not verified" and checked.source is src
    assert {c["verified"] for c in src.values.values()} == {"not verified"}
    assert src.values["aidanbench.answers"]["value"] == 99.0


def test_a_source_whose_folder_is_gone_is_never_made_again(run, tmp_path):
    gone = copy(run, tmp_path)
    src = source(gone)
    shutil.rmtree(gone)
    with pytest.raises(NeocoderError, match="no such run folder"):
        submissions._check_source(src, False)
    assert not gone.exists()


# ---------------------------------------------------------------- dataset and items

def test_the_default_set_and_its_items_are_accepted(run):
    src = source(run)
    assert src.items == tuple(sorted(QUESTIONS)) and src.default == 65
    submissions._check_items(src, benchmark("aidanbench"), RunFolder(run, create=False).read_manifest(), "w")


def check_items(src, bench=None, **extra):
    """``_check_items`` on ``src`` with its run's manifest (``extra`` added to its extra block)."""
    man = RunFolder(src.folder, create=False).read_manifest()
    man.extra.update(extra)
    return submissions._check_items(src, bench or benchmark("aidanbench"), man, "W")


DATASET = ("refused (dataset): W: not measured on the benchmark's known default set (a dataset, questions or "
           "keywords file of its own, another version, or a fingerprint other than the shipped files')")


def test_a_run_on_a_set_of_its_own_is_refused(run, tmp_path):
    own = copy(run, tmp_path)
    edit_json(own, "manifest.json", lambda m: m["config"].update(questions="mine.txt"))
    assert refused("dataset", check_items, source(own, default=65)) == DATASET
    assert refused("dataset", check_items, source(run, default=None)) == DATASET
    bench = replace(benchmark("aidanbench"), default_ids=None)
    assert refused("dataset", check_items, source(run), bench) == DATASET


def test_items_outside_the_default_set_or_none_are_refused(run):
    assert refused("items", check_items, source(run, items=None)) == "refused (items): W: the records name no item"
    made_up = source(run, items=(QUESTIONS[0], "b made up", "a made up"))
    assert refused("items", check_items, made_up) == (
        "refused (items): W: 2 items the default set does not hold, e.g. 'a made up'")


def test_a_problem_count_in_the_manifest_must_be_the_records(run):
    problem = replace(benchmark("aidanbench"), unit="problem")
    check_items(source(run), problem, problems=2)
    check_items(source(run), problem)  # no count claimed
    check_items(source(run), problems=7)  # a count of problems says nothing of questions
    for claimed, shown in ((3, "3"), (True, "True"), (2.0, "2.0"), ("2", "'2'")):
        assert refused("items", check_items, source(run), problem, problems=claimed) == (
            f"refused (items): W: manifest.json names {shown} problems, the records hold 2")


@pytest.mark.parametrize("outcome", [None, {}, [], {"unit": "question"}, {"unit": "question", "items": None},
                                     {"unit": "question", "items": 2}, {"unit": "question", "items": 3, "errors": 1},
                                     {"unit": "problem", "items": 5}, {"items": 5}])
def test_an_outcome_counting_the_records_finished_items_is_accepted(run, outcome):
    check_items(source(run, outcome=outcome))


@pytest.mark.parametrize("outcome, finished", [({"unit": "question", "items": 3}, 3),
                                               ({"unit": "question", "items": 2, "errors": 1}, 1),
                                               ({"unit": "question", "items": 4, "errors": 1}, 3)])
def test_an_outcome_counting_other_finished_items_is_refused(run, outcome, finished):
    assert refused("items", check_items, source(run, outcome=outcome)) == (
        f"refused (items): W: metrics.json counts {finished} finished questions, the records hold 2")


def test_an_outcome_that_is_not_an_object_is_refused(run):
    assert refused("types", check_items, source(run, outcome=["items"])) == (
        "refused (types): W: metrics.json outcome is not an object")


# ---------------------------------------------------------------- metrics

@pytest.mark.parametrize("a, b, differ", [
    (None, None, False), (None, 0.0, True), (0.0, None, True), (0.0, 0.0, False), (1e-9, 0.0, False),
    (0.0, 1.5e-9, True), (1.0, 1.0 + 1.5e-9, True), (1000.0, 1000.0 + 5e-7, False), (1000.0, 1000.0 + 2e-6, True)])
def test_numbers_differ_beyond_a_relative_tolerance_of_1e_9(a, b, differ):
    assert submissions._differs(a, b) is differ


def check_metrics(folder, bench=None, model=MODEL):
    src = source(folder)
    man = RunFolder(folder, create=False).read_manifest()
    metrics = json.loads((Path(folder) / "metrics.json").read_text())
    submissions._check_metrics(replace(src, model=model), bench or benchmark("aidanbench"), man, metrics, "W")
    return src


def test_the_recomputed_cells_replace_the_claimed_ones(run, tmp_path):
    src = source(run)
    metrics = json.loads((run / "metrics.json").read_text())["models"][MODEL]
    src.values["aidanbench.novelty_sum"].update(value=None, low=None, high=None)
    submissions._check_metrics(src, benchmark("aidanbench"), RunFolder(run, create=False).read_manifest(),
                               json.loads((run / "metrics.json").read_text()), "W")
    cell = src.values["aidanbench.novelty_sum"]
    interval = metrics["intervals"]["novelty_sum"]
    assert (cell["value"], cell["low"], cell["high"]) == (metrics["novelty_sum"], interval["low"], interval["high"])


def test_the_claimed_numbers_are_the_runs_models_among_several(run, tmp_path):
    edited = copy(run, tmp_path)

    def other(m):
        m["models"]["openai/other"] = json.loads(json.dumps(m["models"][MODEL]))
        m["models"]["openai/other"]["answers"] = 1
    edit_json(edited, "metrics.json", other)
    check_metrics(edited)
    edit_json(edited, "metrics.json", lambda m: m["models"][MODEL].update(answers=1))
    assert refused("metrics", check_metrics, edited) == (
        "refused (metrics): W: answers is 1 in metrics.json, 4 recomputed from the records")


def test_a_measure_without_a_cell_is_still_checked_and_given_none(run):
    src = source(run)
    del src.values["aidanbench.answers"]
    submissions._check_metrics(src, benchmark("aidanbench"), RunFolder(run, create=False).read_manifest(),
                               json.loads((run / "metrics.json").read_text()), "W")
    assert list(src.values) == ["aidanbench.novelty_sum"]


def test_a_blank_cell_of_mostly_unreadable_replies_stays_blank(run):
    src = source(run)
    src.values["aidanbench.answers"] = {"value": None, "low": None, "high": None, "unreadable": True}
    submissions._check_metrics(src, benchmark("aidanbench"), RunFolder(run, create=False).read_manifest(),
                               json.loads((run / "metrics.json").read_text()), "W")
    assert src.values["aidanbench.answers"] == {"value": None, "low": None, "high": None, "unreadable": True}


@pytest.mark.parametrize("part, path, what", [
    ("value", ("novelty_sum",), "novelty_sum"), ("low", ("intervals", "novelty_sum", "low"),
                                                 "novelty_sum's interval low"),
    ("high", ("intervals", "novelty_sum", "high"), "novelty_sum's interval high")])
def test_a_claimed_number_off_by_more_than_the_tolerance_is_refused_naming_it(run, tmp_path, part, path, what):
    edited = copy(run, tmp_path)
    block = json.loads((run / "metrics.json").read_text())["models"][MODEL]
    true = block
    for p in path:
        true = true[p]

    def change(m, by):
        inner = m["models"][MODEL]
        for p in path[:-1]:
            inner = inner[p]
        inner[path[-1]] = true + by
    edit_json(edited, "metrics.json", lambda m: change(m, 1e-12))
    check_metrics(edited)  # within the tolerance
    edit_json(edited, "metrics.json", lambda m: change(m, 0.5))
    assert refused("metrics", check_metrics, edited) == (
        f"refused (metrics): W: {what} is {true + 0.5} in metrics.json, {true} recomputed from the records")


def test_a_claimed_interval_missing_where_one_is_recomputed_is_refused(run, tmp_path):
    edited = copy(run, tmp_path)
    edit_json(edited, "metrics.json", lambda m: m["models"][MODEL]["intervals"].pop("answers"))
    assert refused("metrics", check_metrics, edited) == (
        "refused (metrics): W: answers's interval low is None in metrics.json, 4.0 recomputed from the records")


def test_a_claimed_number_that_is_a_string_is_refused_as_a_type(run, tmp_path):
    edited = copy(run, tmp_path)
    edit_json(edited, "metrics.json", lambda m: m["models"][MODEL]["intervals"]["answers"].update(high="4"))
    assert refused("types", check_metrics, edited) == (
        "refused (types): W: answers high in metrics.json is '4', not a number")


def test_metrics_that_cannot_be_recomputed_are_refused(run, tmp_path):
    edited = copy(run, tmp_path)
    edit_json(edited, "metrics.json", lambda m: m["bootstrap"].update(resamples=0))
    line = refused("metrics", check_metrics, edited)
    assert line.startswith("refused (metrics): W: cannot be recomputed from the records (") and "resamples" in line


def test_metrics_of_another_model_are_not_the_runs(run):
    assert refused("metrics", check_metrics, run, model="openai/other") == (
        "refused (metrics): W: answers is 4 in metrics.json, 0 recomputed from the records")


# ---------------------------------------------------------------- records

def verify_with(run, verify):
    src = source(run)
    bench = replace(benchmark("aidanbench"), verify=verify)
    return submissions._verify(src, bench, RunFolder(run, create=False).read_manifest(), "W")


def test_the_records_are_verified_in_an_empty_scratch_folder_removed_after(run):
    seen = {}

    def verify(folder, model, config, scratch):
        seen.update(folder=folder, model=model, config=config, scratch=scratch, empty=not any(scratch.iterdir()))
        return "checked"
    assert verify_with(run, verify) == "checked"
    assert (seen["folder"], seen["model"], seen["empty"]) == (run, MODEL, True)
    assert seen["config"] == RunFolder(run, create=False).read_manifest().config
    assert seen["scratch"].name.startswith("neocoder-board-") and not seen["scratch"].exists()
    assert verify_with(run, "neocoder.benchmarks.aidanbench.verify:rescore") == RESCORED


def test_records_that_disagree_or_cannot_be_verified_are_refused(run):
    def disagree(*_):
        raise RecordsDisagree("question 0: answers is 3 in records.jsonl, 2 re-scored")

    def cannot(*_):
        raise NeocoderError("the judge's grammar is unknown")
    assert refused("records", verify_with, run, disagree) == (
        "refused (records): W: question 0: answers is 3 in records.jsonl, 2 re-scored")
    assert refused("records", verify_with, run, cannot) == (
        "refused (records): W: cannot be verified (the judge's grammar is unknown)")


def test_settings_of_the_wrong_type_are_refused_not_a_traceback(run):
    """A manifest setting the re-run cannot read (``samples: "two"``: ``int()`` refuses it)."""
    def wrong_type(*_):
        int("two")
    assert refused("types", verify_with, run, wrong_type) == (
        "refused (types): W: manifest.json settings cannot be re-run: invalid literal for int() with base 10: 'two'")


@pytest.mark.parametrize("outcome", [{"unit": "question", "items": "2"}, {"unit": "question", "items": 2,
                                                                          "errors": None}])
def test_an_outcome_count_that_is_not_a_number_is_refused(run, outcome):
    refused("types", check_items, source(run, outcome=outcome))
