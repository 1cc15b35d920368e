"""``neocoder eval --language cpp`` end to end (issue 49): a scripted endpoint on loopback
answers each problem with an accepted human C++ solution of the release (found by the
statement in the prompt), or an A+B program; the programs are compiled and judged in the
real Docker sandbox, detected with the C++ grammar and scored."""

import json

import pytest
from click.testing import CliRunner
from loopback import RespondingServer

from neocoder.benchmarks.neocoder.program import extract_code
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.cli import main
from neocoder.dataset.shipped import load_states
from neocoder.techniques import detect
from neocoder.techniques.human import solutions_by_language

AB = ("```cpp\n#include <cstdio>\n"
      "int main() { long long a, b; scanf(\"%lld %lld\", &a, &b); printf(\"%lld\\n\", a + b); }\n```")


def test_the_cpp_prompt_asks_for_a_whole_program_and_its_block_is_extracted():
    prompt = solve_prompt("Print 1.", None, "cpp")
    user = prompt.messages[1]["content"]
    assert "C++17" in user and "main()" in user and "```cpp" in user and "solve()" not in user
    assert prompt.code_prefix.startswith("#include")
    reply = "Here:\n```python\nprint(1)\n```\n```cpp\nint helper();\n```\n```c++\nint main() { return 0; }\n```"
    assert extract_code(reply, "cpp") == "int main() { return 0; }\n"
    assert extract_code(reply) == "print(1)\n"  # Python's extraction is unchanged


@pytest.mark.docker
def test_eval_in_cpp_compiles_judges_detects_and_scores(tmp_path, release_dir, sandbox):
    everything = load_states()
    first = list(dict.fromkeys(s.problem_id for s in everything))[:5]  # what --limit 5 takes
    states = [s for s in everything if s.problem_id in first and s.state <= 1]
    humans = solutions_by_language(release_dir, first)
    answers = {pid: next((src for lang, src in humans[pid] if lang == "cpp"), None) for pid in first}

    def respond(kind, body):
        asked = body["messages"][-1]["content"]
        for state in states:
            if state.statement.strip() in asked and answers[state.problem_id]:
                return f"```cpp\n{answers[state.problem_id]}\n```", None
        return AB, None

    out = tmp_path / "run"
    with RespondingServer(respond) as server:
        ran = CliRunner().invoke(main, ["eval", "--model", "openai/cpp-writer", "--base-url", server.url,
                                        "--api-key", "k", "--language", "cpp", "--limit", "5", "--states", "0-1",
                                        "--out", str(out), "--release", str(release_dir), "--quiet"])
        asked = [body["messages"][-1]["content"] for _, body in server.requests]
    assert ran.exit_code == 0, ran.output
    assert "headline: cumulative NeoGauge@1 = " in ran.output
    assert asked and all("C++17" in text and "main()" in text for text in asked)
    samples = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(samples) == 10
    assert all(s["entry_rule"] == "compiled" for s in samples if not s["compile_error"])
    answered = sum(2 for pid in first if answers[pid])  # states 0 and 1 of each problem with a C++ human
    assert answered >= 6 and sum(s["examples"]["correct"] for s in samples) == answered  # accepted
    for sample in samples:  # read by the C++ grammar: a human program uses some technique
        assert sample["techniques"] == sorted(detect(sample["code"], "cpp"))
        assert sample["techniques"] or "a + b" in sample["code"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["language"] == "cpp"
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["states"]["0"]["n"] == 5 and metrics["states"]["0"]["pass@1"] == answered / 10
    assert metrics["language"] == "cpp" and "; language: cpp" in ran.output
    from neocoder.benchmarks.neocoder.tables import state_rows
    assert {row["language"] for row in state_rows(out)} == {"cpp"}
    from neocoder.benchmarks.neocoder.tables import sample_rows
    assert {row["language"] for row in sample_rows(out)} == {"cpp"}

    # compare refuses to pair it with a Python run of the same problems unless asked, and labels it
    python = tmp_path / "python"
    ran = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "5", "--states", "0-1",
                                    "--out", str(python), "--release", str(release_dir), "--quiet"])
    assert ran.exit_code == 0, ran.output
    refused = CliRunner().invoke(main, ["compare", str(out), str(python), "--no-published"])
    assert refused.exit_code != 0
    assert "different languages" in refused.output and "is cpp" in refused.output and "is python" in refused.output
    allowed = CliRunner().invoke(main, ["compare", str(out), str(python), "--no-published", "--format", "json",
                                        "--allow-language-mismatch"])
    assert allowed.exit_code == 0, allowed.output
    result = json.loads(allowed.output)
    assert [r["language"] for r in result["runs"]] == ["cpp", "python"]
    assert result["runs"][0]["label"].endswith("[cpp]") and any("--allow-language-mismatch" in n
                                                                 for n in result["notes"])
    assert result["runs"][1]["label"].endswith("[python]")  # mixed: both name their language
    alone = CliRunner().invoke(main, ["compare", str(python), "--no-published", "--format", "json"])
    assert not json.loads(alone.output)["runs"][0]["label"].endswith("]")  # a Python run alone keeps its label
    # on a leaderboard the C++ run is a row of its own, its settings naming the language
    from neocoder.report.leaderboard.collect import collect
    rows = collect([out, python])
    assert len(rows) == 2
    assert sorted(r.language for r in rows) == ["cpp", "python"]  # shown as a label of its own
    assert all("language" not in r.settings_text() for r in rows)
    assert "language" not in json.loads((python / "metrics.json").read_text())  # Python's metrics are unchanged
    assert {row["language"] for row in state_rows(python)} == {"python"}


def test_cpp_refuses_what_only_python_has(tmp_path, release_dir):
    args = ["eval", "--model", "openai/x", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k",
            "--language", "cpp", "--limit", "1", "--out", str(tmp_path / "r"), "--release", str(release_dir)]
    refused = CliRunner().invoke(main, args + ["--paper", "all"])  # the strategies run in C++ (test_strategies_cpp.py)
    assert refused.exit_code != 0 and "--language cpp runs on this project's judging only" in refused.output
    replay = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--language", "cpp",
                                       "--limit", "1", "--out", str(tmp_path / "p"), "--release", str(release_dir)])
    assert replay.exit_code != 0 and "replays recorded Python programs" in replay.output


def test_the_suite_hands_its_language_to_neocoder_only(tmp_path, release_dir):
    from neocoder.benchmarks import benchmark as get_benchmark
    from neocoder.config import ModelConfig
    from neocoder.suite.config import SuiteConfig
    from neocoder.suite.registry import make_config
    model = ModelConfig("openai/x")
    suite = SuiteConfig(model=model, out=tmp_path, release_dir=release_dir, language="cpp")
    assert make_config(get_benchmark("eval"), suite, model, tmp_path / "eval").language == "cpp"
    assert not hasattr(make_config(get_benchmark("aidanbench"), suite, model, tmp_path / "a"), "language")
    default = SuiteConfig(model=model, out=tmp_path, release_dir=release_dir)
    assert make_config(get_benchmark("eval"), default, model, tmp_path / "eval").language == "python"


@pytest.mark.docker
def test_eval_in_cpp_as_a_server_job(tmp_path, release_dir):
    """`neocoder eval --language cpp --server URL`: the job carries the language, asks the
    model for C++ and judges it as C++ (issue 49: the same through neocoder serve)."""
    from servers import TOKEN, ServerProcess, wait_job
    humans = solutions_by_language(release_dir, ["1701A"])["1701A"]
    code = next(src for lang, src in humans if lang == "cpp")
    server = ServerProcess(tmp_path / "data", release_dir, "--workers", "1", "--allow-endpoint", "127.0.0.1").start()
    try:
        with RespondingServer(lambda kind, body: (f"```cpp\n{code}\n```", None)) as model:
            ran = CliRunner().invoke(main, ["eval", "--model", "openai/cpp-writer", "--base-url", model.url,
                                            "--api-key", "k", "--language", "cpp", "--problems", "1701A",
                                            "--states", "0", "--server", server.url, "--token", TOKEN])
            (job,) = server.call("GET", "/v1/evals").json()["jobs"]
            job = wait_job(server, job["id"])
            asked = [body["messages"][-1]["content"] for _, body in model.requests]
        assert job["status"] == "succeeded", (job, ran.output)
        folder = server.data_dir / "runs" / job["id"]
        assert json.loads((folder / "manifest.json").read_text())["config"]["language"] == "cpp"
        assert asked and all("C++17" in text for text in asked)
        (sample,) = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
        assert sample["examples"]["correct"] and sample["techniques"] == sorted(detect(code, "cpp"))
        assert json.loads((folder / "metrics.json").read_text())["language"] == "cpp"
    finally:
        assert server.stop(), server.log.read_text()


@pytest.mark.docker
def test_build_dataset_makes_cpp_chains(tmp_path, release_dir):
    """`build-dataset --model M --language cpp`: Denial Prompting in C++ (issue 49): the
    model is asked for C++ in every round (the C++ follow-up), each program is compiled and
    judged, its techniques read by the C++ grammar, and each new constraint denies one of them."""
    sorts = "```cpp\n#include <bits/stdc++.h>\nint main() { std::vector<int> v{3, 1}; std::sort(v.begin(), " \
            "v.end()); printf(\"%d\\n\", v[0]); }\n```"
    with RespondingServer(lambda kind, body: (sorts, None)) as server:
        ran = CliRunner().invoke(main, ["build-dataset", "--model", "openai/cpp-writer", "--base-url", server.url,
                                        "--api-key", "k", "--language", "cpp", "--limit", "1", "--rounds", "2",
                                        "--out", str(tmp_path / "chains"), "--from-release", str(release_dir),
                                        "--quiet"])
        asked = [body["messages"] for _, body in server.requests]
    assert ran.exit_code == 0, ran.output
    assert len(asked) == 3 and "C++17" in asked[0][-1]["content"]
    assert all("```cpp" in messages[-1]["content"] and "solve()" not in messages[-1]["content"]
               for messages in asked[1:])  # the follow-up asks for C++, not for Python's solve()
    records = [json.loads(line) for line in (tmp_path / "chains" / "records.jsonl").read_text().splitlines()]
    code = sorts.split("\n", 1)[1].rsplit("```", 1)[0]
    first = records[0]["augmentation"]
    assert first["language"] == "cpp" and first["techniques"] == sorted(detect(code, "cpp"))
    assert first["verdicts"] and "CE" not in first["verdicts"]  # compiled (the answer itself is wrong: WA)
    assert records[1]["constraints"] and records[1]["constraints"][0] in first["techniques"]
    refused = CliRunner().invoke(main, ["build-dataset", "--model", "openai/x", "--base-url", server.url,
                                        "--api-key", "k", "--language", "cpp", "--detector", "llm", "--limit", "1",
                                        "--out", str(tmp_path / "llm"), "--from-release", str(release_dir)])
    assert refused.exit_code != 0 and "--detector llm reads Python programs" in refused.output
