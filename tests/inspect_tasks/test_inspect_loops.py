"""`inspect eval neocoder/aidanbench` runs neocoder's own AidanBench loop with inspect's model and
scores like `neocoder aidanbench` on the same endpoint: a scripted OpenAI-compatible server on
127.0.0.1, reached by inspect's openai-api provider and by neocoder's openai provider alike."""

import json
import re

import pytest
from click.testing import CliRunner
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_runs import inspect_eval_task  # noqa: E402
from loopback import RespondingServer  # noqa: E402

from neocoder.cli import main  # noqa: E402

# the k-th answer to any question; the third repeats the first, so novelty drops to 0 and the question stops
ANSWERS = ["Deflation kept real interest rates high while banks hid bad loans.",
           "An ageing, shrinking workforce lowered growth and demand for decades.",
           "Deflation kept real interest rates high while banks hid bad loans."]


def respond(kind, body):
    user = body["messages"][-1]["content"]
    previous = 0 if "(none yet)" in user else len(re.findall(r"^\d+\. ", user, re.M))
    return ANSWERS[min(previous, len(ANSWERS) - 1)], None


def test_aidanbench_in_inspect_equals_neocoder_aidanbench(tmp_path):
    with RespondingServer(respond) as server:
        result = CliRunner().invoke(main, ["aidanbench", "--model", "openai/scripted", "--base-url", server.url,
                                           "--api-key", "x", "--judge", "none", "--limit", "2",
                                           "--out", str(tmp_path / "neocoder"), "--quiet"])
        assert result.exit_code == 0, result.output
        log_path = inspect_eval_task("neocoder/aidanbench", tmp_path / "logs", "openai-api/scripted/scripted",
                                     "-T", "limit=2",
                                     env={"SCRIPTED_BASE_URL": server.url, "SCRIPTED_API_KEY": "x"})
    totals = json.loads((tmp_path / "neocoder" / "metrics.json").read_text())["models"]["openai/scripted"]
    log = read_eval_log(str(log_path))
    got = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert totals["answers"] == 4 and totals["questions"] == 2  # two answers kept per question
    for name in ("questions", "answers", "novelty_sum", "errors"):
        assert got[name] == pytest.approx(totals[name], abs=1e-9), name
    for sample in log.samples:
        assert sample.metadata["result"]["stop_reason"] == "repetitive"
        assert [a["answer"] for a in sample.metadata["answers"]] == ANSWERS



def test_ideas_in_inspect_equals_neocoder_ideas(tmp_path):
    from panel import PanelServer, scripted
    keywords = tmp_path / "keywords.csv"
    keywords.write_text("keyword,category\nmeteorology,Earth science\nsoil,Biology\n")
    panel = "openai/j1,openai/j2,openai/j3"
    with PanelServer(scripted()) as server:
        result = CliRunner().invoke(main, ["ideas", "--model", "openai/w", "--base-url", server.url, "--api-key", "x",
                                           "--judges", panel, "--keywords", str(keywords), "--limit", "2",
                                           "--out", str(tmp_path / "neocoder"), "--quiet"])
        assert result.exit_code == 0, result.output
        log_path = inspect_eval_task("neocoder/ideas", tmp_path / "logs", "openai-api/panel/w",
                                     "-T", f"judges={panel}", "-T", f"judge_base_url={server.url}",
                                     "-T", f"keywords={keywords}", "-T", "limit=2",
                                     env={"PANEL_BASE_URL": server.url, "PANEL_API_KEY": "x", "OPENAI_API_KEY": "x"})
    summary = json.loads((tmp_path / "neocoder" / "metrics.json").read_text())["models"]["openai/w"]
    log = read_eval_log(str(log_path))
    got = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert summary["kept"] == 6 and summary["judgements"] == 18  # 3 ideas per keyword, 3 judges each
    for name in ("originality", "feasibility", "clarity", "fluency", "flexibility"):
        assert got[name] == pytest.approx(summary[name], abs=1e-9), name
