"""A plug-in installed as a package is found by every surface (issue 58): the words benchmark
of tests/test_benchmark_plugin.py, written out as a package whose pyproject declares it in
the entry point group ``neocoder.benchmarks``, built into a wheel offline (pip wheel, no
index, no build isolation: the setuptools of the test's own environment), installed into a
fresh virtual environment, and used there through the ``neocoder`` command only: its own
command, a ``neocoder serve`` job, ``suite``, ``report`` and ``leaderboard``.  Nothing in
that environment imports or registers it: the entry point is the only way it is known.

The fresh environment takes neocoder from this checkout and its dependencies from the test's
environment through a ``.pth`` file (offline: nothing is downloaded), and gets the
``neocoder`` launcher pip writes for neocoder's ``[project.scripts]``.  The model is a real
OpenAI-style endpoint on loopback (tests/support/loopback.py); one that answers 429 to every
call makes the run exit non-zero, and a rerun against a working one retries the prompts.
"""

import json
import os
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest
import requests
from loopback import FlakyServer, ScriptedServer
from servers import TOKEN, free_port, wait_job

import neocoder

CHECKOUT = Path(neocoder.__file__).resolve().parents[1]
PLUGIN_TEST = Path(__file__).with_name("test_benchmark_plugin.py")
REPLIES = ["red green blue", "red red blue"]
EXPECTED = (1.0 + 2 / 3) / 2

HEADER = '''"""The words benchmark (tests/test_benchmark_plugin.py) as an installed plug-in."""

import statistics
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup, escape

from neocoder.benchmarks.descriptor import DIVERGENT, FULL, QUICK, Benchmark, Measure
from neocoder.benchmarks.measures import model_value
from neocoder.config import PROGRESS, Config, ModelConfig
from neocoder.models.base import Prompt
from neocoder.options import Option, option
from neocoder.records import Record
from neocoder.report.sections.base import Section
from neocoder.runner import Task

'''

PYPROJECT = '''[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "neocoder-words"
version = "1.0"
dependencies = ["neocoder"]

[project.entry-points."neocoder.benchmarks"]
words = "neocoder_words:BENCHMARK"

[tool.setuptools]
packages = ["neocoder_words"]
'''

LAUNCHER = '''#!{python}
import sys
from neocoder.cli import main
if __name__ == "__main__":
    sys.exit(main())
'''


def plugin_source(root: Path) -> Path:
    """The plug-in's package: the benchmark block of tests/test_benchmark_plugin.py (between
    its two marker lines, so there is one definition of it) and ``BENCHMARK``."""
    text = PLUGIN_TEST.read_text()
    start = text.index("# -- the benchmark: everything a new benchmark package holds")
    end = text.index("# ------", start)
    package = root / "neocoder_words"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(HEADER + text[start:end] + "\nBENCHMARK = WORDS\n")
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root


def run(*args, check=True, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300, **kwargs)
    if check:
        assert done.returncode == 0, f"{args}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """``(neocoder launcher, environment)`` of a fresh virtual environment holding the plug-in's
    wheel (installed by pip, offline) and no other trace of it."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = plugin_source(tmp / "src")
    run(sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-q",
        "-w", tmp / "dist", source)
    (wheel,) = (tmp / "dist").glob("neocoder_words-1.0-*.whl")
    fresh = tmp / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", fresh)
    python = fresh / "bin" / "python"
    purelib = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    # neocoder from this checkout, its dependencies from the test's environment (no download), and the
    # data folders pyproject maps into the package (neocoder.codeforces, .prompts, ...) as the test's own
    # environment finds them (its editable install's finder, where it has one)
    here = Path(sysconfig.get_paths()["purelib"])
    hooks = "".join(f.read_text().strip() + "\n" for f in sorted(here.glob("__editable__*neocoder*.pth")))
    (purelib / "neocoder_checkout.pth").write_text(f"{CHECKOUT}\n{here}\n{hooks}")
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-index", "--no-deps", "-q", wheel)
    launcher = fresh / "bin" / "neocoder"
    launcher.write_text(LAUNCHER.format(python=python))
    launcher.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    shown = run(python, "-c", "import neocoder, neocoder_words; print(neocoder.__file__, neocoder_words.__file__)",
                env=env).stdout
    assert str(CHECKOUT) in shown and str(purelib) in shown  # this checkout's neocoder, the installed plug-in
    return launcher, env


def words(venv, url: str, out: Path, *extra) -> subprocess.CompletedProcess:
    launcher, env = venv
    return run(launcher, "words", "--model", "openai/m", "--base-url", url, "--api-key", "k", "--max-retries", "1",
               "--prompts", "2", "--out", out, "--quiet", *extra, check=False, env=env)


def test_its_command_finds_it_and_the_lost_items_rule_holds(venv, tmp_path):
    launcher, env = venv
    assert "words" in run(launcher, "--help", env=env).stdout.split()
    with ScriptedServer(REPLIES) as model:
        done = words(venv, model.url, tmp_path / "cli")
    assert done.returncode == 0, done.stderr
    metrics = json.loads((tmp_path / "cli" / "metrics.json").read_text())
    assert metrics["models"]["openai/m"]["distinct"] == pytest.approx(EXPECTED)
    assert metrics["outcome"]["judged"] == 2

    with FlakyServer(fail_first=10**6) as refusing:  # 429 to every call
        lost = words(venv, refusing.url, tmp_path / "429")
    assert lost.returncode == 1, lost.stdout + lost.stderr
    assert "2 of 2 prompts ended in error (2 x openai/m: RateLimitError" in lost.stderr
    assert json.loads((tmp_path / "429" / "metrics.json").read_text())["outcome"]["errors"] == 2
    with ScriptedServer(REPLIES) as model:
        again = words(venv, model.url, tmp_path / "429")
        assert again.returncode == 0 and model.requests == 2, again.stderr  # both prompts retried
    assert json.loads((tmp_path / "429" / "metrics.json").read_text())["models"]["openai/m"]["distinct"] == \
        pytest.approx(EXPECTED)


def test_suite_report_and_leaderboard_find_it(venv, tmp_path):
    launcher, env = venv
    with ScriptedServer(REPLIES) as model:
        run(launcher, "suite", "--model", "openai/m", "--base-url", model.url, "--api-key", "k", "--benchmarks",
            "words", "--preset", "quick", "--out", tmp_path / "suite", "--release", tmp_path, "--quiet", env=env)
    profile = json.loads((tmp_path / "suite" / "profile.json").read_text())
    assert [(m["benchmark"], m["key"]) for m in profile["measures"]] == [("words", "distinct")]
    assert profile["measures"][0]["value"] == pytest.approx(EXPECTED)
    run(launcher, "report", tmp_path / "suite" / "words", "--out", tmp_path / "report", env=env)
    page = (tmp_path / "report" / "index.html").read_text()
    assert "<section id='words'>" in page and "red green blue" in page
    run(launcher, "leaderboard", tmp_path / "suite", "--out", tmp_path / "board", "--no-published", env=env)
    board = (tmp_path / "board" / "index.html").read_text()
    assert "distinct words" in board and "Words: distinct words per reply" in board


def test_a_serve_job_finds_it(venv, tmp_path, release_dir):
    launcher, env = venv
    (tmp_path / "tokens.txt").write_text(TOKEN + "\n")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [str(launcher), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(tmp_path / "data"),
         "--tokens-file", str(tmp_path / "tokens.txt"), "--release", str(release_dir), "--sandbox", "process",
         "--workers", "1", "--allow-endpoint", "127.0.0.1", "--allow-task", "words"],
        stdout=log, stderr=subprocess.STDOUT, env=env)

    class Calls:
        def call(self, method, path, **kwargs):
            return requests.request(method, url + path, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60,
                                    **kwargs)
    try:
        for _ in range(600):
            assert server.poll() is None, (tmp_path / "server.log").read_text()
            try:
                if requests.get(url + "/healthz", timeout=5).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            time.sleep(0.3)
        with ScriptedServer(REPLIES) as model:
            made = Calls().call("POST", "/v1/runs", json={"task": "words", "config": {
                "model": {"spec": "openai/m", "base_url": model.url}, "prompts": 2}})
            assert made.status_code in (200, 201, 202), made.text
            ended = wait_job(Calls(), made.json()["id"], timeout=120, route="/v1/runs")
    finally:
        server.terminate()
        server.wait(timeout=120)
    assert ended["status"] == "succeeded", ended
    assert ended["metrics"]["models"]["openai/m"]["distinct"] == pytest.approx(EXPECTED)
    assert ended["metrics"]["outcome"]["judged"] == 2
