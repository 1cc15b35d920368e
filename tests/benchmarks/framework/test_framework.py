"""The creativity framework (neocoder/benchmarks/framework/) against a scripted OpenAI-style
panel on loopback: the STOP majority, the greedy choice, per-step entropy on hand-computed
classes, GET's top-n, the early stop at T, the verdict from the most confident analyst, the
tokens of both judges; the NLI backend with a small randomly initialised model; the
domain loaders; AUARC; the task end to end with resume."""

import hashlib
import json
import math
from importlib import resources
from pathlib import Path

import pytest
from checkout import CHECKOUT
from framework_panel import USAGE, entail, panel_respond, prompt_of, with_logprob
from loopback import RespondingServer

from neocoder.api import run
from neocoder.benchmarks.framework import domains
from neocoder.benchmarks.framework.calls import Meter
from neocoder.benchmarks.framework.chateval import ChatEvalJudge, majority
from neocoder.benchmarks.framework.config import FrameworkConfig
from neocoder.benchmarks.framework.entailment import EmbeddingEntailment, LLMEntailment, NLIEntailment
from neocoder.benchmarks.framework.records import FrameworkSolution, FrameworkStep
from neocoder.benchmarks.framework.retrieval import (
    FragmentIndex,
    JudgeSettings,
    RetrievalJudge,
)
from neocoder.benchmarks.framework.scores import auarc
from neocoder.benchmarks.framework.stepwise import StepSettings, run_steps, summarise
from neocoder.config import ModelConfig
from neocoder.errors import NeocoderError
from neocoder.models import get_model
from neocoder.models.embedders import Embedder
from neocoder.store import RunFolder

# step 1: seeds 0-3 give two equal steps, one other, one STOP; step 2: three of four say STOP
STEP1 = {0: ("Use the towel.", -0.5), 1: ("use the towel.", -1.0), 2: ("Boil the water.", -0.2), 3: ("STOP", -0.1)}
STEP2 = {0: ("STOP", -0.3), 1: ("Dry it.", -0.4), 2: ("STOP", -0.2), 3: ("STOP", -0.9)}


def step_server_respond(kind, body):
    prompt = prompt_of(kind, body)
    if "Statement A:" in prompt:
        return entail(prompt), None
    table = STEP2 if "Step 1: Boil the water." in prompt else STEP1
    return with_logprob(*table[body["seed"]])


@pytest.fixture
def step_model():
    with RespondingServer(step_server_respond, usage=USAGE) as server:
        with get_model(ModelConfig("openai/scripted", base_url=server.url, api_key="k", api="completion")) as model:
            yield model, server


def test_stop_needs_a_strict_majority():
    from neocoder.benchmarks.framework.stepwise import stop_majority
    assert not stop_majority([True] * 5 + [False] * 5)  # a 5-5 tie goes on (Sec. 3.2: "majority")
    assert stop_majority([True] * 6 + [False] * 4)
    assert not stop_majority([True, False]) and stop_majority([True]) and not stop_majority([False, False, True])


def test_step_classes_entropy_greedy_choice_and_stop_majority(step_model):
    model, server = step_model
    problem = domains.Problem("macgyver", "p1", "Clean the stain.")
    ent = LLMEntailment(model)
    settings = StepSettings(candidates=4, temperature=1.0, top_p=0.9, max_steps=5)
    steps = list(run_steps(problem, model, ent, settings))
    first, second = steps
    assert first.classes == [0, 0, 1, 2]  # "use the towel." entails and is entailed by "Use the towel."
    assert first.stops == [False, False, False, True]
    # Rao-Blackwellised: p(c) from exp(mean log-probability), normalised over the sampled classes
    w = {0: math.exp(-0.5) + math.exp(-1.0), 1: math.exp(-0.2), 2: math.exp(-0.1)}
    total = sum(w.values())
    assert first.entropy == pytest.approx(-sum(v / total * math.log(v / total) for v in w.values()))
    assert first.estimator == "rao-blackwell"
    assert first.chosen == 2  # the highest mean log-probability that is not a STOP vote (-0.1 is STOP)
    assert second.stopped and second.chosen is None  # 3 of 4 say STOP: a majority
    sent = [body for kind, body in server.requests if "Statement A:" not in prompt_of(kind, body)]
    assert {b["top_p"] for b in sent} == {0.9} and {b["temperature"] for b in sent} == {1.0}
    assert sorted(b["seed"] for b in sent[:4]) == [0, 1, 2, 3]
    summary = summarise(steps, 5)
    assert summary["steps"] == ["Boil the water."] and summary["stop_reason"] == "stop"
    assert summary["divergent"] == pytest.approx(first.entropy)  # the STOP step is not part of the score
    assert first.tokens["calls"] == 4 and first.tokens["prompt_tokens"] == 40


def test_discrete_entropy_without_logprobs_and_greedy_falls_back_to_the_largest_class():
    from neocoder.benchmarks.framework.stepwise import greedy_choice, step_entropy
    h, how = step_entropy([0, 0, 1, 1], [None, -1.0, -1.0, -1.0])
    assert how == "discrete" and h == pytest.approx(math.log(2))
    assert greedy_choice(["a", "b", "c", "d"], [False, False, False, True], [None] * 4, [0, 1, 1, 2]) == 1


class WordsEmbedder(Embedder):
    """Bag-of-words vectors over a fixed vocabulary: cosine = word overlap, by hand."""

    name = "words"
    VOCAB = ("ladder", "height", "rope", "safety", "fire", "water", "cost")

    def _embed(self, texts):
        return [[1.0 if w in t.lower() else 0.0 for w in self.VOCAB] or [0.0] for t in texts]


def test_get_returns_the_top_n_by_cosine_best_first():
    index = FragmentIndex(WordsEmbedder())
    index.add(["the ladder height matters", "rope is weak", "fire and water", "ladder height and rope"], "a")
    assert index.get("ladder height", 2) == [0, 3]  # cos 1.0, then 0.816; the others 0
    assert index.get("rope", 1) == [1]
    assert index.get("rope", 10) == [1, 3, 0, 2]  # all four, ties kept in insertion order
    assert FragmentIndex(WordsEmbedder()).get("x", 3) == []


def judge_with(respond, **settings):
    server = RespondingServer(respond, usage=USAGE)
    model = get_model(ModelConfig("openai/panel", base_url=server.url, api_key="k", api="completion"))
    return server, model, RetrievalJudge(model, WordsEmbedder(), JudgeSettings(**settings))


def test_retrieval_judge_stops_early_above_t_and_the_most_confident_analyst_decides():
    server, model, judge = judge_with(panel_respond((0.9, 0.2, 0.7), ("YES", "NO", "NO")), threshold=0.5)
    with server, model:
        result = judge.judge("Reach the shelf.", "Step 1: climb the ladder.", {"safety": "no harm"})
    v = result.verdicts["safety"]
    assert v["rounds"] == 1  # mean 0.6 > 0.5 after round 1
    assert v["analyst"] == "problem analyst" and v["verdict"] is True  # its YES, not the others' NO
    assert v["confidence"] == pytest.approx(0.6)
    # 2 initial (problem, solution) + criterion init + 3 discussion + 3 confidence + 1 verdict
    assert result.cost == {"calls": 10, "prompt_tokens": 100, "completion_tokens": 50}
    verdict_prompts = [prompt_of(k, b) for k, b in server.requests if "Verdict: [[" in prompt_of(k, b)]
    assert len(verdict_prompts) == 1 and "You are the problem analyst" in verdict_prompts[0]


def test_retrieval_judge_goes_on_below_t_up_to_the_round_cap():
    server, model, judge = judge_with(panel_respond((0.3, 0.5, 0.7)), threshold=0.5, rounds=2)
    with server, model:
        result = judge.judge("P", "S", {"feasibility": "doable", "safety": "no harm"})
    for v in result.verdicts.values():
        assert v["rounds"] == 2  # mean 0.5 is not above T = 0.5
        assert v["analyst"] == "criterion analyst"
    assert result.cost["calls"] == 2 + 2 * (1 + 2 * 6 + 1)
    # the second round's discussion retrieves the first round's answers (GET with k = 5)
    discuss = [t for t in result.transcript if t["phase"] == "discuss"]
    assert all(len(t["retrieved"]) <= 5 for t in discuss) and discuss[-1]["retrieved"]


def test_chateval_counts_every_call_and_takes_the_majority():
    votes = iter(["YES]] ([0.8])", "NO]] ([0.1])", "YES]] ([0.6])"])

    def respond(kind, body):
        prompt = prompt_of(kind, body)
        if "Judgement: [[" in prompt:
            return next(votes), None
        return "I think it works because the ladder is tall.", None
    with RespondingServer(respond, usage=USAGE) as server:
        with get_model(ModelConfig("openai/ce", base_url=server.url, api_key="k", api="completion")) as model:
            result = ChatEvalJudge(model, JudgeSettings(chateval_rounds=2)).judge("P", "S", {"safety": "no harm"})
        last_turn = [prompt_of(k, b) for k, b in server.requests][5]
    v = result.verdicts["safety"]
    assert v["verdict"] is True and v["votes"] == [True, False, True]
    assert v["confidence"] == pytest.approx(0.5)
    assert result.cost == {"calls": 9, "prompt_tokens": 90, "completion_tokens": 45}  # 2 rounds x 3 + 3 verdicts
    assert last_turn.count("I think it works") == 5  # the whole history so far, appended one by one
    assert majority([True, False]) is None and majority([None, False]) is False


def test_auarc_by_hand():
    # ranked by confidence: right, wrong, right -> accuracies 1, 1/2, 2/3
    assert auarc([True, True, False], [0.9, 0.1, 0.5]) == pytest.approx((1 + 0.5 + 2 / 3) / 3)
    assert auarc([], []) is None


def tiny_nli_model(folder: Path, labels=("entailment", "neutral", "contradiction")) -> Path:
    """A randomly initialised BERT cross-encoder with a word-level tokenizer, saved to
    ``folder``: its outputs mean nothing; loading, batching and labels are real."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "dog", "ran", "a", "mat"]
    (folder / "vocab.txt").write_text("\n".join(words) + "\n")
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)
    config = BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64, num_labels=len(labels),
                        id2label=dict(enumerate(labels)), label2id={n: i for i, n in enumerate(labels)})
    BertForSequenceClassification(config).save_pretrained(folder)
    return folder


def test_nli_backend_classifies_in_batches_with_a_small_random_model(tmp_path):
    folder = tiny_nli_model(tmp_path)
    nli = NLIEntailment(str(folder), batch=3)
    pairs = [("the cat sat", "a cat sat"), ("the dog ran", "the cat sat"), ("a mat", "the mat"),
             ("the cat", "the dog"), ("a dog", "a cat")]
    verdicts = nli.entails(pairs)
    assert len(verdicts) == 5 and all(isinstance(v, bool) for v in verdicts) and nli.batches == 2
    texts = ["the cat sat", "the dog ran", "a mat", "the cat sat"]
    classes = nli.classes(texts)
    # the greedy rule, checked against the model's own pairwise verdicts
    firsts: list[str] = []
    for text, got in zip(texts, classes):
        match = next((i for i, m in enumerate(firsts) if nli.entails([(m, text), (text, m)]) == [True, True]), None)
        if match is None:
            firsts.append(text)
            match = len(firsts) - 1
        assert got == match
    assert nli.name == f"nli:{folder}"


def test_nli_backend_refuses_a_model_without_an_entailment_label(tmp_path):
    folder = tiny_nli_model(tmp_path, labels=("positive", "negative"))
    with pytest.raises(NeocoderError, match="no entailment label"):
        NLIEntailment(str(folder))
    with pytest.raises(NeocoderError, match="cannot load"):
        NLIEntailment(str(tmp_path / "missing"))


def test_embedding_backend_on_hand_made_pairs():
    from neocoder.models.embedders import get_embedder
    ent = EmbeddingEntailment(get_embedder("local/all-MiniLM-L6-v2"), 0.7)
    classes = ent.classes(["Wrap the blanket around your legs.", "Wrap your legs in the blanket.",
                           "Use the compass to find north.", "Find north with the compass."])
    assert classes == [0, 0, 1, 1]
    assert ent.name.startswith("embedding:local/all-MiniLM-L6-v2")


def test_llm_backend_on_hand_made_pairs(step_model):
    model, _ = step_model
    ent = LLMEntailment(model, Meter())
    assert ent.classes(["A cat.", "a cat.", "A dog.", "A CAT."]) == [0, 0, 1, 0]
    # a match costs both directions, a miss one: 2 (a cat.) + 1 (A dog. vs A cat.) + 2 (A CAT.)
    assert ent.meter.calls == 5


def test_macgyver_is_shipped_with_its_manifest():
    root = resources.files("neocoder.macgyver")
    manifest = json.loads(root.joinpath("manifest.json").read_text())
    for name, sha in manifest["sha256"].items():
        assert hashlib.sha256(root.joinpath(name).read_bytes()).hexdigest() == sha
    problems = domains.macgyver_problems()
    assert len(problems) == manifest["problems"] == 1306
    assert len(domains.macgyver_annotations()) == manifest["annotations"] == 4417
    assert "Apache" in root.joinpath("NOTICE").read_text() and root.joinpath("LICENSE").is_file()
    assert set(problems[0].criteria) == {"feasibility", "safety", "effectiveness"}


def test_hypogen_reader_and_its_errors(tmp_path):
    good = tmp_path / "hypogen.jsonl"
    good.write_text(json.dumps({"bit": "Scans repeat.", "flip": "Reuse scans.", "chain_of_reasoning": "..."}) + "\n")
    (p,) = domains.hypogen_problems(good)
    assert p.text == "Bit: Scans repeat.\nFlip: Reuse scans." and p.problem_id == "0"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"bit": "x", "flip": "y"}) + "\n" + json.dumps({"bit": "x"}) + "\n")
    with pytest.raises(domains.DatasetError, match=r"bad.jsonl: record 1: field 'flip'"):
        domains.hypogen_problems(bad)
    (tmp_path / "broken.jsonl").write_text("{not json\n")
    with pytest.raises(domains.DatasetError, match="broken.jsonl: line 1"):
        domains.hypogen_problems(tmp_path / "broken.jsonl")
    with pytest.raises(domains.DatasetError, match="file not found"):
        domains.hypogen_problems(tmp_path / "none.jsonl")


def test_bookmia_reader_and_its_errors(tmp_path):
    snippet = "He woke. The sky was red. He ran outside. Birds fell. Nobody spoke. It ended there."
    path = tmp_path / "book_data.jsonl"
    path.write_text(json.dumps({"book_id": 7, "book": "B", "snippet_id": 3, "snippet": snippet, "label": 1}) + "\n")
    (p,) = domains.bookmia_problems(path)
    assert p.problem_id == "7-3" and p.extra["starter"] == "He woke. The sky was red."
    assert p.extra["ending"] == "Nobody spoke. It ended there." and p.extra["sentences"] == 2
    path.write_text(json.dumps({"book_id": 7, "snippet": 5}) + "\n")
    with pytest.raises(domains.DatasetError, match="record 0: field 'snippet' is int"):
        domains.bookmia_problems(path)
    path.write_text(json.dumps({"book_id": 7, "snippet": "One. Two."}) + "\n")
    with pytest.raises(domains.DatasetError, match="record 0: field 'snippet' has 2 sentences"):
        domains.bookmia_problems(path)


def task_respond(kind, body):
    prompt = prompt_of(kind, body)
    if "Statement A:" in prompt:
        return entail(prompt), None
    if "Step 1:" in prompt and "Step 2:" in prompt:
        return with_logprob("STOP", -0.1)
    if "Bit:" in prompt and prompt.rstrip().endswith("Step 1:"):
        return with_logprob(["Reuse the scans.", "Cache the distances."][body["seed"] % 2], -0.5)
    if "How sure are you" in prompt:
        return "ok [[0.8]] ([YES])", None
    if "Judgement: [[" in prompt or "Verdict: [[" in prompt:
        return "YES]] ([0.9])", None
    return "[[POINT]] the flip follows from the bit here", None


def words_used(kind, body):
    """A call's usage: the prompt's words in, five tokens out."""
    words = len(prompt_of(kind, body).split())
    return {"prompt_tokens": words, "completion_tokens": 5, "total_tokens": words + 5}


def test_the_task_end_to_end_with_both_judges_and_resume(tmp_path):
    data = tmp_path / "hypogen.jsonl"
    data.write_text("".join(json.dumps({"bit": f"Bit {i} holds.", "flip": f"Flip {i} holds."}) + "\n"
                            for i in range(2)))
    with RespondingServer(task_respond, usage_of=words_used) as server:
        model = ModelConfig("openai/scripted", base_url=server.url, api_key="k", api="completion")
        config = FrameworkConfig(model=model, judge=model, out=tmp_path / "run", domain="hypogen", data=data,
                                 candidates=2, max_steps=3, entailment="llm", judges="both", bootstrap=50,
                                 progress=False)
        first = run("framework", config)
        calls = len(server.requests)
        again = run("framework", config)
        assert len(server.requests) == calls  # a finished run asks nothing again
    m = first["metrics"]
    assert m["problems"] == 2 and m["steps"] == 2
    assert m["divergent"]["mean"]["value"] == pytest.approx(math.log(2))  # two classes, equal probability
    assert set(m["judges"]) == {"retrieval", "chateval"}
    assert m["judges"]["retrieval"]["yes"]["feasibility"]["value"] == 1.0
    # each call reports its own tokens (the prompt's words, the reply's): the judges' sums are those of
    # their own requests, and their ratio is not the ratio of their calls
    prompts = [prompt_of(k, b) for k, b in server.requests]
    chateval = [p for p in prompts if "one of several judges" in p]
    retrieval = [p for p in prompts if p.startswith("You are the ") and ("panel" in p)]
    ratio = m["token_ratio"]
    assert ratio["items"] == 2
    assert ratio["sums"]["chateval"]["prompt_tokens"] == sum(len(p.split()) for p in chateval)
    assert ratio["sums"]["retrieval"]["prompt_tokens"] == sum(len(p.split()) for p in retrieval)
    assert ratio["sums"]["retrieval"]["calls"] == len(retrieval) and ratio["sums"]["chateval"]["calls"] == len(chateval)
    assert ratio["ratio"]["prompt_tokens"] == pytest.approx(
        sum(len(p.split()) for p in retrieval) / sum(len(p.split()) for p in chateval))
    assert ratio["ratio"]["prompt_tokens"] != pytest.approx(ratio["ratio"]["calls"], rel=0.01)
    folder = RunFolder(tmp_path / "run", create=False)
    assert len(folder.read(FrameworkSolution)) == 2 and len(folder.read(FrameworkStep)) == 4
    assert again["metrics"]["divergent"] == m["divergent"]


def test_a_domain_that_reads_a_local_copy_refuses_to_start_without_it(tmp_path):
    model = ModelConfig("openai/none", base_url="http://127.0.0.1:9/v1", api_key="k")
    with pytest.raises(NeocoderError, match="--data FILE"):
        run("framework", FrameworkConfig(model=model, judge=model, out=tmp_path / "r", domain="bookmia"))
    assert not (tmp_path / "r").exists()


def test_the_report_shows_a_framework_run(tmp_path):
    from neocoder.report.html import build_report
    data = tmp_path / "hypogen.jsonl"
    data.write_text(json.dumps({"bit": "Bit 0 holds.", "flip": "Flip 0 holds."}) + "\n")
    with RespondingServer(task_respond, usage=USAGE) as server:
        model = ModelConfig("openai/scripted", base_url=server.url, api_key="k", api="completion")
        run("framework", FrameworkConfig(model=model, judge=model, out=tmp_path / "run", domain="hypogen",
                                         data=data, candidates=2, max_steps=3, entailment="llm", bootstrap=50,
                                         progress=False))
    index = build_report([tmp_path / "run"], tmp_path / "report")
    html = index.read_text()
    assert "Creativity framework" in html and "feasibility" in html
    pages = [p for p in (tmp_path / "report").glob("*.html") if p.name != "index.html"]
    assert len(pages) == 1 and pages[0].name in html  # the run's own page, linked from the index
    page = pages[0].read_text()
    assert "Reuse the scans." in page and "Cache the distances." in page  # both step candidates are listed


def test_the_configs_go_to_a_server_and_back():
    from neocoder.benchmarks.framework.config import ValidateConfig
    from neocoder.client import request_body
    from neocoder.serve.derive import to_config, unsendable
    from neocoder.serve.schemas import config_request
    model = ModelConfig("openai/g", base_url="http://127.0.0.1:9/v1", top_p=0.8)
    config = FrameworkConfig(model=model, judge=model.with_(spec="openai/j"), out=Path("o"), candidates=3,
                             data=Path("/etc/hypogen.jsonl"))
    body = request_body(config)
    assert "data" not in body  # a path of the caller's never goes to a server
    back = to_config(FrameworkConfig, config_request(FrameworkConfig).model_validate(body), out=Path("x"))
    assert back.candidates == 3 and back.judge.spec == "openai/j" and back.model.top_p == 0.8
    assert unsendable(FrameworkConfig) == [] and unsendable(ValidateConfig) == []
    config_request(ValidateConfig).model_validate(request_body(ValidateConfig(judge=model, out=Path("o"))))


@pytest.mark.llm
def test_one_real_step_with_the_local_model(tmp_path):
    """The local base model samples with top_p and log-probabilities: a Rao-Blackwellised step."""
    model = ModelConfig("local/gemma-3-270m", max_tokens=32)
    first = run("framework", FrameworkConfig(model=model, judge=model, out=tmp_path / "run", limit=1, candidates=2,
                                             max_steps=1, step_tokens=24, entailment="embedding", judges="none",
                                             bootstrap=10, progress=False))
    (step,) = RunFolder(tmp_path / "run", create=False).read(FrameworkStep)
    assert step.estimator == "rao-blackwell" and all(lp < 0 for lp in step.logprobs)
    assert first["metrics"]["problems"] == 1


def code_respond(kind, body):
    prompt = prompt_of(kind, body) if kind == "completion" else json.dumps(body["messages"])
    if "Plan a program" in prompt:
        done = "Step 1:" in prompt.split("Step 1:", 1)[-1] and prompt.count("Step ") > 2
        return ("STOP" if done else "Read the input and print the answer."), None
    if "a plan in a few numbered steps" in prompt or "carries out your plan" in prompt:
        return "```python\ndef solve():\n    print(0)\n```", None
    if "How sure are you" in prompt:
        return "ok [[0.9]] ([NO])", None
    if "Verdict: [[" in prompt:
        return "NO]] it prints a constant", None
    return "[[POINT]] the program prints a constant zero", None


@pytest.mark.docker
def test_the_code_domain_judges_the_final_program_in_docker(tmp_path):
    from neocoder.config import SandboxConfig
    with RespondingServer(code_respond, usage=USAGE) as server:
        model = ModelConfig("openai/scripted", base_url=server.url, api_key="k")
        result = run("framework", FrameworkConfig(model=model, judge=model, out=tmp_path / "run", domain="code",
                                                  limit=1, candidates=2, max_steps=2, entailment="llm",
                                                  sandbox=SandboxConfig(workers=1), bootstrap=20, progress=False))
    (solution,) = RunFolder(tmp_path / "run", create=False).read(FrameworkSolution)
    assert solution.program.strip().startswith("def solve():") and solution.sandbox_verdicts
    assert solution.sandbox_correct == all(v == "AC" for v in solution.sandbox_verdicts)
    assert solution.verdicts["retrieval"]["correctness"]["verdict"] is False
    m = result["metrics"]["sandbox"]
    assert m["correct"]["value"] == float(solution.sandbox_correct)
    assert m["retrieval_accuracy"]["value"] == float(not solution.sandbox_correct)  # said NO


def test_top_p_is_a_model_option_sent_only_when_set():
    from neocoder.models import Prompt
    prompt = Prompt(messages=({"role": "user", "content": "hi"},), completion="hi", code_prefix="")
    with RespondingServer(lambda kind, body: ("ok", None), usage=USAGE) as server:
        with get_model(ModelConfig("openai/a", base_url=server.url, api_key="k")) as plain:
            assert "top_p" not in plain.request(prompt)  # older call caches keep their keys
            plain.generate(prompt)
        with get_model(ModelConfig("openai/b", base_url=server.url, api_key="k", top_p=0.7)) as nucleus:
            assert nucleus.request(prompt)["top_p"] == 0.7
            nucleus.generate(prompt)
    assert "top_p" not in server.requests[0][1] and server.requests[1][1]["top_p"] == 0.7


def step_record(pid, step, text, entropy, stopped=False):
    return FrameworkStep(domain="bookmia", problem_id=pid, step=step, candidates=[text, "x"], stops=[stopped, False],
                         logprobs=[-1.0, -2.0], classes=[0, 1], entropy=entropy, estimator="rao-blackwell",
                         chosen=None if stopped else 0, stopped=stopped, entailment="test")


def test_bookmia_repeats_are_marked_and_left_out_of_the_scores():
    from neocoder.benchmarks.framework.scores import run_scores
    repeated = summarise([step_record("a", 1, "He ran.", 0.2), step_record("a", 2, "he ran.", 0.4)], 8)
    plain = summarise([step_record("b", 1, "He ran.", 1.0), step_record("b", 2, "She hid.", 0.6)], 8)
    assert repeated["repeated"] and not plain["repeated"]
    assert plain["divergent"] == pytest.approx(0.8) and plain["divergent_min"] == 0.6 and plain["divergent_max"] == 1.0
    assert plain["stop_reason"] == "cap"
    solutions = [FrameworkSolution(domain="bookmia", problem_id=p, model="m", **s)
                 for p, s in (("a", repeated), ("b", plain))]
    scores = run_scores(solutions, 20, 0, drop_repeated=True)
    assert scores["problems"] == 1 and scores["filtered_repeated"] == 1
    assert scores["divergent"]["mean"]["value"] == pytest.approx(0.8)


def test_a_bookmia_story_is_capped_at_its_own_middle_sentences(step_model):
    model, _ = step_model
    problem = domains.Problem("bookmia", "b1", "Opening: x\nClosing lines: y", {"sentences": 1})
    steps = list(run_steps(problem, model, LLMEntailment(model), StepSettings(candidates=4, max_steps=8)))
    assert len(steps) == 1 and not steps[0].stopped


def test_validation_against_macgyver_labels_and_the_two_runs_token_ratio(tmp_path):
    import importlib.util

    from neocoder.benchmarks.framework.config import ValidateConfig
    from neocoder.benchmarks.framework.validate import macgyver_pairs
    spec = importlib.util.spec_from_file_location("ratio", CHECKOUT / "scripts" /
                                                  "framework_token_ratio.py")
    ratio = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ratio)
    pairs = macgyver_pairs(4, 0)
    assert [p["pair_id"] for p in macgyver_pairs(2, 0)] == [p["pair_id"] for p in pairs[:2]]  # a prefix
    truth = [p["truth"] for p in pairs]

    def yes_panel(kind, body):
        prompt = prompt_of(kind, body)
        if "How sure are you" in prompt:
            return "ok [[0.8]] ([YES])", None
        if "Judgement: [[" in prompt or "Verdict: [[" in prompt:
            return "YES]] ([0.9])", None
        return "[[POINT]] the steps use only the listed items", None
    with RespondingServer(yes_panel, usage=USAGE) as server:
        judge = ModelConfig("openai/scripted", base_url=server.url, api_key="k", api="completion")
        out = {}
        for name in ("retrieval", "chateval"):
            out[name] = run("framework-validate", ValidateConfig(judge=judge, out=tmp_path / name, pairs=4,
                                                                 judges=name, bootstrap=50, progress=False))
    acc = out["retrieval"]["judges"]["retrieval"]
    assert acc["said_correct"] == 1.0  # the panel says YES to every criterion
    assert acc["accuracy"]["value"] == pytest.approx(sum(truth) / 4)
    assert out["chateval"]["judges"]["chateval"]["accuracy"]["value"] == pytest.approx(sum(truth) / 4)
    both = ratio.main(tmp_path / "retrieval", tmp_path / "chateval")
    assert len(both["pairs"]) == 4 and both["token_ratio"]["items"] == 4
    calls = both["token_ratio"]["sums"]
    assert both["token_ratio"]["ratio"]["prompt_tokens"] == pytest.approx(
        calls["retrieval"]["calls"] / calls["chateval"]["calls"])


def test_overall_is_the_mean_of_the_criteria_as_the_papers_tables():
    """Overall (creativity-framework Tables 3-5) beside the criteria: per solution the mean of
    its readable YES verdicts, over solutions the mean of the criteria's shares when every
    verdict is readable (GPT-4o on MacGyver: (0.82 + 0.86 + 0.21) / 3 = 0.63)."""
    from neocoder.benchmarks.framework.scores import overall, run_scores
    yes, no, unreadable = {"verdict": True}, {"verdict": False}, {"verdict": None}
    verdicts = {"a": {"feasibility": yes, "safety": yes, "effectiveness": no},
                "b": {"feasibility": no, "safety": yes, "effectiveness": no},
                "c": {"feasibility": yes, "safety": unreadable, "effectiveness": no}}
    assert overall(verdicts["a"], ["feasibility", "safety", "effectiveness"]) == pytest.approx(2 / 3)
    assert overall(verdicts["c"], ["feasibility", "safety", "effectiveness"]) == pytest.approx(1 / 2)
    assert overall({"safety": unreadable}, ["safety"]) is None
    solutions = [FrameworkSolution(domain="macgyver", problem_id=p, model="m", steps=["x"], entropies=[1.0],
                                   divergent=1.0, divergent_min=1.0, divergent_max=1.0, stop_reason="stop",
                                   verdicts={"retrieval": v}) for p, v in verdicts.items()]
    judged = run_scores(solutions, 50, 0, drop_repeated=False)["judges"]["retrieval"]
    assert judged["overall"]["value"] == pytest.approx((2 / 3 + 1 / 3 + 1 / 2) / 3)
    assert judged["overall"]["n"] == 3 and judged["overall"]["low"] <= judged["overall"]["value"]
    # with every verdict readable, the mean of the per-solution Overalls is the mean of the shares
    full = run_scores(solutions[:2], 50, 0, drop_repeated=False)["judges"]["retrieval"]
    shares = [full["yes"][c]["value"] for c in ("feasibility", "safety", "effectiveness")]
    assert full["overall"]["value"] == pytest.approx(sum(shares) / 3)
