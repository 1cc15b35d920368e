"""No secret in anything a run writes or shows (issue 56, item 1).

Every benchmark that calls a model (eval, aidanbench, ideas, framework) and the suite run
through the real ``neocoder`` program (a subprocess, so the manifest records its real
argv) against the scripted OpenAI-style endpoint on loopback (tests/support/scripted_models.py),
with a marked key given as ``--api-key KEY``, ``--api-key=KEY``, ``$OPENAI_API_KEY`` or the
password of ``--base-url``.  Then the run folder (every file, sub-runs included), its
report (``neocoder report``), its export (``neocoder export``), a board submission
(``neocoder board add``; these three in this process, through click's runner) and every
command's stdout and stderr are searched for the key,
raw and encoded (URL-encoded, JSON-escaped, base64 at each alignment, hex); and the
manifest's command must hold the placeholder where the key was given, so the search
cannot pass by looking in the wrong place.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import subprocess
import sys
import traceback
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from checkout import CHECKOUT
from click.testing import CliRunner
from scripted_models import ScriptedModels
from suite_runs import liveideabench_dir

from neocoder.cli import main

REDACTED = "<redacted>"
MARK = f"sk-MARKED-{secrets.token_hex(16)}"


def forms(mark: str) -> dict[str, bytes]:
    """The marked key as a file or an output might hold it: raw, URL-encoded, JSON-escaped,
    hex, and base64 at each of the three alignments (the part of it no neighbour changes)."""
    raw = mark.encode()
    out = {"raw": raw, "url": quote(mark, safe="").encode(), "url+": quote_plus(mark).encode(),
           "json": json.dumps(mark)[1:-1].encode(), "hex": raw.hex().encode(), "HEX": raw.hex().upper().encode()}
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw)
        out[f"base64/{shift}"] = encoded[(shift * 4 + 2) // 3 + 1:-4]
    return out


FORMS = forms(MARK)


def leaks(texts: dict[str, bytes]) -> list[str]:
    """``where (form)`` for every text holding the marked key in any of its forms."""
    return [f"{where} ({name})" for where, text in texts.items() for name, form in FORMS.items() if form in text]


def files(*folders: Path) -> dict[str, bytes]:
    """Every file under ``folders`` (recursively), by path, as bytes."""
    found = {}
    for folder in folders:
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file():
                found[str(path)] = path.read_bytes()
    return found


def environment(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return {**env, "PYTHONPATH": str(CHECKOUT), "LIVEIDEABENCH_DIR": liveideabench_dir(), **extra}


def neocoder(args: list[str], cwd: Path, **env) -> subprocess.CompletedProcess:
    """``neocoder ARGS`` as a user runs it (this checkout's code), its output captured."""
    return subprocess.run([sys.executable, "-m", "neocoder.cli", *map(str, args)], cwd=cwd, env=environment(**env),
                          capture_output=True, timeout=600)


def outputs(name: str, done: subprocess.CompletedProcess) -> dict[str, bytes]:
    return {f"{name} stdout": done.stdout, f"{name} stderr": done.stderr}


def everything_of(run: Path, tmp_path: Path, said: dict[str, bytes], reported: list[Path]) -> dict[str, bytes]:
    """What the run wrote and showed, with the report of its runs (``reported``: itself, or
    a suite's sub-runs), its export and board submission (each command's output too,
    whether it made one or refused the run by its own rule)."""
    texts = dict(said)
    report, board = tmp_path / f"{run.name}-report", tmp_path / f"{run.name}-board"
    done = shown("report", ["report", *reported, "--out", report], texts)
    assert done.exit_code == 0 and (report / "index.html").is_file(), done.output[-2000:]
    shown("export", ["export", run], texts)  # into RUN/export, or refused by its own rule
    shown("board add", ["board", "add", run, "--board", board, "--submitter", "tester"], texts)
    texts.update(files(run, report, board))
    return texts


def shown(name: str, args: list, texts: dict[str, bytes]):
    """``neocoder ARGS`` in this process (no run is started, so no argv is recorded):
    what it printed, and any traceback, go into ``texts``."""
    done = CliRunner().invoke(main, [str(a) for a in args])
    texts[f"{name} output"] = done.stdout_bytes + (done.stderr_bytes or b"")
    if done.exc_info is not None and not isinstance(done.exception, SystemExit):
        texts[f"{name} traceback"] = "".join(traceback.format_exception(*done.exc_info)).encode()
    return done


def command_of(folder: Path) -> list[str]:
    return json.loads((folder / "manifest.json").read_text())["command"]


def placeholder_given(command: list[str]) -> bool:
    """The recorded command keeps ``--api-key`` with the placeholder as its value."""
    pairs = zip(command, command[1:])
    return any(a == "--api-key" and b == REDACTED for a, b in pairs) or f"--api-key={REDACTED}" in command


@pytest.fixture(scope="module")
def endpoint():
    server = ScriptedModels(programs_for={"coder"}, quoting={"refused": 401, "failing": 500})
    yield server
    server.close()


def keywords_file(tmp_path: Path) -> Path:
    path = tmp_path / "keywords.csv"
    path.write_text("keyword,category\nsoil,Biology\n", encoding="utf-8")
    return path


def hypogen_file(tmp_path: Path) -> Path:
    path = tmp_path / "hypogen.jsonl"
    path.write_text('{"bit": "Bit 0 holds.", "flip": "Flip 0 holds."}\n', encoding="utf-8")
    return path


def check_run(run: Path, tmp_path: Path, done: subprocess.CompletedProcess, name: str, placeholder: bool = True,
              reported: list[Path] | None = None):
    assert done.returncode == 0, done.stderr[-3000:].decode(errors="replace")
    texts = everything_of(run, tmp_path, outputs(name, done), reported or [run])
    assert any(p.endswith("calls.jsonl") for p in texts), "no call cache written: the calls were not searched"
    assert not leaks(texts), leaks(texts)
    manifests = [p for p in texts if p.endswith("manifest.json")]
    for path in manifests:  # the suite's own and each sub-run's
        command = command_of(Path(path).parent)
        assert placeholder_given(command) == placeholder, (path, command)
    return texts


@pytest.mark.docker
def test_eval_records_the_key_as_a_placeholder(tmp_path, endpoint, release_dir):
    run = tmp_path / "eval"
    done = neocoder(["eval", "--model", "openai/coder", "--base-url", endpoint.url, "--api-key", MARK,
                     "--limit", "1", "--states", "0", "--bootstrap", "100", "--workers", "1", "--out", run,
                     "--quiet"], tmp_path)
    check_run(run, tmp_path, done, "eval")
    samples = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    assert samples and any(s.get("code") for s in samples)  # the scripted program was judged


def test_aidanbench_records_the_key_given_as_flag_equals_value(tmp_path, endpoint):
    run = tmp_path / "aidanbench"
    done = neocoder(["aidanbench", "--model", "openai/answerer", "--judge", "openai/judge", "--embedder",
                     "openai/embed", "--base-url", endpoint.url, f"--api-key={MARK}", "--limit", "1",
                     "--max-answers", "3", "--bootstrap", "100", "--out", run, "--quiet"], tmp_path)
    check_run(run, tmp_path, done, "aidanbench")
    assert f"--api-key={REDACTED}" in command_of(run)


def test_ideas_with_the_key_in_the_environment_writes_it_nowhere(tmp_path, endpoint):
    run = tmp_path / "ideas"
    done = neocoder(["ideas", "--model", "openai/writer", "--judges", "openai/j1,openai/j22,openai/j333",
                     "--base-url", endpoint.url, "--keywords", keywords_file(tmp_path), "--ideas-per-keyword", "2",
                     "--bootstrap", "100", "--out", run, "--quiet"], tmp_path, OPENAI_API_KEY=MARK)
    check_run(run, tmp_path, done, "ideas", placeholder=False)


def test_framework_with_the_key_in_the_base_url_records_it_redacted(tmp_path, endpoint):
    run = tmp_path / "framework"
    url = endpoint.url.replace("http://", f"http://user:{MARK}@")
    done = neocoder(["framework", "--domain", "hypogen", "--data", hypogen_file(tmp_path), "--model", "openai/gen",
                     "--base-url", url, "--api-key", MARK, "--api", "completion", "--judges", "chateval",
                     "--entailment", "llm", "--candidates", "2", "--max-steps", "3", "--limit", "1",
                     "--bootstrap", "100", "--out", run, "--quiet"], tmp_path)
    check_run(run, tmp_path, done, "framework")
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["config"]["model"]["base_url"] == endpoint.url.replace("http://", f"http://user:{REDACTED}@")
    assert url.replace(MARK, REDACTED) in manifest["command"]


def test_suite_and_its_sub_runs_record_the_key_as_a_placeholder(tmp_path, endpoint):
    run = tmp_path / "suite"
    done = neocoder(["suite", "--model", "openai/stand", "--judge", "openai/j1", "--judge", "openai/j22",
                     "--judge", "openai/j333", "--embedder", "openai/embed", "--benchmarks", "aidanbench,ideas",
                     "--base-url", endpoint.url, "--api-key", MARK, "--bootstrap", "100", "--out", run, "--quiet"],
                    tmp_path)
    texts = check_run(run, tmp_path, done, "suite", reported=[run / "aidanbench", run / "ideas"])
    assert {Path(p).parent.name for p in texts if p.endswith("manifest.json")} >= {"suite", "aidanbench", "ideas"}


@pytest.mark.parametrize("model", ["refused", "failing"])
def test_a_key_an_endpoint_quotes_back_is_not_shown_or_recorded(tmp_path, endpoint, model):
    """A provider that quotes the key in its error: refused (401), the run stops with one
    line; failed (500), each item is recorded with its error and the run fails for its lost
    items.  Neither the line nor the run folder (records, metrics) holds the key."""
    run = tmp_path / model
    done = neocoder(["aidanbench", "--model", f"openai/{model}", "--judge", "openai/judge", "--embedder",
                     "openai/embed", "--base-url", endpoint.url, "--api-key", MARK, "--max-retries", "0",
                     "--limit", "1", "--max-answers", "2", "--bootstrap", "100", "--out", run, "--quiet"], tmp_path)
    assert done.returncode != 0
    assert b"Incorrect API key provided: " + REDACTED.encode() in done.stderr, done.stderr[-2000:]
    texts = {**outputs(model, done), **files(run)}
    assert not leaks(texts), leaks(texts)
    assert placeholder_given(command_of(run))
    if model == "failing":  # the error is kept with the item, and counted in metrics.json
        assert REDACTED.encode() in texts[str(run / "records.jsonl")]
        assert REDACTED in json.dumps(json.loads((run / "metrics.json").read_text())["outcome"]["reasons"])


def test_the_search_finds_the_key_in_every_form():
    """The search itself: each form of the marked key is found where it was written."""
    for name, form in FORMS.items():
        assert leaks({"text": b"x" + form + b"y"}), name
    assert leaks({"basic auth": b"Basic " + base64.b64encode(b"user:" + MARK.encode())})
    assert not leaks({"redacted": f"--api-key {REDACTED}".encode()})


def test_the_rule_by_hand():
    from neocoder.config import ModelConfig
    from neocoder.redaction import declare_flag, redact_argv, redact_text, redact_url
    declare_flag("--api-key")
    key = f"sk-HAND-{secrets.token_hex(8)}"
    ModelConfig("openai/m", api_key=key)  # a key given through the Python API is known as well
    assert redact_argv(["neocoder", "--api-key", "k", f"--api-key={key}", "--judge", "x", f"--note={key}"]) == [
        "neocoder", "--api-key", REDACTED, f"--api-key={REDACTED}", "--judge", "x", f"--note={REDACTED}"]
    assert redact_text(f"said {quote(key)} and {json.dumps(key)}") == f'said {REDACTED} and "{REDACTED}"'
    assert redact_text("a key k and none") == "a key k and none"  # too short to search for: only after its flag
    assert redact_url("http://u:pw@127.0.0.1:8/v1?api_key=abc&x=1") == f"http://u:{REDACTED}@127.0.0.1:8/v1?api_key=" \
        f"{REDACTED}&x=1"
    assert redact_url("https://tok@host/x") == f"https://{REDACTED}@host/x"
    assert redact_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1" and redact_url(None) is None
