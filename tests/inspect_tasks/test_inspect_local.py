"""inspect's own OpenAI-compatible provider, pointed at the local model server, scores like
`neocoder eval --model local/gemma-3-270m` on the same problems (the same chat prompt,
temperature 0, max tokens and seed)."""

import json
import urllib.request

import pytest
from click.testing import CliRunner
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_runs import RATES, inspect_eval, log_rates  # noqa: E402
from loopback import Loopback, Quiet, send  # noqa: E402

from neocoder.cli import main  # noqa: E402
from neocoder.models import get_model  # noqa: E402
from neocoder.records import Sample  # noqa: E402
from neocoder.store import RunFolder  # noqa: E402

pytestmark = [pytest.mark.llm, pytest.mark.docker]  # it evaluates the local model: the sandbox judges
MAX_TOKENS, LIMIT, STATES = 48, 1, "0"  # one sample a side: each costs ~20 s of CPU here


class ResettingFront(Loopback):
    """A loopback front of the local server doing what neocoder's LocalModel does before every
    request (``_reset_server_state``: one greedy token of a fixed prompt, so llama.cpp's prompt
    cache is in one known state), then forwarding the request unchanged."""

    def __init__(self, model):
        upstream = model.server.base_url

        class Handler(Quiet):
            def _forward(self, body: bytes | None):
                target = upstream + self.path.removeprefix("/v1")
                request = urllib.request.Request(target, data=body, method=self.command,
                                                 headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(request, timeout=600) as r:
                    send(self, r.status, r.read())

            def do_GET(self):
                self._forward(None)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with model._one_at_a_time:
                    model._reset_server_state()
                    self._forward(body)

        self.serve(Handler)


def test_inspect_openai_api_on_the_local_server_equals_neocoder_eval(tmp_path):
    result = CliRunner().invoke(main, ["eval", "--model", "local/gemma-3-270m", "--api", "chat", "--max-tokens",
                                       str(MAX_TOKENS), "--limit", str(LIMIT), "--states", STATES,
                                       "--out", str(tmp_path / "neocoder"), "--quiet"])
    # the 270M model at this budget is cut at the token limit: read as "cut off" (issue 56), never judged,
    # and the run says so in one line; inspect's scorer must read the same reply the same way
    assert result.exit_code == 0 or "held no program (1 x cut off)" in result.output, result.output
    metrics = json.loads((tmp_path / "neocoder" / "metrics.json").read_text())
    with get_model("local/gemma-3-270m", api="chat", max_tokens=MAX_TOKENS) as gemma:
        front = ResettingFront(gemma)
        try:
            log_path = inspect_eval(tmp_path / "logs", "openai-api/llamacpp/gemma-3-270m", "-T", f"limit={LIMIT}",
                                    "-T", f"states={STATES}", "-T", f"max_tokens={MAX_TOKENS}",
                                    "--max-connections", "1",
                                    env={"LLAMACPP_BASE_URL": front.url, "LLAMACPP_API_KEY": "local"})
        finally:
            front.close()
    log = read_eval_log(str(log_path))
    replies = {s.id: s.output.completion for s in log.samples}
    records = RunFolder(tmp_path / "neocoder", create=False).read(Sample)
    assert len(records) == len(replies) == 1
    for r in records:  # the very replies are the same, so every score is
        assert replies[f"{r.problem_id}/t{r.state}/s{r.sample}"] == r.reply
    got = log_rates(log)
    for t, state in metrics["states"].items():
        for ours, theirs in RATES.items():
            if state[theirs] is not None:
                assert got[t][ours] == pytest.approx(state[theirs], abs=1e-12), (t, ours)
