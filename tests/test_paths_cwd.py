"""The shared inputs never depend on the current folder (issue 58, part E).

The NeoCoder release and LiveIdeaBench's folder are found by their own variable
(``$NEOCODER_RELEASE``, ``$LIVEIDEABENCH_DIR``), else ``$NEOCODER_SHARED/<name>``, else
``shared/<name>`` beside the checkout neocoder is imported from (neocoder/paths.py).  The
commands run as a user runs them (subprocesses of this checkout's code) from a folder of
their own, with the real release and LiveIdeaBench files in ../shared and the scripted
endpoint on loopback: each finds its input, or says which one is missing and how to point
at it, and the manifest records the release folder actually read, absolute.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import CHECKOUT, SHARED
from scripted_models import ScriptedModels

from neocoder.benchmarks.ideas.sources import liveideabench_dir, load_keywords
from neocoder.dataset import default_release_dir
from neocoder.errors import NeocoderError
from neocoder.paths import LIVEIDEABENCH, RELEASE, checkout_root, shared_place

VARIABLES = ("NEOCODER_RELEASE", "LIVEIDEABENCH_DIR", "NEOCODER_SHARED")
PUBLISHED_MODEL = "gemini-pro-1.5"  # the first row of LiveIdeaBench's December 2024 leaderboard


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """This process in a folder of its own, with none of the variables set."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return monkeypatch


def test_without_a_variable_the_inputs_are_beside_the_checkout_from_any_folder(tmp_path, elsewhere):
    assert (SHARED / "neocoder").is_dir() and (SHARED / "liveideabench").is_dir(), "put shared/ beside the checkout"
    found = (default_release_dir(), liveideabench_dir())
    assert all(p.is_absolute() for p in found)
    assert tuple(p.resolve() for p in found) == ((SHARED / "neocoder").resolve(), (SHARED / "liveideabench").resolve())
    (tmp_path / "deeper").mkdir()
    elsewhere.chdir(tmp_path / "deeper")
    assert (default_release_dir(), liveideabench_dir()) == found
    assert len(load_keywords()) == 1180


def test_a_variable_given_is_read_absolute_and_never_passed_over(tmp_path, elsewhere):
    elsewhere.setenv("NEOCODER_SHARED", "mine")
    assert shared_place(RELEASE) == (tmp_path / "mine" / "neocoder", "$NEOCODER_SHARED/neocoder")
    assert liveideabench_dir() == tmp_path / "mine" / "liveideabench"
    elsewhere.setenv("NEOCODER_RELEASE", "release")  # the input's own variable comes first
    assert shared_place(RELEASE) == (tmp_path / "release", "$NEOCODER_RELEASE")
    elsewhere.setenv("LIVEIDEABENCH_DIR", str(tmp_path / "nowhere"))  # missing, yet not passed over
    with pytest.raises(NeocoderError) as missing:
        load_keywords()
    said = str(missing.value)
    assert said.startswith(f"{tmp_path / 'nowhere' / 'keywords.csv'}: not found")
    assert all(word in said for word in ("$LIVEIDEABENCH_DIR", "NEOCODER_SHARED", "--keywords FILE"))


def test_only_a_checkout_has_shared_beside_it(tmp_path, elsewhere):
    package = tmp_path / "site-packages" / "neocoder"
    package.mkdir(parents=True)
    assert checkout_root(package) is None  # an installed package: no checkout around it
    folder, how = shared_place(LIVEIDEABENCH, package)
    assert folder == Path.home() / ".local" / "share" / "neocoder" / "liveideabench" and "installed" in how
    (tmp_path / "site-packages" / "pyproject.toml").write_text("[project]\nname = 'neocoder'\n")
    assert checkout_root(package) == tmp_path / "site-packages"
    assert shared_place(LIVEIDEABENCH, package)[0] == tmp_path / "shared" / "liveideabench"
    assert checkout_root() == CHECKOUT


def neocoder(args: list, cwd: Path, **env) -> subprocess.CompletedProcess:
    """``neocoder ARGS`` run in ``cwd`` with this checkout's code, none of the variables but ``env``'s."""
    base = {k: v for k, v in os.environ.items() if k not in VARIABLES + ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return subprocess.run([sys.executable, "-m", "neocoder.cli", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env={**base, "PYTHONPATH": str(CHECKOUT), **env})


def test_build_dataset_from_another_folder_reads_and_records_the_release_beside_the_checkout(tmp_path):
    args = ["build-dataset", "--no-oracle", "--limit", "1", "--quiet"]
    done = neocoder([*args, "--out", "found"], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    manifest = json.loads((tmp_path / "found" / "manifest.json").read_text())
    assert manifest["config"]["release_dir"] == str(SHARED.resolve() / "neocoder")
    # a release given relative to the folder it is run from is recorded as the folder read, absolute
    (tmp_path / "here").symlink_to(SHARED / "neocoder", target_is_directory=True)
    done = neocoder([*args, "--from-release", "here", "--out", "given"], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads((tmp_path / "given" / "manifest.json").read_text())["config"]["release_dir"] == \
        str(SHARED.resolve() / "neocoder")
    # the other direction: a variable naming no release says which input is missing and how to point at it
    done = neocoder([*args, "--out", "missing"], tmp_path, NEOCODER_RELEASE="nowhere")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert str(tmp_path / "nowhere" / "NeoCoder.json") in done.stderr and "NEOCODER_RELEASE" in done.stderr
    assert not (tmp_path / "missing" / "records.jsonl").exists()


def test_ideas_and_its_report_from_another_folder_find_liveideabench_beside_the_checkout(tmp_path):
    with ScriptedModels() as endpoint:
        args = ["ideas", "--model", "openai/writer", "--judges", "openai/j1,openai/j22,openai/j333", "--base-url",
                endpoint.url, "--limit", "1", "--ideas-per-keyword", "2", "--bootstrap", "100", "--quiet"]
        done = neocoder([*args, "--out", "run"], tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        assert PUBLISHED_MODEL in done.stdout  # the published leaderboard's rows beside the run's
        # the other direction: LiveIdeaBench's folder named wrong: one line naming it, nothing run
        requests = endpoint.requests
        done = neocoder([*args, "--out", "run2"], tmp_path, LIVEIDEABENCH_DIR="nowhere")
        assert done.returncode == 1 and "Traceback" not in done.stderr and endpoint.requests == requests
        assert f"{tmp_path / 'nowhere' / 'keywords.csv'}: not found" in done.stderr
        assert "LIVEIDEABENCH_DIR" in done.stderr and "--keywords FILE" in done.stderr
    done = neocoder(["report", "run", "--out", "report"], tmp_path)
    assert done.returncode == 0 and PUBLISHED_MODEL in (tmp_path / "report" / "index.html").read_text()
    done = neocoder(["report", "run", "--out", "unpublished"], tmp_path, LIVEIDEABENCH_DIR="nowhere")
    page = (tmp_path / "unpublished" / "index.html").read_text()
    assert done.returncode == 0 and PUBLISHED_MODEL not in page
    assert f"{tmp_path / 'nowhere' / 'leaderboard-202412.csv'}: not found" in page and "LIVEIDEABENCH_DIR" in page
