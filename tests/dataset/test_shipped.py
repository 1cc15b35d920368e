"""The dataset shipped in data/codeforces (neocoder/dataset/shipped.py): what it holds,
that it is the one the code would build now, that a build from the release reproduces it
byte for byte (a slice here; the whole release is scripts/ship_dataset.sh), in both release
layouts, and that an eval needs no release."""

import gzip
import json
import os
from collections import Counter

import pytest
from click.testing import CliRunner

from neocoder.cli import main
from neocoder.dataset import shipped
from neocoder.dataset.release import HUMAN_FILE
from neocoder.models.replay import ReleaseReplay
from neocoder.techniques.human import detector_fingerprint, human_solution_sets, human_solution_techniques

SLICE = ["1901A", "1899A", "1898A"]  # the release's first three problems


def test_the_shipped_files_match_their_manifest():
    data = shipped.manifest()
    assert shipped.version() == f"codeforces-{shipped.VERSION}" == "codeforces-1.0"
    states = shipped.load_states()
    # the paper's Table 1 counts: problems with exactly t distinct constraints
    assert Counter(s.state for s in states) == {0: 199, 1: 199, 2: 198, 3: 194, 4: 176, 5: 97}
    assert data["counts"] == {"problems": 199, "problem_states": 1063, "human_problems": 199,
                              "recorded_problems": 199}
    assert [s.problem_id for s in states[:7:6]] == SLICE[:2] and all(s.tests for s in states)
    assert sum(bool(s.extended_tests) for s in states) > 700
    assert set(data["files"]) == {shipped.STATES_FILE, shipped.HUMAN_FILE, shipped.NOTICE_FILE,
                                  *shipped.REPLY_FILES.values()}
    assert "Apache License" in (shipped._root() / "NOTICE").read_text()


def test_the_shipped_files_are_what_this_code_would_build(release_dir):
    """A changed builder, detector or release makes the shipped files stale: rebuild them."""
    data = shipped.manifest()
    hint = "stale data/codeforces: run scripts/ship_dataset.sh (and bump shipped.VERSION if a data file changed)"
    assert data["builder_sha256"] == shipped.builder_fingerprint(), hint
    assert data["detector_sha256"] == detector_fingerprint(), hint
    assert data["release_sha256"] == shipped.release_fingerprint(release_dir), hint
    assert data["build"] == {"extended": 20, "label_humans": 10, "seed": 0, "limit": None}


def test_a_corrupted_file_is_refused(monkeypatch):
    monkeypatch.setitem(shipped.manifest()["files"], shipped.HUMAN_FILE, "0" * 64)
    shipped._human.cache_clear()
    try:
        with pytest.raises(shipped.ShippedDataError, match="SHA-256 differs"):
            human_solution_sets(["1901A"])
    finally:
        monkeypatch.undo()
        shipped._human.cache_clear()


def test_shipped_human_sets_and_codes_are_the_releases(release_dir):
    detected = human_solution_techniques(release_dir, SLICE + ["1773F"])
    assert human_solution_sets(SLICE + ["1773F"]) == detected
    assert human_solution_sets(["1773F"]) == {"1773F": []}  # no accepted solution in the release
    recorded = ReleaseReplay("replay/gpt-4-1106-preview", "gpt-4-1106-preview").codes
    assert recorded == ReleaseReplay("replay/x", "gpt-4-1106-preview", release_dir).codes
    assert len(recorded) == 199 and all(len(c) == 6 for c in recorded.values())


def _repository_clone(release_dir, root):
    """The NeoCoder repository's layout: the benchmark files under
    datasets/CodeForce/NeoCoder, the crawl under datasets/CodeForce/crawled."""
    bench = root / "datasets" / "CodeForce" / "NeoCoder"
    bench.mkdir(parents=True)
    for name in ("NeoCoder.json", "test_cases_annotated.json", HUMAN_FILE, "human_solution_techniques.json"):
        os.symlink(release_dir / name, bench / name)
    os.symlink(release_dir / "crawled", root / "datasets" / "CodeForce" / "crawled")
    return root


@pytest.fixture(scope="module")
def slice_builds(release_dir, tmp_path_factory):
    """build-dataset --limit 3 from the release folder and from a repository clone."""
    base = tmp_path_factory.mktemp("ship")
    clone = _repository_clone(release_dir, base / "clone")
    outs = {}
    for name, source in (("folder", release_dir), ("clone", clone)):
        outs[name] = base / name
        result = CliRunner().invoke(main, ["build-dataset", "--from-release", str(source), "--out", str(outs[name]),
                                           "--limit", "3", "--quiet", "--workers", "2"])
        assert result.exit_code == 0, result.output
    return outs


@pytest.mark.docker
def test_a_build_from_either_layout_reproduces_the_shipped_slice(slice_builds, tmp_path):
    folder, clone = slice_builds["folder"] / "package", slice_builds["clone"] / "package"
    built = json.loads((folder / shipped.MANIFEST_FILE).read_text())
    assert built["build"]["limit"] == 3 and built["counts"]["problems"] == 3
    # the same three problems written from the shipped files give the same bytes
    states = [s for s in shipped.load_states() if s.problem_id in SLICE]
    codes = {p: c for p, c in shipped.recorded_codes("gpt-4-1106-preview").items() if p in SLICE}
    provenance = {k: built[k] for k in ("release_sha256", "builder_sha256", "detector_sha256", "build")}
    expected = shipped.write_package(tmp_path / "expected", states, human_solution_sets(SLICE), codes, provenance)
    assert expected == built
    for name in built["files"]:
        assert (folder / name).read_bytes() == (tmp_path / "expected" / name).read_bytes(), name
        assert (clone / name).read_bytes() == (folder / name).read_bytes(), name
    assert (clone / shipped.MANIFEST_FILE).read_bytes() == (folder / shipped.MANIFEST_FILE).read_bytes()
    lines = gzip.decompress((folder / shipped.STATES_FILE).read_bytes()).decode().splitlines()
    assert len(lines) == len(states) == 15


@pytest.mark.docker
def test_eval_and_the_human_baseline_need_no_release(tmp_path, monkeypatch):
    """No release anywhere: the shipped dataset, human sets and recorded codes suffice;
    what needs a release (--dataset release) says where one comes from."""
    monkeypatch.setenv("NEOCODER_RELEASE", str(tmp_path / "no-release"))
    monkeypatch.chdir(tmp_path)
    run = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "3", "--states", "0-1",
                                    "--out", "run", "--quiet", "--workers", "2"])
    assert run.exit_code == 0, run.output
    assert "dataset: validated (shipped codeforces-1.0)" in run.output
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["extra"]["dataset_version"] == "codeforces-1.0"
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["states"]["0"]["n"] == 3 and metrics["states"]["0"]["divergent"] is not None
    human = CliRunner().invoke(main, ["eval", "--model", "human", "--limit", "3", "--out", "human", "--quiet"])
    assert human.exit_code == 0, human.output
    solutions = sum(len(sets) for sets in human_solution_sets(SLICE).values())  # n counts solutions
    assert json.loads((tmp_path / "human" / "metrics.json").read_text())["states"]["0"]["n"] == solutions == 89
    refused = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--dataset", "release",
                                        "--out", "other", "--quiet"])
    assert refused.exit_code != 0
    assert "NeoCoder.json" in refused.output and "needed only to rebuild" in refused.output


@pytest.mark.docker
def test_a_run_folder_is_not_resumed_on_another_dataset(tmp_path, release_dir):
    args = ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "1", "--states", "0", "--out",
            str(tmp_path / "run"), "--quiet", "--workers", "1", "--release", str(release_dir)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    other = CliRunner().invoke(main, args + ["--dataset", "release"])
    assert other.exit_code != 0
    assert "judged on dataset codeforces-1.0, not release-examples-" in " ".join(other.output.split())


def test_release_examples_of_another_release_use_its_own_codes_and_humans(tmp_path, release_dir):
    """--dataset release names a release: one that is not the shipped one (here a copy with
    one recorded code changed) answers with its own codes and its own human sets."""
    from neocoder.benchmarks.neocoder.config import EvalConfig
    from neocoder.benchmarks.neocoder.evaluation import own_release
    from neocoder.config import ModelConfig
    copy = tmp_path / "release"
    copy.mkdir()
    for name in ("test_cases_annotated.json", HUMAN_FILE):
        os.symlink(release_dir / name, copy / name)
    problems = json.loads((release_dir / "NeoCoder.json").read_text())
    problems[0]["codes"][0] = "def solve():\n    print('changed')\n"
    (copy / "NeoCoder.json").write_text(json.dumps(problems))
    config = lambda where: EvalConfig(ModelConfig("replay/gpt-4-1106-preview"), tmp_path / "out", where,  # noqa: E731
                                      dataset="release")
    assert own_release(config(release_dir)) is None  # the shipped release: the shipped codes and sets serve
    assert own_release(config(copy)) == copy
    assert own_release(EvalConfig(ModelConfig("replay/gpt-4-1106-preview"), tmp_path / "o", copy)) is None
    codes = ReleaseReplay("replay/x", "gpt-4-1106-preview", own_release(config(copy))).codes
    assert codes[problems[0]["problem_id"]][0] == "def solve():\n    print('changed')\n"
    assert human_solution_sets(SLICE, copy) == human_solution_sets(SLICE)  # same humans, detected from the copy
