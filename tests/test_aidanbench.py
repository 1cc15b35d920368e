"""AidanBench (issue 7): novelty, the stop rule, judge replies, resume, re-scoring, and an
end-to-end run on the real local model with the real local embedder."""

import json
import numpy as np
import pytest
from click.testing import CliRunner

from neocoder.aidanbench.embedders import get_embedder
from neocoder.aidanbench.loop import judge_score, resume_state, run_benchmark
from neocoder.aidanbench.scoring import novelty, parse_score, stop_reason
from neocoder.cli import main
from neocoder.config import AidanConfig, ModelConfig
from neocoder.models import get_model
from neocoder.models.openai_compat import OpenAICompatModel
from neocoder.records import Answer, QuestionResult
from neocoder.store import RunFolder

from loopback import ScriptedServer


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
    ("<score>85</score>", 85.0), ("  <SCORE> 7.5 </score> because...", 7.5), ("Score: 40", 40.0),
    ("rating = 100", 100.0), ("62", 62.0), ("0", 0.0),
    ("I would say it is fairly coherent.", None), ("<score>140</score>", None), ("", None), ("-3", None),
])
def test_judge_reply_parsing(reply, score):
    assert parse_score(reply) == score


def test_an_unparseable_judge_reply_is_retried_then_an_error_never_a_zero():
    server = ScriptedServer(["hmm, quite coherent", "<score>80</score>"])
    try:
        judge = OpenAICompatModel("openai/j", "j", base_url=server.url, api_key="k")
        score, replies, tokens = judge_score(judge, "aidan_coherence.txt", 2, question="Q?", answer="A.")
        assert score == 80.0 and len(replies) == 2 and tokens["completion"] == 14  # 7 per reply
        server.replies = ["nope", "still no", "never"]
        score, replies, _ = judge_score(judge, "aidan_coherence.txt", 2, question="Q?", answer="A.")
        assert score is None and len(replies) == 3  # bounded: the first ask and two retries
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


def test_aidanbench_end_to_end_on_the_local_model(tmp_path):
    out = tmp_path / "gemma"
    result = CliRunner().invoke(main, ["aidanbench", "--model", "local/gemma-3-270m", "--judge", "local/gemma-3-270m",
                                       "--limit", "2", "--max-answers", "2", "--max-tokens", "60", "--out", str(out),
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    folder = RunFolder(out)
    questions, answers = folder.read(QuestionResult), folder.read(Answer)
    assert len(questions) == 2 and all(q.stop_reason in ("incoherent", "repetitive", "max answers", "error")
                                       for q in questions)
    assert answers and all(a.novelty is not None and a.tokens["generator"]["completion"] for a in answers)
    assert all((a.coherence is None) == (a.error is not None) for a in answers)  # a score or an error
    again = CliRunner().invoke(main, ["aidanbench", "--model", "local/gemma-3-270m", "--judge", "local/gemma-3-270m",
                                      "--limit", "2", "--max-answers", "2", "--max-tokens", "60", "--out", str(out),
                                      "--quiet"])
    assert again.exit_code == 0, again.output
    assert "model calls 0 made" in again.output  # resumed: ended questions skipped, errors from the cache
