"""AidanBench (issues 7 and 17): novelty, the stop rule, judge replies, resume, re-scoring,
the paper's analyses (1-10 scale, gated novelty, MMR_AB, chain of thought, semantic
entropy of the answers), rescore from stored scores with no model call, and end-to-end
runs on the real local model with the real local embedder."""

import dataclasses
import hashlib
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from loopback import ScriptedServer

from neocoder.benchmarks.aidanbench.answers import split_reasoning
from neocoder.benchmarks.aidanbench.config import AidanConfig
from neocoder.benchmarks.aidanbench.loop import answer_prompt, judge_score, resume_state, totals
from neocoder.benchmarks.aidanbench.records import Answer, QuestionResult
from neocoder.benchmarks.aidanbench.scoring import (
    gated_novelty,
    mmr_ab,
    novelty,
    parse_score,
    parse_verdict,
    stop_reason,
)
from neocoder.benchmarks.aidanbench.task import AidanInputs, AidanTask, rescore_run
from neocoder.cli import main
from neocoder.config import ModelConfig
from neocoder.metrics.entropy import discrete_entropy
from neocoder.models import Model, get_model
from neocoder.models.cache import request_key
from neocoder.models.embedders import Embedder, get_embedder
from neocoder.models.openai_compat import OpenAICompatModel
from neocoder.records import Manifest
from neocoder.runner import Run, run_items
from neocoder.store import RunFolder


def test_novelty_on_hand_made_vectors():
    assert novelty(np.array([1.0, 0.0]), np.zeros((0, 2))) == 1.0  # the first answer
    assert novelty(np.array([1.0, 0.0]), np.array([[0.0, 3.0]])) == pytest.approx(1.0)  # orthogonal
    assert novelty(np.array([2.0, 0.0]), np.array([[0.0, 1.0], [5.0, 0.0]])) == pytest.approx(0.0)  # same direction
    assert novelty(np.array([1.0, 0.0]), np.array([[0.5, np.sqrt(3) / 2]])) == pytest.approx(0.5)  # 60 degrees
    assert novelty(np.array([1.0, 0.0]), np.array([[-1.0, 0.0]])) == pytest.approx(2.0)  # opposite
    with pytest.raises(ValueError):
        novelty(np.array([1.0, 0.0, 0.0]), np.array([[1.0, 0.0]]))


def test_stop_rules_exactly_at_the_thresholds():
    assert stop_reason(15.0, 0.9) == "incoherent"  # C <= 15 stops
    assert stop_reason(15.0001, 0.9) is None
    assert stop_reason(90, 0.15) == "repetitive"  # N <= 0.15 stops
    assert stop_reason(90, 0.150001) is None
    assert stop_reason(10, 0.1) == "incoherent"  # both: coherence is checked first
    assert stop_reason(None, 0.5) is None and stop_reason(None, 0.15) == "repetitive"  # --judge none


@pytest.mark.parametrize("reply,score", [
    ("<score>85</score>", 85.0), ("  <SCORE> 7.5 </score> because...", 7.5), ("<score>0</score>", 0.0),
    ("Score: 40", None), ("rating = 100", None), ("62", None),  # not the authors' <score>N</score>: no guess
    ("I would say it is fairly coherent.", None), ("<score>140</score>", None), ("", None), ("-3", None),
])
def test_judge_reply_parsing(reply, score):
    assert parse_score(reply) == score


def test_an_unparseable_judge_reply_is_retried_then_an_error_never_a_zero():
    server = ScriptedServer(["hmm, quite coherent", "<score>80</score>"])
    try:
        judge = OpenAICompatModel("openai/j", "j", base_url=server.url, api_key="k")
        log = []
        score, replies, tokens = judge_score(judge, "aidan_coherence.txt", 2, log=log, question="Q?", answer="A.")
        assert score.value == 80.0 and len(replies) == 2 and tokens["completion"] == 14  # 7 per reply
        assert log == [["coherence", "no marker"], ["coherence", None]]
        server.replies = ["nope", "still no", "never"]
        score, replies, _ = judge_score(judge, "aidan_coherence.txt", 2, question="Q?", answer="A.")
        assert score.reason == "no marker" and len(replies) == 3  # bounded: the first ask and two retries
    finally:
        server.close()


@pytest.fixture(scope="module")
def embedder():
    return get_embedder("local/all-MiniLM-L6-v2")


@pytest.fixture
def recorded(tmp_path):
    """Recorded answers: question A repeats itself at answer 3; question B has 3 distinct answers."""
    rows = [("What could cities do about heat?", ["Plant street trees for shade.",
                                                  "Paint roofs white to reflect sunlight.",
                                                  "Plant street trees to give shade.",
                                                  "Open cooling centres in libraries."]),
            ("Why do people keep diaries?", ["To remember what happened to them.",
                                             "To sort out their feelings by writing them down.",
                                             "To practise writing every day."])]
    path = tmp_path / "answers_in.jsonl"
    with path.open("w") as f:
        for q, answers in rows:
            for i, a in enumerate(answers, 1):
                f.write(json.dumps({"model": "someone", "question": q, "answer_num": i, "answer": a}) + "\n")
    return path


def settings(tmp_path, **changes) -> AidanConfig:
    return AidanConfig(model=ModelConfig("replay/x"), judge=None, out=tmp_path, **changes)


def run_benchmark(questions: list[str], generator, judge, embedder, folder: RunFolder, settings: AidanConfig,
                  progress: bool = True) -> tuple[list[QuestionResult], dict]:
    """One generator on ``questions`` with models the test holds (a replayed source, a
    counting embedder): the aidanbench task's items, resume and loop through the runner,
    without opening models or writing a manifest or metrics.  Returns (its
    QuestionResults in question order, totals)."""
    task = AidanTask(dataclasses.replace(settings, out=folder.path, progress=progress))
    task.check()
    run = Run(task, folder=folder)
    run.inputs = AidanInputs(generators=[generator], judge=judge, embedder=embedder, questions=list(questions))
    run_items(task, run, task.items(run))
    lines = task.results(run)[generator.name]
    return lines, totals(lines)


def test_replay_rescoring_applies_the_stop_rule_in_recorded_order(tmp_path, recorded, embedder):
    gen = get_model(f"replay/{recorded}")
    folder = RunFolder(tmp_path / "run")
    lines, total = run_benchmark(gen.recorded_items(), gen, None, embedder, folder, settings(tmp_path),
                                 progress=False)
    assert [(q.answers, q.stop_reason) for q in lines] == [(2, "repetitive"), (3, "max answers")]
    assert lines[0].novelty_sum > 1.0 and total["answers"] == 5
    answers = folder.read(Answer)
    assert [a.answer_num for a in answers] == [1, 2, 3, 1, 2, 3]
    assert answers[2].stop == "repetitive" and answers[2].novelty <= 0.15
    assert all(a.coherence is None for a in answers)  # --judge none: novelty only


def test_resume_after_an_interruption_redoes_nothing(tmp_path, recorded, embedder):
    gen = get_model(f"replay/{recorded}")
    whole, _ = run_benchmark(gen.recorded_items(), gen, None, embedder, RunFolder(tmp_path / "whole"),
                             settings(tmp_path), progress=False)
    rows = (tmp_path / "whole" / "records.jsonl").read_text().splitlines()
    (tmp_path / "cut").mkdir()
    # the run died after question A ended and two answers of B, in the middle of writing a line
    kept = rows[:6]
    assert json.loads(kept[-1])["answer_num"] == 2 and json.loads(kept[3])["type"] == "question"
    (tmp_path / "cut" / "records.jsonl").write_text("\n".join(kept) + '\n{"type": "answ')
    cut = RunFolder(tmp_path / "cut")
    ended, unfinished = resume_state(cut, gen.name)
    assert list(ended) == [0] and [a.answer_num for a in unfinished[1]] == [1, 2]
    before = embedder.texts_embedded
    resumed, _ = run_benchmark(gen.recorded_items(), gen, None, embedder, cut, settings(tmp_path), progress=False)
    assert [(q.answers, q.novelty_sum, q.stop_reason) for q in resumed] == \
        [(q.answers, q.novelty_sum, q.stop_reason) for q in whole]
    assert embedder.texts_embedded - before == 3  # B's two answers once, to rebuild the matrix, and the third
    answers = [a for a in cut.read(Answer) if a.question_index == 1]
    assert [a.answer_num for a in answers] == [1, 2, 3]  # nothing answered twice


def test_a_file_of_several_models_is_scored_per_model(tmp_path, recorded, embedder):
    """Published results hold many models' answers in one file: each is scored on its own."""
    other = tmp_path / "two_models.jsonl"
    rows = [json.loads(line) for line in recorded.read_text().splitlines()]
    with other.open("w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
            f.write(json.dumps(dict(r, model="another", answer=r["answer"] if r["answer_num"] < 2 else
                                    "Plant street trees for shade.")) + "\n")
    result = CliRunner().invoke(main, ["aidanbench", "--model", f"replay/{other}", "--judge", "none",
                                       "--out", str(tmp_path / "r"), "--quiet"])
    assert result.exit_code == 0, result.output
    models = json.loads((tmp_path / "r" / "metrics.json").read_text())["models"]
    assert models[f"replay/{other}#someone"]["answers"] == 5  # the same counts as the file of one model
    # another: A repeats its first answer at once (1 kept); B's second answer is new, its third repeats it (2)
    assert models[f"replay/{other}#another"]["answers"] == 3
    results = RunFolder(tmp_path / "r").read(QuestionResult)
    assert len(results) == 4 and {q.model for q in results} == set(models)


def test_rescoring_command_prints_per_question_counts(tmp_path, recorded):
    result = CliRunner().invoke(main, ["aidanbench", "--model", f"replay/{recorded}", "--judge", "none",
                                       "--out", str(tmp_path / "r"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "      2" in result.output and "repetitive" in result.output and "max answers" in result.output
    metrics = json.loads((tmp_path / "r" / "metrics.json").read_text())["models"][f"replay/{recorded}"]
    assert metrics["answers"] == 5 and metrics["stop_reasons"] == {"repetitive": 1, "max answers": 1}
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["config"]["novelty_stop"] == 0.15 and "aidan_coherence.txt" in manifest["extra"]["prompts"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "Q", "answer_num": "one", "answer": "A"}\n')
    result = CliRunner().invoke(main, ["aidanbench", "--model", f"replay/{bad}", "--judge", "none",
                                       "--out", str(tmp_path / "b"), "--quiet"])
    assert result.exit_code != 0 and "line 1" in result.output and "answer_num" in result.output


LOCAL = ["--model", "local/gemma-3-270m", "--judge", "local/gemma-3-270m", "--limit", "2", "--max-answers", "2",
         "--max-tokens", "60", "--entailment", "judge", "--quiet"]


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """A real run of the local model, its own judge: 2 questions, at most 2 answers each,
    with meaning classes from bidirectional entailment asked of the same model."""
    out = tmp_path_factory.mktemp("gemma") / "run"
    result = CliRunner().invoke(main, ["aidanbench", *LOCAL, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_aidanbench_end_to_end_on_the_local_model(local_run):
    folder = RunFolder(local_run)
    questions, answers = folder.read(QuestionResult), folder.read(Answer)
    assert len(questions) == 2 and all(q.stop_reason in ("incoherent", "repetitive", "max answers", "error")
                                       for q in questions)
    assert answers and all(a.novelty is not None and a.tokens["generator"]["completion"] for a in answers)
    assert all((a.coherence is None) == (a.error is not None) for a in answers)  # a score or an error
    assert all(a.coherence_scale == 100 and a.reasoning is None for a in answers)
    assert all(a.logprob is not None and a.logprob < 0 for a in answers)  # the local endpoint reports them
    for q in questions:
        mine = sorted((a for a in answers if a.question_index == q.question_index), key=lambda a: a.answer_num)
        kept = mine[:q.answers]
        assert q.novelty_sum == pytest.approx(sum(a.novelty for a in kept), abs=1e-6)
        if q.stop_reason != "error":
            assert q.mmr == pytest.approx(sum(0.5 * a.coherence / 100 - 0.5 * (1 - a.novelty) for a in kept), abs=1e-6)
        classes = [a.semantic_class for a in kept]
        if kept and None not in classes:
            assert classes[0] == 0 and q.semantic_entropy == pytest.approx(discrete_entropy(classes), abs=1e-6)
            assert q.semantic_classes == len(set(classes)) and q.semantic_entropy_rb is not None
    manifest = json.loads((local_run / "manifest.json").read_text())
    assert manifest["config"]["entailment"] == "judge" and manifest["config"]["coherence_scale"] == 100
    assert "aidan_entailment.txt" in manifest["extra"]["prompts"]
    again = CliRunner().invoke(main, ["aidanbench", *LOCAL, "--out", str(local_run)])
    assert again.exit_code == 0, again.output
    assert "model calls 0 made" in again.output  # resumed: ended questions skipped, errors from the cache


def _all_subclasses(cls) -> list:
    return [cls] + [c for sub in cls.__subclasses__() for c in _all_subclasses(sub)]


@pytest.fixture
def no_models(monkeypatch):
    """Building any model or embedder fails the test: proof that a rescore needs none.
    Every provider module is imported first, so every Model and Embedder class is
    guarded (each one's own __init__, or the guarded __init__ it inherits)."""
    import neocoder.models.cache, neocoder.models.local, neocoder.models.openai_compat, neocoder.models.replay  # noqa

    def refuse(self, *args, **kwargs):
        raise AssertionError(f"rescore built a {type(self).__name__}")
    classes = _all_subclasses(Model) + _all_subclasses(Embedder)
    for cls in classes:
        if "__init__" in vars(cls):
            monkeypatch.setattr(cls, "__init__", refuse)
    assert all(c.__init__ is refuse for c in classes if c not in (Model,)), "a model class without a guard"
    with pytest.raises(AssertionError, match="built a OpenAICompatModel"):
        OpenAICompatModel("openai/j", "j", base_url="http://127.0.0.1:9/v1", api_key="k")  # the guard works


def digest(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def test_rescore_of_the_local_run_reproduces_it_and_moves_as_expected_with_no_model(local_run, tmp_path, no_models):
    before = digest(local_run)
    original = {q.question_index: q for q in RunFolder(local_run).read(QuestionResult)}
    same = CliRunner().invoke(main, ["aidanbench", "rescore", str(local_run), "--out", str(tmp_path / "same")])
    assert same.exit_code == 0, same.output
    assert "model calls 0" in same.output
    again = {q.question_index: q for q in RunFolder(tmp_path / "same").read(QuestionResult)}
    for i, q in original.items():  # the loop's own thresholds: the loop's own numbers
        assert (again[i].answers, again[i].novelty_sum, again[i].stop_reason, again[i].gated_novelty, again[i].mmr,
                again[i].semantic_entropy) == (q.answers, q.novelty_sum, q.stop_reason, q.gated_novelty, q.mmr,
                                               q.semantic_entropy)
    # novelty must be above 0.999999: only a first answer (N = 1) can pass, so at most 1 per question
    strict = rescore_run(local_run, tmp_path / "strict", novelty_stop=0.999999)
    for i, q in original.items():
        new = strict.results[q.model][i]
        assert new.answers == min(q.answers, 1)
        if q.answers >= 2:
            assert new.stop_reason == "repetitive" and new.semantic_entropy == 0.0
    # coherence must be above 101: no 0-100 score passes, so every judged first answer stops the question
    none = rescore_run(local_run, tmp_path / "none", coherence_stop=101)
    assert all(q.answers == 0 for q in none.results[next(iter(none.results))])
    assert none.totals[next(iter(none.totals))]["answers"] == 0
    assert digest(local_run) == before  # the run itself is untouched
    manifest = json.loads((tmp_path / "strict" / "manifest.json").read_text())
    assert manifest["extra"]["rescored_from"] == str(local_run.resolve())
    assert manifest["config"]["novelty_stop"] == 0.999999 and manifest["config"]["coherence_stop"] == 15.0


def test_parse_score_on_the_paper_scale():
    assert parse_score("<score>10</score>", 1, 10) == 10.0 and parse_score("3", 1, 10) is None
    assert parse_score("<score>0</score>", 1, 10) is None and parse_score("<score>11</score>", 1, 10) is None
    assert parse_score("<score>85</score>", 1, 10) is None  # a 0-100 reply on the 1-10 scale is not read as 85
    assert AidanConfig(model=ModelConfig("x/y"), judge=None, out=None, coherence_scale=10).stop_at_coherence() == 3.0
    assert AidanConfig(model=ModelConfig("x/y"), judge=None, out=None).stop_at_coherence() == 15.0


@pytest.mark.parametrize("reply,verdict", [
    ("<verdict>yes</verdict>", True), ("<VERDICT> No </verdict>", False), ("maybe", None), ("", None),
    ("yesterday", None), ("I think yes", None),
    # not the <verdict> tag the prompt asks for: unreadable, no guess from the first word
    ("yes", None), ("No.", None), ("  Yes, A states it.", None), ("**no**", None),
    ("<verdict>yes</verdict> on reflection <verdict>no</verdict>", None),
])
def test_entailment_verdict_parsing(reply, verdict):
    assert parse_verdict(reply) is verdict


@pytest.mark.parametrize("reply,answer,reasoning", [
    ("Earlier answers cover trees.\nAnswer: Paint roofs white.", "Paint roofs white.", "Earlier answers cover trees."),
    ("First thought. answer: one\nFinal answer: two", "two", "First thought. answer: one"),
    ("**Answer:** Cool roofs.", "Cool roofs.", None),
    ("Just an idea with no mark.", "Just an idea with no mark.", None),
    ("Reasoning only. Answer:", "Reasoning only. Answer:", None),  # nothing after the mark: keep the reply
])
def test_chain_of_thought_replies_are_split_at_the_last_answer_mark(reply, answer, reasoning):
    assert split_reasoning(reply) == (answer, reasoning)


def test_gated_novelty_and_mmr_on_hand_computed_cases():
    c, n = [80, 10, 15, 16], [1.0, 0.6, 0.5, 0.1]
    assert gated_novelty(c, n, 15) == pytest.approx(1.0 + 0.1)  # 10 and 15 are not above 15
    assert gated_novelty(c, n, 0) == pytest.approx(2.2) and gated_novelty([], [], 15) == 0.0
    # lambda 0.5 on the 0-100 scale: 0.5 * C / 100 - 0.5 * (1 - N) per answer
    # (0.4 - 0) + (0.05 - 0.2) + (0.075 - 0.25) + (0.08 - 0.45) = 0.4 - 0.15 - 0.175 - 0.37 = -0.295
    assert mmr_ab(c, n, 0.5) == pytest.approx(-0.295)
    assert mmr_ab(c, n, 1.0) == pytest.approx((80 + 10 + 15 + 16) / 100)  # coherence only
    assert mmr_ab(c, n, 0.0) == pytest.approx(-(0 + 0.4 + 0.5 + 0.9))  # redundancy only
    assert mmr_ab([8, 6], [1.0, 0.7], 0.5, scale=10) == pytest.approx(0.4 + 0.3 - 0.15)  # the 1-10 scale
    with pytest.raises(ValueError, match="lambda"):
        mmr_ab(c, n, 1.5)
    with pytest.raises(ValueError, match="answer 2 has no coherence"):
        gated_novelty([50, None], [1.0, 0.5], 15)


def test_cot_prompt_asks_for_reasoning_and_shows_only_earlier_answers():
    chat = answer_prompt("Q?", ["Plant trees."], cot=True)
    assert '"Answer:"' in chat.messages[1]["content"] and "1. Plant trees." in chat.messages[1]["content"]
    assert chat.completion.endswith("2. Reasoning:") and "1. Answer: Plant trees." in chat.completion
    plain = answer_prompt("Q?", ["Plant trees."])
    assert "Answer:" not in plain.messages[1]["content"] and plain.logprobs is None
    assert answer_prompt("Q?", [], logprobs=1).logprobs == 1


def judge_model(server) -> OpenAICompatModel:
    """The judge as the CLI builds it (the generator's options, temperature 0, 16 tokens)."""
    return get_model(ModelConfig("openai/judge", base_url=server.url, api_key="k", temperature=0.0, max_tokens=16))


def cached_keys(run) -> set:
    return {json.loads(line)["key"] for line in (run / "calls.jsonl").read_text().splitlines()}


@pytest.fixture
def scripted_run(tmp_path, recorded):
    """The recorded answers judged on the 1-10 scale by a scripted judge on loopback, with
    meaning classes from its entailment verdicts.  Question A: 8; 11 (out of range, asked
    again) then 6, A1 -> A2 no; 9, A1 -> A3 yes, A3 -> A1 yes, and A3 repeats A1 (novelty
    stop).  Question B: 7; 3 (incoherent: <= 3), B1 -> B2 no."""
    server = ScriptedServer(["<score>8</score>",
                             "<score>11</score>", "<score>6</score>", "<verdict>no</verdict>",
                             "<score>9</score>", "<verdict>yes</verdict>", "<verdict>yes</verdict>",
                             "<score>7</score>",
                             "<score>3</score>", "<verdict>no</verdict>"])
    out = tmp_path / "scripted"
    result = CliRunner().invoke(main, ["aidanbench", "--model", f"replay/{recorded}", "--judge", "openai/judge",
                                       "--base-url", server.url, "--api-key", "k", "--coherence-scale", "10",
                                       "--entailment", "judge", "--out", str(out), "--quiet"])
    yield server, out, result
    server.close()


def test_paper_scale_gated_novelty_mmr_and_entropy_through_a_scripted_judge(scripted_run):
    server, out, result = scripted_run
    assert result.exit_code == 0, result.output
    assert server.requests == 10 and server.replies == []  # every scripted reply used, none more
    a = {(x.question_index, x.answer_num): x for x in RunFolder(out).read(Answer)}
    assert [a[0, k].coherence for k in (1, 2, 3)] == [8.0, 6.0, 9.0] and a[0, 2].judge_replies == \
        ["<score>11</score>", "<score>6</score>"]
    assert [a[0, k].semantic_class for k in (1, 2, 3)] == [0, 1, 0]
    assert [a[1, k].semantic_class for k in (1, 2)] == [0, 1]
    assert a[0, 3].stop == "repetitive" and a[1, 2].stop == "incoherent" and a[1, 2].coherence == 3.0
    assert all(x.coherence_scale == 10 for x in a.values())
    q = {x.question_index: x for x in RunFolder(out).read(QuestionResult)}
    n = {k: x.novelty for k, x in a.items()}
    assert (q[0].answers, q[0].stop_reason, q[1].answers, q[1].stop_reason) == (2, "repetitive", 1, "incoherent")
    # gated: every answer above 3 counts, the repetitive stopping answer too; B2 at 3 does not
    assert q[0].gated_novelty == pytest.approx(n[0, 1] + n[0, 2] + n[0, 3], abs=1e-6)
    assert q[1].gated_novelty == pytest.approx(1.0)
    # MMR_AB at lambda 0.5 over the kept answers: 0.5 * C / 10 - 0.5 * (1 - N)
    assert q[0].mmr == pytest.approx(0.5 * 0.8 + 0.5 * 0.6 - 0.5 * (1 - n[0, 2]), abs=1e-6)
    assert q[1].mmr == pytest.approx(0.35)
    assert q[0].semantic_entropy == pytest.approx(math.log(2)) and q[0].semantic_classes == 2
    assert q[1].semantic_entropy == 0.0 and q[0].semantic_entropy_rb is None  # a replayed source has no logprobs
    models = json.loads((out / "metrics.json").read_text())["models"]
    total = models[f"replay/{out.parent / 'answers_in.jsonl'}"]
    assert total["mmr"] == pytest.approx(q[0].mmr + q[1].mmr, abs=1e-6)
    assert total["semantic_entropy"] == pytest.approx(math.log(2) / 2, abs=1e-6) and "mmr" in total["intervals"]
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert (config["coherence_scale"], config["coherence_stop"], config["entailment"], config["mmr_lambda"],
            config["cot"]) == (10, 3.0, "judge", 0.5, False)  # the stop in force, written out
    # the 1-10 prompt went to the judge, the 0-100 one never did
    from neocoder.benchmarks.aidanbench.loop import _score_prompt
    keys, judge = cached_keys(out), judge_model(server)
    question = a[0, 1].question
    asked = request_key(judge.request(_score_prompt("aidan_coherence_10.txt", 0, question=question,
                                                    answer=a[0, 1].answer)))
    never = request_key(judge.request(_score_prompt("aidan_coherence.txt", 0, question=question,
                                                    answer=a[0, 1].answer)))
    assert asked in keys and never not in keys
    assert "gated nov." in result.output and "MMR_AB" in result.output and "mean semantic entropy" in result.output


def test_resuming_on_another_coherence_scale_is_refused(scripted_run, recorded):
    server, out, _ = scripted_run
    result = CliRunner().invoke(main, ["aidanbench", "--model", f"replay/{recorded}", "--judge", "openai/judge",
                                       "--base-url", server.url, "--api-key", "k", "--out", str(out), "--quiet"])
    assert result.exit_code != 0 and "coherence_scale" in result.output and "10-point" in result.output
    assert server.requests == 10  # refused before any call


def test_rescore_from_stored_scores_with_zero_model_calls(scripted_run, tmp_path, no_models):
    server, out, _ = scripted_run
    before = digest(out)
    same = rescore_run(out, tmp_path / "same")
    orig = {x.question_index: x for x in RunFolder(out).read(QuestionResult)}
    for i, x in enumerate(next(iter(same.results.values()))):
        assert (x.answers, x.novelty_sum, x.stop_reason, x.gated_novelty, x.mmr, x.semantic_entropy) == \
            (orig[i].answers, orig[i].novelty_sum, orig[i].stop_reason, orig[i].gated_novelty, orig[i].mmr,
             orig[i].semantic_entropy)
    # stricter: coherence must be above 7 -> A stops at A2 (6), B at B1 (7, exactly at the stop)
    strict = next(iter(rescore_run(out, tmp_path / "strict", coherence_stop=7).results.values()))
    assert [(x.answers, x.stop_reason) for x in strict] == [(1, "incoherent"), (0, "incoherent")]
    assert strict[0].gated_novelty == pytest.approx(1.0)  # A1 (8) counts; A2 (6) stopped A and is not above 7
    # looser: novelty 0 and coherence 2 keep both stopping answers; the run has no answer after them
    loose = rescore_run(out, tmp_path / "loose", coherence_stop=2, novelty_stop=0.0)
    model = next(iter(loose.results))
    assert [(x.answers, x.stop_reason) for x in loose.results[model]] == [(3, "out of answers"), (2, "out of answers")]
    assert loose.totals[model]["out_of_answers"] == 2 and loose.totals[model]["answers"] == 5
    assert loose.results[model][0].semantic_entropy == pytest.approx(discrete_entropy([0, 1, 0]))
    assert loose.results[model][1].semantic_entropy == pytest.approx(math.log(2))
    assert server.requests == 10 and digest(out) == before  # no call, the run untouched
    stops = {(x.question_index, x.answer_num): x.stop for x in RunFolder(tmp_path / "strict").read(Answer)}
    assert stops == {(0, 1): None, (0, 2): "incoherent", (1, 1): "incoherent"}  # answers after the stop left out
    metrics = json.loads((tmp_path / "loose" / "metrics.json").read_text())
    assert metrics["model_calls"] == 0 and metrics["original"][model]["answers"] == 3


def test_rescore_command_writes_a_new_folder_and_never_overwrites_a_run(scripted_run, tmp_path, recorded, no_models):
    _, out, _ = scripted_run
    result = CliRunner().invoke(main, ["aidanbench", "rescore", str(out), "--coherence-stop", "7"])
    assert result.exit_code == 0, result.output
    assert "answers 3 -> 1" in result.output and "model calls 0" in result.output
    assert (out.parent / "scripted-rescore-c7-n0.15" / "records.jsonl").is_file()
    lam = CliRunner().invoke(main, ["aidanbench", "rescore", str(out), "--coherence-stop", "7", "--mmr-lambda", "1"])
    assert lam.exit_code == 0 and (out.parent / "scripted-rescore-c7-n0.15-l1").is_dir()  # not over the other
    again = CliRunner().invoke(main, ["aidanbench", "rescore", str(out), "--coherence-stop", "7"])
    assert again.exit_code == 0, again.output  # an earlier re-score is replaced
    itself = CliRunner().invoke(main, ["aidanbench", "rescore", str(out), "--out", str(out)])
    assert itself.exit_code != 0 and "the run itself" in itself.output
    other = CliRunner().invoke(main, ["aidanbench", "rescore", str(out), "--out", str(out.parent / "scripted")])
    assert other.exit_code != 0
    (tmp_path / "another").mkdir()
    (tmp_path / "another" / "manifest.json").write_text((out / "manifest.json").read_text())
    refused = CliRunner().invoke(main, ["aidanbench", "rescore", str(out), "--out", str(tmp_path / "another")])
    assert refused.exit_code != 0 and "never overwritten" in refused.output


def test_rescore_of_a_novelty_only_run(tmp_path, recorded, embedder, request):
    gen = get_model(f"replay/{recorded}")
    run_benchmark(gen.recorded_items(), gen, None, embedder, RunFolder(tmp_path / "run"), settings(tmp_path / "run"),
                  progress=False)
    RunFolder(tmp_path / "run").write_manifest(Manifest.capture("aidanbench", settings(tmp_path / "run").public()))
    request.getfixturevalue("no_models")  # from here on no model may be built
    same = rescore_run(tmp_path / "run", tmp_path / "same")
    model = next(iter(same.results))
    assert [(q.answers, q.stop_reason) for q in same.results[model]] == [(2, "repetitive"), (3, "max answers")]
    assert same.results[model][0].gated_novelty is None and same.results[model][0].mmr is None  # no judge
    capped = rescore_run(tmp_path / "run", tmp_path / "capped", max_answers=1)
    assert [(q.answers, q.stop_reason) for q in capped.results[model]] == [(1, "max answers"), (1, "max answers")]


def test_chain_of_thought_answers_through_a_scripted_generator(tmp_path):
    generator = ScriptedServer(["Nothing is listed yet.\nAnswer: Plant street trees for shade.",
                                "Trees are covered.\nAnswer: Paint roofs white to reflect sunlight."])
    questions = tmp_path / "q.txt"
    questions.write_text("What could cities do about heat?\n")
    out = tmp_path / "cot"
    try:
        result = CliRunner().invoke(main, ["aidanbench", "--model", "openai/gen", "--base-url", generator.url,
                                           "--api-key", "k", "--judge", "none", "--cot", "--max-answers", "2",
                                           "--questions", str(questions), "--out", str(out), "--quiet"])
        assert result.exit_code == 0, result.output
        answers = sorted(RunFolder(out).read(Answer), key=lambda x: x.answer_num)
        assert [x.answer for x in answers] == ["Plant street trees for shade.",
                                               "Paint roofs white to reflect sunlight."]
        assert [x.reasoning for x in answers] == ["Nothing is listed yet.", "Trees are covered."]
        # the second prompt listed the first answer only, not its reasoning
        gen = get_model(ModelConfig("openai/gen", base_url=generator.url, api_key="k", temperature=0.7, max_tokens=256))
        second = answer_prompt("What could cities do about heat?", ["Plant street trees for shade."], cot=True)
        assert request_key(gen.request(second)) in cached_keys(out)
        assert json.loads((out / "manifest.json").read_text())["config"]["cot"] is True
    finally:
        generator.close()


def test_entailment_by_embedding_and_bad_options(tmp_path, recorded):
    out = tmp_path / "emb"
    result = CliRunner().invoke(main, ["aidanbench", "--model", f"replay/{recorded}", "--judge", "none",
                                       "--entailment", "embedding", "--entailment-threshold", "0.8", "--out", str(out),
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    q = {x.question_index: x for x in RunFolder(out).read(QuestionResult)}
    classes = {(x.question_index, x.answer_num): x.semantic_class for x in RunFolder(out).read(Answer)}
    assert classes[0, 3] == 0  # the repeated idea (cosine >= 0.8 with A1) joins A1's class
    assert q[1].semantic_classes == 3 and q[1].semantic_entropy == pytest.approx(math.log(3))
    assert json.loads((out / "manifest.json").read_text())["config"]["entailment_threshold"] == 0.8
    bad = CliRunner().invoke(main, ["aidanbench", "--model", f"replay/{recorded}", "--judge", "none",
                                    "--entailment", "judge", "--out", str(tmp_path / "bad"), "--quiet"])
    assert bad.exit_code != 0 and "--entailment judge" in bad.output
    missing = CliRunner().invoke(main, ["aidanbench", "--judge", "none"])
    assert missing.exit_code != 0 and "--model and --judge are required" in missing.output


def test_an_unreadable_entailment_verdict_leaves_the_answer_without_a_class(tmp_path, recorded):
    server = ScriptedServer(["<score>80</score>", "<score>60</score>", "maybe", "it depends", "hmm"])
    out = tmp_path / "unreadable"
    try:
        result = CliRunner().invoke(main, ["aidanbench", "--model", f"replay/{recorded}", "--judge", "openai/judge",
                                           "--base-url", server.url, "--api-key", "k", "--entailment", "judge",
                                           "--limit", "1", "--max-answers", "2", "--out", str(out), "--quiet"])
        assert result.exit_code == 0, result.output
        assert server.requests == 5  # the verdict asked once and retried twice, then given up
    finally:
        server.close()
    answers = sorted(RunFolder(out).read(Answer), key=lambda x: x.answer_num)
    assert [x.semantic_class for x in answers] == [0, None] and answers[1].error is None  # not a question error
    (q,) = RunFolder(out).read(QuestionResult)
    assert (q.answers, q.stop_reason, q.semantic_entropy, q.semantic_classes) == (2, "max answers", None, None)
    assert q.mmr is not None  # the other analyses stand


def test_resume_with_entailment_recomputes_classes_from_the_cache(scripted_run, tmp_path, recorded):
    server, out, _ = scripted_run
    cut = tmp_path / "cut"
    cut.mkdir()
    rows = (out / "records.jsonl").read_text().splitlines()
    assert [json.loads(r)["answer_num"] for r in rows[:2]] == [1, 2]
    (cut / "records.jsonl").write_text("\n".join(rows[:2]) + "\n")  # died after A2: A1, A2 kept, A unfinished
    (cut / "calls.jsonl").write_text((out / "calls.jsonl").read_text())
    result = CliRunner().invoke(main, ["aidanbench", "--model", f"replay/{recorded}", "--judge", "openai/judge",
                                       "--base-url", server.url, "--api-key", "k", "--coherence-scale", "10",
                                       "--entailment", "judge", "--out", str(cut), "--quiet"])
    assert result.exit_code == 0, result.output
    assert server.requests == 10 and "model calls 0 made" in result.output  # A1 -> A2 asked again from the cache
    whole = {x.question_index: x for x in RunFolder(out).read(QuestionResult)}
    resumed = {x.question_index: x for x in RunFolder(cut).read(QuestionResult)}
    assert resumed == whole
    assert {(x.question_index, x.answer_num): x.semantic_class for x in RunFolder(cut).read(Answer)} == \
        {(0, 1): 0, (0, 2): 1, (0, 3): 0, (1, 1): 0, (1, 2): 1}
