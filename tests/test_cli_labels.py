"""The command line's labels and errors (issue 58): help texts whole and without RST
markup, ``suite``'s summary readable (its JSON only with ``--json``), and a command
started without its ``--model`` a usage error (exit 2) naming it, never a traceback.
The runs that take ``--model`` are real: LiveIdeaBench and the suite against a scripted
OpenAI-style model on loopback (tests/support/suite_model.py)."""

from __future__ import annotations

import json
import re

import click
import pytest
from click.testing import CliRunner
from suite_model import SuiteModel
from suite_runs import liveideabench_dir

from neocoder.benchmarks import get_task, task_names
from neocoder.cli import main
from neocoder.cli.helptext import first_sentence, plain
from neocoder.cli.options import model_options
from neocoder.cli.suite import calls_line

PANEL = ["openai/j1", "openai/j22", "openai/j333"]


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def commands_section(output: str) -> str:
    """The "Commands:" section of a help page with its wrapping undone (one space between words)."""
    return " ".join(output.split("Commands:", 1)[1].split())


@pytest.fixture()
def scripted(monkeypatch):
    monkeypatch.setenv("LIVEIDEABENCH_DIR", liveideabench_dir())
    server = SuiteModel()
    yield server
    server.close()


# ---------------------------------------------------------------- help texts
def test_plain_drops_rst_markup_and_joins_the_lines_of_a_paragraph():
    doc = """LiveIdeaBench on ``config.model`` with the panel ``config.judges`` (see the module).

        Calls :func:`neocoder.api.run_ideas` and :class:`Result <neocoder.x.Result>`; see
        `the paper <https://example.org>`_ and `Table 2`_."""
    assert plain(doc) == ("LiveIdeaBench on config.model with the panel config.judges.\n\n"
                          "Calls neocoder.api.run_ideas and Result; see the paper and Table 2.")


def test_plain_keeps_text_that_is_no_markup():
    text = "Run `neocoder serve` (docs/serve.md): 2 of 3, e.g. openai/x at 0.5; a * b, x_y and [1, 2]."
    assert plain(text) == text
    assert plain(None) == plain("   ") == ""


def test_the_first_sentence_is_whole_and_ends_where_the_sentence_ends():
    doc = """The human rows (NeoCoder Eq. 5, 6) from the accepted solutions' shipped technique sets, for the
    problem states the config selects; no model and no sandbox.  More here."""
    assert first_sentence(doc) == ("The human rows (NeoCoder Eq. 5, 6) from the accepted solutions' shipped technique "
                                   "sets, for the problem states the config selects; no model and no sandbox.")
    assert first_sentence("e.g. openai/x answers. Then more.") == "e.g. openai/x answers."
    assert first_sentence("One paragraph, no full stop\n\nSecond. Third.") == "One paragraph, no full stop"


def test_run_help_lists_every_task_with_its_first_sentence_whole_and_no_markup():
    out = invoke("run", "--help")
    assert out.exit_code == 0, out.output
    listed = commands_section(out.output)
    for name in task_names():
        task = get_task(name)
        sentence = first_sentence(task.__doc__ or task.config_type.__doc__)
        assert f"{name} {sentence}" in listed, (name, sentence)
    # the docstring's first line ended mid-sentence ("..., for the"); RST literals were shown as typed
    assert "for the problem states the config selects; no model and no sandbox." in listed
    assert "``" not in out.output and "(see the module)" not in out.output
    assert "LiveIdeaBench on config.model with the panel config.judges." in listed


def test_a_task_command_help_is_its_docstring_as_plain_text():
    out = invoke("run", "ideas", "--help")
    assert out.exit_code == 0 and "``" not in out.output
    assert "LiveIdeaBench on config.model with the panel config.judges." in " ".join(out.output.split())
    out = invoke("run", "aidanbench-rescore", "--help")
    body = " ".join(out.output.split("Options:")[0].split())
    assert "with no model call (neocoder/benchmarks/aidanbench/rescore.py has the method). An item is one question" \
        in body  # the whole docstring, its lines joined


def test_the_command_lists_are_never_cut():
    for args in [(), ("sandbox",), ("run",), ("aidanbench",), ("framework",)]:
        out = invoke(*args, "--help")
        assert out.exit_code == 0, (args, out.output)
        assert not re.search(r"\.\.\.\s*$", out.output.split("Commands:", 1)[1], re.M), (args, out.output)
    listed = commands_section(invoke("--help").output)
    assert ("suite Every benchmark for one model, in one resumable run folder with one manifest and one call cache; "
            "prints the creativity profile (profile.json, profile.svg).") in listed
    assert "sandbox Build the sandbox image; run a program in it." in listed  # a one-sentence help as it was
    sandbox = commands_section(invoke("sandbox", "--help").output)
    assert "selftest Run the sandbox regression corpus (attacks and known-good programs, Python and C++); print a " \
           "table." in sandbox


# ---------------------------------------------------------------- --model left out
@pytest.mark.parametrize("args", [["eval"], ["ideas", "--judges", ",".join(PANEL)], ["suite"], ["run", "eval"],
                                  ["run", "ideas"], ["eval", "--model", ""]])
def test_a_command_without_its_model_is_a_usage_error_naming_the_option(args):
    out = invoke(*args)
    assert out.exit_code == 2, out.output
    assert "Missing option '--model'" in out.output
    assert isinstance(out.exception, SystemExit)
    assert "Traceback" not in out.output and "AttributeError" not in out.output


def test_model_options_hands_the_model_over_or_refuses_its_absence():
    @click.command()
    @model_options()
    def probe(model):
        click.echo(f"{model.spec} {model.max_retries}")

    @click.command()
    @model_options(required=False)
    def optional(model):
        click.echo(repr(model))

    assert CliRunner().invoke(probe, ["--model", "openai/x", "--max-retries", "2"]).output == "openai/x 2\n"
    refused = CliRunner().invoke(probe, ["--max-retries", "2"])
    assert refused.exit_code == 2 and "Missing option '--model'" in refused.output
    assert CliRunner().invoke(optional, []).output == "None\n"


def test_ideas_with_its_model_runs(scripted, tmp_path):
    out = invoke("ideas", "--model", "openai/w", "--base-url", scripted.url, "--api-key", "k", "--judges",
                 ",".join(PANEL), "--limit", "1", "--out", str(tmp_path / "ideas"), "--quiet")
    assert out.exit_code == 0, out.output
    assert (tmp_path / "ideas" / "metrics.json").is_file() and "openai/w" in out.output


# ---------------------------------------------------------------- suite's summary
def test_suite_prints_a_readable_summary_and_its_json_only_when_asked(scripted, tmp_path):
    out_dir = tmp_path / "suite"
    args = ["suite", "--model", "openai/other", "--base-url", scripted.url, "--api-key", "k",
            *[x for j in PANEL for x in ("--judge", j)], "--embedder", "openai/embed", "--benchmarks", "ideas",
            "--bootstrap", "50", "--out", str(out_dir), "--quiet"]
    out = invoke(*args)
    assert out.exit_code == 0, out.output
    assert "{" not in out.output and "calls_made" not in out.output  # no raw JSON dict
    calls = json.loads((out_dir / "profile.json").read_text())["calls"]
    assert calls["calls_made"] > 0
    assert (f"model calls: {calls['calls_made']} made, {calls['cache_hits']} answered from the call cache; tokens: "
            f"{calls['prompt_tokens']} prompt, {calls['completion_tokens']} completion") in out.output.splitlines()
    assert out.output.startswith("creativity profile of openai/other")

    again = invoke(*args, "--json")  # the finished run, resumed: its profile as JSON
    assert again.exit_code == 0, again.output
    profile = json.loads(again.output)
    assert profile["benchmarks"] == json.loads((out_dir / "profile.json").read_text())["benchmarks"]
    assert profile["model"] == "openai/other" and "creativity profile" not in again.output


def test_the_calls_line_says_what_was_made_and_what_came_from_the_cache():
    assert calls_line({}) == "model calls: 0 made, 0 answered from the call cache"
    assert calls_line({"cache_hits": 7, "calls_made": 0, "prompt_tokens": 0, "completion_tokens": 0}) == \
        "model calls: 0 made, 7 answered from the call cache"
    assert calls_line({"cache_hits": 1, "calls_made": 3, "prompt_tokens": 30, "completion_tokens": 20,
                       "reasoning_tokens": 12}) == ("model calls: 3 made, 1 answered from the call cache; tokens: 30 "
                                                    "prompt, 20 completion (12 of them reasoning)")
    assert "reasoning" not in calls_line({"calls_made": 3, "prompt_tokens": 30, "completion_tokens": 20})

