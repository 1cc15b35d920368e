"""NeoCoder inside inspect_ai, for real: `inspect eval neocoder/neocoder` with the recorded GPT-4
replies (the neocoder-replay model API) against `neocoder eval --model replay/gpt-4-1106-preview`
on the same 20 problems, the way back (`neocoder eval --model inspect/<log>`), and
`inspect view` of that log read in headless Chromium."""

import json
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from cdp import Chromium  # noqa: E402
from click.testing import CliRunner

# no skip: a missing inspect_ai fails here (scripts/setup.sh installs it, the [inspect] extra)
from inspect_ai.log import read_eval_log, write_eval_log  # noqa: E402
from inspect_runs import INSPECT, RATES, inspect_eval, log_rates  # noqa: E402

from neocoder.cli import main  # noqa: E402
from neocoder.errors import NeocoderError  # noqa: E402
from neocoder.models import NoRecordedReply, get_model  # noqa: E402
from neocoder.models.base import ModelError, Prompt, ReplayKey  # noqa: E402

LIMIT = 20


def neocoder_eval(out: Path, *args: str) -> dict:
    result = CliRunner().invoke(main, ["eval", *args, "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads((out / "metrics.json").read_text())


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("inspect")
    log = inspect_eval(root / "logs", "neocoder-replay/gpt-4-1106-preview", "-T", f"limit={LIMIT}")
    metrics = neocoder_eval(root / "replay", "--model", "replay/gpt-4-1106-preview", "--limit", str(LIMIT))
    return root, log, metrics


@pytest.mark.docker
def test_inspect_metrics_equal_neocoder_eval(runs):
    _, log_path, metrics = runs
    log = read_eval_log(str(log_path))
    assert log.status == "success" and len(log.samples) == sum(s["n"] + s["excluded"]
                                                                for s in metrics["states"].values())
    got = log_rates(log)
    assert set(got) == set(metrics["states"]) == {str(t) for t in range(6)}
    for t, state in metrics["states"].items():
        for ours, theirs in RATES.items():
            if state[theirs] is None:
                assert ours not in got[t]
            else:
                assert got[t][ours] == pytest.approx(state[theirs], abs=1e-12), (t, ours)
    # not all zero: the comparison has something to compare
    assert metrics["states"]["0"]["pass@1"] > 0 and metrics["states"]["0"]["neogauge"] > 0
    sample = log.samples[0]
    record = sample.scores["neocoder_scorer"].metadata["record"]
    assert record["problem_id"] == sample.metadata["problem_id"] and record["code"]


@pytest.mark.docker
def test_round_trip_through_an_inspect_log(runs):
    root, log_path, metrics = runs
    back = neocoder_eval(root / "back", "--model", f"inspect/{log_path}", "--limit", str(LIMIT))
    for t, state in metrics["states"].items():
        for rate in RATES.values():
            assert back["states"][t][rate] == state[rate], (t, rate)
        assert back["states"][t]["intervals"] == state["intervals"]
    assert back["model"] == f"inspect/{log_path}"


@pytest.mark.docker
def test_inspect_log_provider_names_the_log_and_the_sample(runs, tmp_path):
    _, log_path, _ = runs
    model = get_model(f"inspect/{log_path}")
    # a prompt other than the one the log answered (another dataset's statement) is refused, naming the field
    with pytest.raises(ModelError, match=rf"{log_path}.*1873C/t0/s0.*metadata.prompt_sha256"):
        model.generate(Prompt((), "", "", replay_key=ReplayKey("1873C", 0, 0)))
    with pytest.raises(NoRecordedReply, match=rf"{log_path}.*9999Z/t0/s0"):
        model.generate(Prompt((), "", "", replay_key=ReplayKey("9999Z", 0, 0)))
    log = read_eval_log(str(log_path))
    del log.samples[3].metadata["state"]
    bad = tmp_path / "bad.eval"
    write_eval_log(log, str(bad))
    with pytest.raises(NeocoderError, match=rf"bad.eval.*{log.samples[3].id}.*metadata.state"):
        get_model(f"inspect/{bad}")


def test_strategies_that_do_not_map_are_refused(tmp_path):
    done = subprocess.run([INSPECT, "eval", "neocoder/neocoder", "--model", "neocoder-replay/gpt-4-1106-preview",
                           "-T", "strategy=self-correct", "-T", "limit=1", "--log-dir", str(tmp_path),
                           "--display", "none"], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "strategy=self-correct" in done.stdout + done.stderr


# ------------------------------------------------------------------ inspect view in a real browser

@pytest.mark.docker
def test_inspect_view_shows_the_neocoder_scores(runs, tmp_path):
    from neocoder.models.local import free_port
    _, log_path, _ = runs
    log = read_eval_log(str(log_path))
    # a sample whose divergent score is neither 0 nor 1, so the page must show this sample's own value
    sample = next(s for s in log.samples if 0 < s.scores["neocoder_scorer"].value.get("divergent", 0) < 1)
    divergent = sample.scores["neocoder_scorer"].value["divergent"]
    port = free_port()
    server = subprocess.Popen([INSPECT, "view", "--log-dir", str(log_path.parent), "--host", "127.0.0.1",
                               "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    browser = None
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(base + "/api/logs", timeout=2) as r:
                    if log_path.name in r.read().decode():
                        break
            except OSError:
                time.sleep(0.5)
        browser = Chromium(tmp_path / "profile")
        url = f"{base}/#/logs/{log_path.name}/samples/sample/{urllib.parse.quote(sample.id, safe='')}/1/scoring"
        page = browser.page()
        page.call("Page.navigate", url=url)  # inspect's viewer routes by the hash: wait for what it shows
        page.wait_for("document.body && document.body.innerText.includes('neogauge')", limit=90, what="the scores")
        text = page.text()
    finally:
        if browser is not None:
            browser.close()
        server.terminate()
        server.wait(30)
    scores = text[text.index("SCORES"):]
    assert sample.id in text
    for name in ("pass", "follows", "convergent", "divergent", "neogauge"):
        assert name in scores, scores[:500]
    assert f"{divergent:g}"[:5] in scores.split("divergent")[0], scores[:500]


@pytest.mark.docker
def test_the_inspect_task_asks_for_and_judges_cpp(tmp_path, release_dir):
    """Issue 49: `-T language=cpp` sends the C++ prompt, and the reply's C++ block is compiled,
    judged and detected as C++ (a loopback OpenAI-compatible model answering a human's
    accepted C++ solution of 1701A)."""
    from loopback import RespondingServer

    from neocoder.techniques.human import solutions_by_language
    code = next(src for lang, src in solutions_by_language(release_dir, ["1701A"])["1701A"] if lang == "cpp")
    with RespondingServer(lambda kind, body: (f"```cpp\n{code}\n```", None)) as server:
        log_file = inspect_eval(tmp_path / "logs", "openai-api/loop/cpp-writer", "-T", "problems=1701A",
                                "-T", "states=0", "-T", "language=cpp",
                                env={"LOOP_BASE_URL": server.url, "LOOP_API_KEY": "k"})
        asked = [body["messages"][-1]["content"] for _, body in server.requests]
    assert asked and all("C++17" in text and "main()" in text for text in asked)
    log = read_eval_log(str(log_file))
    assert log_rates(log)["0"]["pass@1"] == 1.0
    (sample,) = log.samples
    record = next(iter(sample.scores.values())).metadata["record"]
    from neocoder.techniques import detect
    assert record["techniques"] == sorted(detect(code, "cpp")) and record["code"].strip() == code.strip()
