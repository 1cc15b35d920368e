"""The framework against a misbehaving endpoint (issue 46, tests/support/drifting.py): a run
with both judges (the retrieval multi-agent judge and ChatEval) and the LLM entailment
backend, and ``framework validate`` with the same judges, where every graded reply about
one problem (retrieval confidence and verdict, ChatEval judgement, entailment answer)
drifts one way.  Per reply kind: what the record says, that metrics.json counts exactly
the drifting replies sent as unreadable, per role and per criterion, that a run and a
validation count them alike, and that a lost solution fails the run naming the count."""

import json

import pytest
from click.testing import CliRunner
from drifting import DROP, EMPTY, MALFORMED, REASONING_ONLY, REFUSAL, THINK_ONLY, DriftingServer, Say, cut, echo, status

from neocoder import replies as r
from neocoder.api import run
from neocoder.benchmarks.framework.config import FrameworkConfig, ValidateConfig
from neocoder.benchmarks.framework.domains import macgyver_problems
from neocoder.benchmarks.framework.records import FrameworkSolution, JudgedPair
from neocoder.benchmarks.framework.validate import macgyver_pairs
from neocoder.cli import main
from neocoder.config import ModelConfig
from neocoder.models.embedders import Embedder
from neocoder.runner import LostItems
from neocoder.store import RunFolder

JUDGE_ROLES = ("retrieval confidence", "retrieval stance", "retrieval verdict", "chateval verdict",
               "chateval probability")
GOOD = {"confidence": "Clear enough now. [[0.8]] ([YES])", "verdict": "YES]] it holds",
        "judgement": "YES]] ([0.8])", "entail": "no"}
# per kind: what a drifting reply says in each graded role (None: the kind's Say as it is),
# and the reason every such reply is read as (None: a readable answer)
TEXT_KINDS = {
    "empty": (None, r.EMPTY),
    "cut off": ({"confidence": "The rope would hold since", "verdict": "it holds since the rope",
                 "judgement": "it holds since the rope", "entail": "Perhaps"}, r.CUT_OFF),
    "reasoning only": (None, r.REASONING_ONLY),
    "think only": (None, r.REASONING_ONLY),
    "echo of the example": ({"confidence": "[[<certainty>]] ([<stance>])", "verdict": "[[<verdict>]]",
                             "judgement": "[[<verdict>]] ([<probability>])", "entail": None}, r.ECHO),
    "echo of the prompt": (None, r.ECHO),
    "refusal": (None, r.REFUSAL),
    "two verdicts": ({"confidence": "[[0.9]] ([YES]) on reflection [[0.2]] ([NO])",
                      "verdict": "YES]] on reflection [[NO]]",
                      "judgement": "[[YES]] ([0.9]) on reflection [[NO]] ([0.1])", "entail": "Yes. No."},
                     r.CONFLICT),
    "other brackets": ({"confidence": "[[0.7]] [0.2] ([YES]) [NO]", "verdict": "[YES]]\n[NO] ... not feasible",
                        "judgement": "[YES]] [NO] ([0.4]) [0.6]", "entail": None}, r.CONFLICT),
    "single brackets": ({"confidence": "(0.9) (YES)", "verdict": "[YES] it holds", "judgement": "(YES) (0.9)",
                         "entail": None}, r.NO_MARKER),
    "other case": ({"confidence": "Fine. [[0.7]] ([yes])", "verdict": "[[yes]] it holds",
                    "judgement": "[[yes]] ([0.7])", "entail": "YES"}, None),
}
SAYS = {"empty": EMPTY, "reasoning only": REASONING_ONLY, "think only": THINK_ONLY, "refusal": REFUSAL}


def role_of(prompt: str) -> str | None:
    if "Statement A:" in prompt:
        return "entail"
    if "How sure are you" in prompt:
        return "confidence"
    if prompt.rstrip().endswith("Verdict: [["):
        return "verdict"
    if prompt.rstrip().endswith("Judgement: [["):
        return "judgement"
    return None


def prompt_of(kind, body):
    return body["prompt"] if kind == "completion" else body["messages"][-1]["content"]


class Script:
    """The endpoint's answers: good ones, except the graded replies about the drifting
    problem (its text in the prompt, or its candidate steps in an entailment question)."""

    def __init__(self, drift_kind: str, drifting: str | tuple, tries: int = 0):
        self.kind, self.tries = drift_kind, tries
        self.drifting = (drifting,) if isinstance(drifting, str) else drifting
        self.sent: dict = {}  # role -> drifting replies sent

    def step(self, prompt: str, seed: int) -> str:
        if "Step 2:" in prompt:
            return "STOP"
        mine = any(d in prompt for d in self.drifting)
        return (["Wedge the door with the mop.", "Tie the rope to the rail."] if mine
                else ["Fold the map into a funnel.", "Pour the water slowly."])[seed % 2]

    def __call__(self, kind, body):
        prompt = prompt_of(kind, body)
        role = role_of(prompt)
        if role is None:
            if prompt.rstrip().endswith("Step 1:") or "Step 2:" in prompt:
                return self.step(prompt, body.get("seed") or 0)
            return "[[POINT]] the items at hand are enough for the job"
        mine = (any(d in prompt for d in self.drifting) if role != "entail"
                else ("mop" in prompt or "rope to the rail" in prompt))
        if not mine:
            return GOOD[role]
        say = self.drift(role, kind, body)
        if say is not None:
            self.sent[role] = self.sent.get(role, 0) + 1
            return say
        return GOOD[role]

    def drift(self, role, kind, body):
        if self.kind in ("429 burst", "500 burst", "dropped once"):
            if self.tries <= 0:
                return None
            self.tries -= 1
            return {"429 burst": status(429), "500 burst": status(500), "dropped once": DROP}[self.kind]
        if self.kind == "500 always":
            return status(500)
        if self.kind == "malformed":
            return MALFORMED
        if self.kind == "echo of the prompt":
            return echo(kind, body)
        texts, _ = TEXT_KINDS[self.kind]
        if texts is None:
            return SAYS[self.kind]
        text = texts[role]
        if text is None:
            return None
        return cut(text) if self.kind == "cut off" else Say(text, kind=self.kind)


def roles_sent(script: Script) -> dict:
    """The judge roles a drifting reply was read in, with how many were sent."""
    c, v, j = (script.sent.get(k, 0) for k in ("confidence", "verdict", "judgement"))
    return {"retrieval confidence": c, "retrieval stance": c, "retrieval verdict": v, "chateval verdict": j,
            "chateval probability": j}


def model(server):
    return ModelConfig("openai/drifting", base_url=server.url, api_key="k", api="chat", max_retries=2)


def framework(server, out, **over):
    m = model(server)
    settings = dict(domain="macgyver", limit=2, candidates=2, max_steps=2, entailment="llm", judges="both",
                    rounds=1, chateval_rounds=1, bootstrap=20, progress=False)
    return FrameworkConfig(model=m, judge=m, out=out, **{**settings, **over})


class WordsEmbedder(Embedder):
    """Bag-of-words vectors over a few words (the retrieval judge's fragment index needs
    embeddings, not these tests: the shipped MiniLM would only make them slow)."""

    name = "words"
    VOCAB = ("rope", "door", "items", "water", "safe")

    def _embed(self, texts):
        return [[1.0 if w in t.lower() else 0.0 for w in self.VOCAB] + [1.0] for t in texts]


@pytest.fixture(autouse=True)
def cheap_embeddings(monkeypatch):
    import neocoder.models.embedders as embedders
    monkeypatch.setattr(embedders, "get_embedder", lambda spec, *a, **k: WordsEmbedder())


@pytest.fixture(scope="module")
def problems():
    got = macgyver_problems()[:2]
    assert got[0].text != got[1].text and got[0].text not in got[1].text
    return got


@pytest.mark.parametrize("kind", list(TEXT_KINDS))
def test_each_reply_kind_is_recorded_and_counted_as_sent(kind, problems, tmp_path):
    _, reason = TEXT_KINDS[kind]
    script = Script(kind, problems[0].text)
    with DriftingServer(script) as server:
        metrics = run("framework", framework(server, tmp_path / "run"))["metrics"]
    sent = roles_sent(script)
    assert sent["retrieval verdict"] == 3 and sent["chateval verdict"] == 9  # 3 criteria, 3 debaters each
    u = metrics["unreadable"]
    for role in JUDGE_ROLES:
        assert u[role]["replies"] == {"retrieval confidence": 18, "retrieval stance": 18, "retrieval verdict": 6,
                                      "chateval verdict": 18, "chateval probability": 18}[role]
        assert u[role]["unreadable"] == (sent[role] if reason else 0), (role, u[role])
        if reason:
            assert set(u[role]["reasons"]) == {reason}, (role, u[role])
    # the drifting problem's two candidates compared: one reply, two when it reads "yes" (both ways)
    entail_sent = script.sent.get("entail", 0)
    assert entail_sent == (0 if (TEXT_KINDS[kind][0] or {"entail": 1}).get("entail") is None else
                           1 if reason else 2)
    assert u["entailment"]["unreadable"] == (entail_sent if reason else 0)
    assert u["entailment"]["replies"] == 1 + max(entail_sent, 1)  # the other problem's "no": one reply
    solutions = {s.problem_id: s for s in RunFolder(tmp_path / "run", create=False).read(FrameworkSolution)}
    drifted, good = solutions[problems[0].problem_id], solutions[problems[1].problem_id]
    for criterion, v in drifted.verdicts["retrieval"].items():
        assert (v["verdict"], v["reason"]) == ((None, reason) if reason else (True, None)), (criterion, v)
        assert v["confidence"] == (None if reason else pytest.approx(0.7 if kind == "other case" else 0.8))
    for criterion, v in drifted.verdicts["chateval"].items():
        assert v["votes"] == ([None] * 3 if reason else [True] * 3)
        assert v["verdict"] is (None if reason else True)
        assert v["reason"] == ("no readable vote" if reason else None)
    assert all(v["verdict"] is True for j in good.verdicts.values() for v in j.values())
    # per criterion: the verdict replies of the drifting problem are the unreadable ones
    for judge, per in (("retrieval", 1), ("chateval", 3)):
        for criterion, block in metrics["judges"][judge]["unreadable"].items():
            assert block["unreadable"] == (per if reason else 0) and block["replies"] == 2 * per
        if reason:  # half the verdict replies unreadable: a number over the readable ones
            assert metrics["judges"][judge]["yes"]["safety"] == {**metrics["judges"][judge]["yes"]["safety"],
                                                                 "value": 1.0, "n": 1}
    o = metrics["outcome"]
    assert (o["items"], o["judged"], o["unreadable"], o["errors"]) == ((2, 1, 1, 0) if reason else (2, 2, 0, 0))


@pytest.mark.parametrize("kind, tries", [("429 burst", 2), ("500 burst", 2), ("dropped once", 1)])
def test_bursts_and_a_dropped_connection_are_retried_and_nothing_is_unreadable(kind, tries, problems, tmp_path):
    script = Script(kind, problems[0].text, tries=tries)
    with DriftingServer(script) as server:
        metrics = run("framework", framework(server, tmp_path / "run"))["metrics"]
        assert server.count({"429 burst": "rate limited", "500 burst": "http 500",
                             "dropped once": "dropped"}[kind]) == tries
    assert all(metrics["unreadable"][role]["unreadable"] == 0 for role in JUDGE_ROLES)
    assert metrics["outcome"]["judged"] == 2 and metrics["outcome"]["errors"] == 0


@pytest.mark.parametrize("kind, why", [("500 always", "InternalServerError"), ("malformed", "not a completion")])
def test_a_solution_lost_to_the_endpoint_fails_the_run_naming_the_count(kind, why, problems, tmp_path):
    script = Script(kind, problems[0].text)
    with DriftingServer(script) as server:
        with pytest.raises(LostItems, match=r"^1 of 2 solutions ended in error") as caught:
            run("framework", framework(server, tmp_path / "run"))
        assert why in str(caught.value)
        metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
        assert metrics["outcome"]["errors"] == 1 and metrics["outcome"]["judged"] == 1
        kept = {s.problem_id: s for s in RunFolder(tmp_path / "run", create=False).read(FrameworkSolution)}
        assert kept[problems[0].problem_id].error and why in kept[problems[0].problem_id].error
        done = CliRunner().invoke(main, ["framework", "--model", "openai/drifting", "--base-url", server.url,
                                         "--api-key", "k", "--api", "chat", "--max-retries", "0", "--domain",
                                         "macgyver", "--limit", "2", "--candidates", "2", "--max-steps", "2",
                                         "--rounds", "1", "--chateval-rounds", "1", "--judges", "both",
                                         "--bootstrap", "20", "--out", str(tmp_path / "cli"), "--quiet"])
    assert done.exit_code == 1, done.output
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: 1 of 2 solutions ended in error"), done.output


@pytest.mark.parametrize("kind", ["echo of the example", "two verdicts", "empty"])
def test_validate_counts_the_same_replies_the_same_way_as_a_run(kind, problems, tmp_path):
    pairs = macgyver_pairs(2, 0)
    assert pairs[0]["problem"] != pairs[1]["problem"]
    _, reason = TEXT_KINDS[kind]
    first = Script(kind, problems[0].text)
    with DriftingServer(first) as server:
        ran = run("framework", framework(server, tmp_path / "run"))["metrics"]
    second = Script(kind, pairs[0]["problem"])
    with DriftingServer(second) as server:
        m = model(server)
        checked = run("framework-validate", ValidateConfig(judge=m, out=tmp_path / "validate", pairs=2,
                                                           judges="both", rounds=1, chateval_rounds=1,
                                                           bootstrap=20, progress=False))
    assert roles_sent(first) == roles_sent(second)
    for role in JUDGE_ROLES:
        assert checked["unreadable"][role] == ran["unreadable"][role], role
        assert checked["unreadable"][role]["unreadable"] == roles_sent(second)[role]
    for judge in ("retrieval", "chateval"):
        block = checked["judges"][judge]
        assert block["unreadable"] == ran["judges"][judge]["unreadable"]
        assert block["set_aside"] == 1  # the drifting pair's verdicts are unreadable: no verdict, not NO
        assert block["accuracy"]["n"] == 1
    assert checked["outcome"]["unreadable"] == 1 == ran["outcome"]["unreadable"]
    pair = {p.pair_id: p for p in RunFolder(tmp_path / "validate", create=False).read(JudgedPair)}[pairs[0]["pair_id"]]
    assert all(v["reason"] == reason for v in pair.verdicts["retrieval"].values())


def test_a_criterion_mostly_unreadable_is_shown_as_unreadable_not_a_number(tmp_path):
    """Two of three problems' verdict replies drift: the CLI, metrics.json and the report show
    the criteria and Overall as unreadable, with the counts, and the run still exits 0 (one
    problem was judged)."""
    three = macgyver_problems()[:3]
    script = Script("two verdicts", (three[0].text, three[1].text))
    with DriftingServer(script) as server:
        done = CliRunner().invoke(main, ["framework", "--model", "openai/drifting", "--base-url", server.url,
                                         "--api-key", "k", "--api", "chat", "--domain", "macgyver", "--limit", "3",
                                         "--candidates", "2", "--max-steps", "2", "--rounds", "1",
                                         "--chateval-rounds", "1", "--judges", "both", "--bootstrap", "20",
                                         "--out", str(tmp_path / "run"), "--quiet"])
    assert done.exit_code == 0, done.output
    out = done.output
    assert "retrieval judge, safety: share YES unreadable" in out
    assert "verdicts: 1 of 3 replies readable, 2 unreadable (2 x conflicting markers)" in out
    assert "retrieval judge, overall (mean of the criteria): unreadable" in out
    assert "chateval verdict: 9 of 27 replies readable, 18 unreadable (18 x conflicting markers)" in out
    # the LLM entailment replies about the drifting problems' candidates conflict too: 2 of 3
    assert "entailment: 1 of 3 replies readable, 2 unreadable (2 x conflicting markers)" in out
    assert "divergent (mean of step entropies, nats): unreadable" in out
    assert "3 solutions: 1 judged, 2 unreadable, 0 in error" in out
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["judges"]["retrieval"]["yes"]["safety"]["value"] is None
    assert metrics["judges"]["retrieval"]["yes"]["safety"]["unreadable"] is True
    from neocoder.report.html import build_report
    build_report([tmp_path / "run"], tmp_path / "report")
    page = (tmp_path / "report" / "index.html").read_text()
    # 3 criteria and Overall for both judges, and divergent's mean, min and max (entailment mostly unreadable)
    assert page.count('<td class="num">unreadable</td>') == 11
    assert "1 of 3" in page and "2 conflicting markers" in page


def test_step_candidates_that_drift_are_set_aside_and_counted(problems, tmp_path):
    """Candidates that come back empty, as a refusal or as thinking only (inline, or apart
    from an empty text as a provider sends it) are no STOP vote and no class: the step's
    entropy rests on the readable one, and metrics count them."""
    bad = {0: EMPTY, 1: REFUSAL, 2: THINK_ONLY, 3: REASONING_ONLY}

    def respond(kind, body):
        prompt = prompt_of(kind, body)
        role = role_of(prompt)
        if role is not None:
            return GOOD[role]
        if prompt.rstrip().endswith("Step 1:"):
            seed = body.get("seed") or 0
            return bad.get(seed, ["Wedge the door with the mop.", "Tie the rope to the rail."][seed % 2])
        if "Step 2:" in prompt:
            return "STOP"
        return "[[POINT]] the items at hand are enough for the job"
    with DriftingServer(respond) as server:
        metrics = run("framework", framework(server, tmp_path / "run", candidates=5, judges="none"))["metrics"]
        assert server.count("empty") == 2 and server.count("refusal") == 2 and server.count("think only") == 2
        assert server.count("reasoning only") == 2
    u = metrics["unreadable"]["step candidate"]
    assert (u["replies"], u["unreadable"]) == (20, 8)  # 2 problems x (5 at step 1 + 5 STOP at step 2)
    assert u["reasons"] == {r.EMPTY: 2, r.REFUSAL: 2, r.REASONING_ONLY: 4}
    from neocoder.benchmarks.framework.records import FrameworkStep
    step = [s for s in RunFolder(tmp_path / "run", create=False).read(FrameworkStep) if s.step == 1][0]
    assert step.unreadable[:4] == [r.EMPTY, r.REFUSAL, r.REASONING_ONLY, r.REASONING_ONLY]
    assert step.stops == [False] * 5 and step.classes[:4] == [None] * 4 and not step.stopped and step.chosen == 4
    assert metrics["outcome"]["judged"] == 2


def _checker():
    import importlib.util

    from checkout import CHECKOUT
    spec = importlib.util.spec_from_file_location("check_framework_verdicts",
                                                  CHECKOUT / "scripts" / "check_framework_verdicts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kind", ["two verdicts", "other case"])
def test_the_verdict_checker_finds_no_contradiction_in_a_run_and_catches_a_forged_one(kind, problems, tmp_path,
                                                                                     capsys):
    checker = _checker()
    with DriftingServer(Script(kind, problems[0].text)) as server:
        run("framework", framework(server, tmp_path / "run"))
        pairs = macgyver_pairs(2, 0)
        run("framework-validate", ValidateConfig(judge=model(server), out=tmp_path / "validate", pairs=2,
                                                 judges="both", rounds=1, chateval_rounds=1, bootstrap=20,
                                                 progress=False))
    assert pairs and checker.main([str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    unread = 1 if kind == "two verdicts" else 0
    assert f"retrieval safety: verdict replies {2 - unread} readable, {unread} unreadable" in out
    assert f"chateval feasibility: verdict replies {6 - 3 * unread} readable, {3 * unread} unreadable" in out
    assert out.rstrip().endswith("0 contradictions")
    assert checker.main([str(tmp_path / "validate")]) == 0
    capsys.readouterr()
    # forge one record: a verdict its reply does not give, and a reading its reply does not give
    records = tmp_path / "run" / "records.jsonl"
    lines = [json.loads(x) for x in records.read_text().splitlines() if x.strip()]
    good = next(x for x in lines if x.get("type") == "framework_solution" and x["problem_id"] == problems[1].problem_id)
    good["verdicts"]["retrieval"]["safety"]["verdict"] = False
    entry = next(t for t in good["discussion"]["chateval"] if t["phase"] == "verdict")
    entry["readings"]["chateval probability"]["value"] = 0.3
    with records.open("a") as f:
        f.write(json.dumps(good) + "\n")
    assert checker.main([str(tmp_path / "run")]) == 1
    out = capsys.readouterr().out
    assert "retrieval safety: recorded verdict False, its replies say True" in out
    assert "its last marker says 0.8" in out and out.rstrip().endswith("2 contradictions")


def test_validate_says_per_criterion_how_many_replies_it_set_aside(tmp_path):
    pairs = macgyver_pairs(2, 0)
    with DriftingServer(Script("echo of the example", pairs[0]["problem"])) as server:
        # validate's judge takes no --base-url: the endpoint comes from the environment
        done = CliRunner().invoke(main, ["framework", "validate", "--judge", "openai/drifting", "--pairs", "2",
                                         "--judges", "both", "--rounds", "1", "--chateval-rounds", "1",
                                         "--bootstrap", "20", "--out", str(tmp_path / "v"), "--quiet"],
                                  env={"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "k"})
    assert done.exit_code == 0, done.output
    out = done.output
    assert "retrieval: accuracy" in out and "1 solutions set aside for an unreadable verdict" in out
    assert "retrieval judge, safety: 1 of 2 replies readable, 1 unreadable (1 x echo), 1 set aside" in out
    assert "chateval judge, safety: 3 of 6 replies readable, 3 unreadable (3 x echo), 3 set aside" in out
    assert "2 solutions: 1 judged, 1 unreadable, 0 in error" in out
