"""LiveIdeaBench as its authors run it (issue 38): ``--protocol official`` reading the
authors' prompts from their repository's files at run time, the critic's analysis + JSON
reply, the fluency pair, the refusal rule, the panel file and its rules, and the paper's
analyses over recorded runs, in the report (Chromium).

The clone is ``../shared/liveideabench/official`` (the authors' small files, MIT); the
idea writer and the judges are a real OpenAI-style HTTP server on loopback whose replies
are scripted here: the judges answer as the authors' critics do (a short analysis, then a
JSON block), some with ``<think>`` reasoning first."""

import csv
import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest
from browser import dump_dom, screenshot
from checkout import SHARED
from click.testing import CliRunner
from loopback import RespondingServer

from neocoder.api import run_ideas
from neocoder.benchmarks.ideas.analyses import analyse, correlation, pareto_front
from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.benchmarks.ideas.official import critic_models, load_official
from neocoder.benchmarks.ideas.panel_file import PanelWarning, load_panel, rule_breaks
from neocoder.benchmarks.ideas.records import FluencyGrade, Idea, IdeaJudgement
from neocoder.benchmarks.ideas.scoring import parse_reply, strip_reasoning
from neocoder.cli import main
from neocoder.config import ModelConfig
from neocoder.errors import NeocoderError, RecordError
from neocoder.store import RunFolder

CLONE = SHARED / "liveideabench" / "official"  # standing in for a user's clone of the authors' repository
PROMPTS = json.loads((CLONE / "utils" / "prompts.json").read_text(encoding="utf-8"))
IDEA_HEAD = PROMPTS["idea_prompt"]["description"].split("{{keywords}}")[0]
FALLBACK_TAIL = PROMPTS["idea_prompt"]["fallback_description"].split("{{keywords}}")[1][:200]
FLUENCY_HEAD = PROMPTS["fluency_critic_prompt"]["description"].split("{{keyword}}")[0]
CRITIC = PROMPTS["critic_prompt"]["description"]
KEYWORDS = "keyword,category\nmeteorology,Earth science\nperiodic table,Chemistry\nsoil,Biology\nearthquakes,\n"
JUDGES = "openai/j1,openai/j2,openai/j3,openai/j4"


def critic_reply(model: str, idea: str) -> str:
    """An analysis and a JSON block; j2 thinks first (with a decoy score in its reasoning)."""
    h = int(hashlib.sha256(f"{model}|{idea}".encode()).hexdigest(), 16)
    scores = {"originality": 1 + h % 10, "feasibility": 1 + (h >> 8) % 10, "clarity": 1 + (h >> 16) % 10}
    think = "<think>Maybe originality: 10? No, look closer.</think>\n" if model == "j2" else ""
    return (f"{think}The idea is plausible but its test is vague ({model}).\n\n"
            f"```json\n{json.dumps(scores, indent=4)}\n```")


class AuthorsServer(RespondingServer):
    """The writer, the critics and the fluency critic on 127.0.0.1, told apart by the
    authors' prompt texts (read from the clone); keeps (model, messages, body)."""

    def __init__(self):
        super().__init__(lambda kind, body: (self.answer(body), None))

    def log(self, kind, body):
        self.requests.append((body.get("model"), body.get("messages") or [], body))

    def answer(self, body) -> str:
        model, messages = body.get("model"), body.get("messages") or []
        user = messages[-1]["content"]
        if messages[0]["role"] == "system":
            return critic_reply(model, user)
        if user.startswith(FLUENCY_HEAD):
            return "B"
        keyword = user[len(IDEA_HEAD):].split('"')[0]
        if keyword == "soil" and FALLBACK_TAIL not in user:  # a refusal phrase in the middle of a reply
            return "Soil is a fine topic, but I cannot propose research on it."
        seed = body.get("seed") or 0
        variant = 1 if seed < 2 else 2  # ideas 1 and 2 are the same text; idea 3 differs
        return f"**Idea:** map {keyword} with sensor network design {variant} and test it against archives."

    def of(self, pred):
        return [(m, msgs, body) for m, msgs, body in self.requests if pred(m, msgs)]


@pytest.fixture
def server():
    s = AuthorsServer()
    yield s
    s.close()


@pytest.fixture
def keywords(tmp_path) -> Path:
    path = tmp_path / "keywords.csv"
    path.write_text(KEYWORDS)
    return path


def cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def official_args(server, keywords, out, *extra):
    return ["ideas", "--protocol", "official", "--liveideabench", str(CLONE), "--model", "openai/writer",
            "--base-url", server.url, "--api-key", "k", "--max-retries", "0", "--keywords", str(keywords),
            "--ideas-per-keyword", "3", "--bootstrap", "200", "--quiet", "--out", str(out), *extra]


# ----------------------------------------------------------------------------------------
# the official protocol end to end


def test_official_protocol_scores_every_idea_grades_pairs_and_names_its_files(tmp_path, server, keywords):
    out = tmp_path / "run"
    result = cli(*official_args(server, keywords, out, "--judges", JUDGES))
    assert result.exit_code == 0, result.output
    records = RunFolder(out).read()
    ideas = [r for r in records if isinstance(r, Idea)]
    judged = [r for r in records if isinstance(r, IdeaJudgement)]
    grades = [r for r in records if isinstance(r, FluencyGrade)]
    kept = [i for i in ideas if i.status == "ok"]
    # soil: refused (a phrase mid-reply) and asked again with the authors' fallback prompt, then kept
    soil = [i for i in ideas if i.keyword == "soil"]
    assert all(i.fallback and "I cannot" in i.refused_reply for i in soil) and all(i.status == "ok" for i in soil)
    assert len(server.of(lambda m, msgs: m == "writer" and FALLBACK_TAIL in msgs[-1]["content"])) == 3
    # every kept idea scored by three critics, read from the analysis + JSON format, the analysis kept
    assert len(kept) == 12 and len(judged) == 36 and all(j.scores and not j.error for j in judged)
    for j in judged:
        assert j.analysis.startswith("The idea is plausible") and "<think>" not in j.analysis
        assert j.scores == {k: float(v) for k, v in json.loads(
            critic_reply(j.judge_spec.split("/")[1], next(i.idea for i in kept if (i.keyword_index, i.idea_num)
                                                           == (j.keyword_index, j.idea_num))).split("```json")[1]
            .split("```")[0]).items()}
    # the idea is the whole reply (markdown kept), as the authors judge it
    assert kept[0].idea.startswith("**Idea:** map meteorology")
    # fluency: one pair of distinct ideas per keyword (1 and 3: idea 2 repeats idea 1), the authors' prompt
    assert sorted(g.keyword for g in grades) == sorted(["meteorology", "periodic table", "soil", "earthquakes"])
    assert all(g.idea_nums == [1, 3] and g.grade == "B" and g.score == 7.0 for g in grades)
    fluency = server.of(lambda m, msgs: msgs[-1]["content"].startswith(FLUENCY_HEAD))
    assert len(fluency) == 4 and all("design 1" in b["messages"][0]["content"] and "design 2" in
                                     b["messages"][0]["content"] for _, _, b in fluency)
    # the critics: the authors' text as the system message; budget and temperature from the judge config
    critics = server.of(lambda m, msgs: msgs[0]["role"] == "system")
    assert critics and all(msgs[0]["content"] == CRITIC for _, msgs, _ in critics)
    assert {(b.get("max_tokens") or b.get("max_completion_tokens"), b.get("temperature")) for _, _, b in critics} \
        == {(1024, 0.0)}
    # nothing of our own prompts was sent
    assert not any("Your keyword is" in json.dumps(msgs) for _, msgs, _ in server.requests)
    manifest = json.loads((out / "manifest.json").read_text())
    extra = manifest["extra"]
    assert manifest["config"]["protocol"] == "official" and extra["protocol"] == "official"
    assert extra["official_files"] == {
        "utils/prompts.json": hashlib.sha256((CLONE / "utils/prompts.json").read_bytes()).hexdigest()}
    assert "prompts" not in extra  # our prompt files were not used
    metrics = json.loads((out / "metrics.json").read_text())["models"]["openai/writer"]
    assert metrics["judgements"] == 36 and metrics["judge_errors"] == 0 and metrics["fluency_graded"] == 4
    assert "(official protocol)" in result.output


def test_our_protocol_stays_the_default_and_says_so(tmp_path, server, keywords):
    config = IdeasConfig(model=ModelConfig("openai/writer"), judges=[ModelConfig("openai/j1")], out=tmp_path)
    assert config.protocol == "ours"


def test_the_authors_panel_is_the_default_panel_of_the_official_protocol(tmp_path, server, keywords):
    shipped = load_panel()
    assert [e.spec.partition("/")[2] for e in shipped] == critic_models(CLONE)
    assert rule_breaks(shipped) == []
    out = tmp_path / "run"
    result = cli(*official_args(server, keywords, out, "--limit", "1"))
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert [s["name"] for s in manifest["extra"]["panel"]] == [e.name for e in shipped]
    assert manifest["extra"]["panel_rules"]["broken"] == []
    assert manifest["extra"]["panel_rules"]["critic_models"] == {
        "file": "config.py", "sha256": hashlib.sha256((CLONE / "config.py").read_bytes()).hexdigest(), "same": True}
    asked = {m for m, msgs, _ in server.requests if msgs and msgs[0]["role"] == "system"}
    assert asked and asked <= set(critic_models(CLONE))


# ----------------------------------------------------------------------------------------
# the reply parser: both formats, reasoning first


@pytest.mark.parametrize("reply,scores,analysis", [
    ("Solid.\n```json\n{\"originality\": 8, \"feasibility\": 6, \"clarity\": 7}\n```", (8, 6, 7), "Solid."),
    ("<think>originality: 2</think>Bold idea.\n{\"Originality\": 9, \"feasibility\": \"4\", \"clarity\": 5}",
     (9, 4, 5), "Bold idea."),
    ("originality: 8\nfeasibility: 6\nclarity: 7", (8, 6, 7), None),
    ("<think>feasibility: 1 ... done</think>\noriginality: 3\nfeasibility: 4\nclarity: 5", (3, 4, 5), None),
    ("Fine.\n```json\n{\"originality\": 11, \"feasibility\": 6, \"clarity\": 7}\n```", None, None),
    ("<think>originality: 8, feasibility: 6, clarity: 7 but I ran out of tokens", None, None),
])
def test_judge_replies_are_read_in_either_format(reply, scores, analysis):
    got, note = parse_reply(reply)
    assert (None if got is None else tuple(got[c] for c in ("originality", "feasibility", "clarity"))) == scores
    assert note == analysis


def test_reasoning_text_is_dropped_before_the_answer():
    assert strip_reasoning("<think>a\nb</think>\nB") == "\nB"
    assert strip_reasoning("half a thought</think>C") == "C"
    assert strip_reasoning("<think>never closed") == ""


@pytest.mark.parametrize("reply,official,ours", [
    ("I'm sorry, I cannot help with that.", True, True),
    ("Soil is a fine topic, but I can\u2019t propose research on it.", True, False),  # mid-reply: theirs only
    ("**Idea:** a sensor that shows why cells cannot divide in the cold.", False, False),
    ("<think>I cannot decide... fine.</think>**Idea:** map glaciers by drone.", False, False),
])
def test_the_refusal_rules_of_the_two_protocols(reply, official, ours):
    from neocoder.benchmarks.ideas.protocol import OursProtocol, make_protocol
    theirs, mine = make_protocol("official", CLONE), OursProtocol()
    assert theirs.refused(reply, theirs.extract_idea(reply)) is official
    assert mine.refused(reply, mine.extract_idea(reply)) is ours


def test_refusal_phrases_can_come_from_a_file(tmp_path):
    from neocoder.benchmarks.ideas.protocol import make_protocol
    phrases = tmp_path / "phrases.txt"
    phrases.write_text("# the authors' list, as the user copied it\nnot comfortable\n")
    proto = make_protocol("official", CLONE, phrases)
    assert proto.refused("I am not comfortable with this.", "x") and not proto.refused("I cannot.", "x")
    phrases.write_text("# nothing\n")
    with pytest.raises(RecordError, match="no refusal phrases"):
        make_protocol("official", CLONE, phrases)


# ----------------------------------------------------------------------------------------
# the clone, checked


def test_a_missing_or_damaged_clone_is_refused_naming_file_and_key(tmp_path, server, keywords):
    with pytest.raises(NeocoderError, match="not a LiveIdeaBench clone"):
        load_official(tmp_path)
    (tmp_path / "utils").mkdir()
    broken = dict(PROMPTS, fluency_critic_prompt={"description": "Compare {{keyword}} ideas."})
    (tmp_path / "utils" / "prompts.json").write_text(json.dumps(broken))
    with pytest.raises(RecordError, match=r"prompts.json: record fluency_critic_prompt.description: field "
                                          r"'description': has no \{\{A\}\} placeholder"):
        load_official(tmp_path)
    args = official_args(server, keywords, tmp_path / "run", "--judges", JUDGES)
    args[args.index("--liveideabench") + 1] = str(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0 and "{{A}}" in result.output
    assert server.requests == []


# ----------------------------------------------------------------------------------------
# panel rules


@pytest.mark.parametrize("judges,rule", [
    ("openai/openai/o1,openai/openai/o3-mini-high,openai/openai/gpt-4.5-preview,openai/qwen/qwq-32b",
     "organisation-cap"),
    ("openai/anthropic/claude-3.7-sonnet,openai/anthropic/claude-3.7-sonnet:thinking,openai/qwen/qwq-32b",
     "one-per-base"),
    ("openai/openai/o3-mini,openai/openai/o3-mini-high,openai/qwen/qwq-32b", "one-per-base"),
])
def test_a_panel_breaking_a_rule_is_refused_naming_the_rule(tmp_path, server, keywords, judges, rule):
    result = CliRunner().invoke(main, official_args(server, keywords, tmp_path / "run", "--judges", judges))
    assert result.exit_code != 0 and f"panel rule {rule}" in result.output
    assert server.requests == [] and not (tmp_path / "run").exists()


def test_a_panel_breaking_a_rule_runs_with_a_warning_when_asked(tmp_path, server, keywords):
    writer = ModelConfig("openai/writer", base_url=server.url, api_key="k", max_retries=0)
    specs = ["openai/openai/o1", "openai/openai/o3-mini-high", "openai/openai/gpt-4.5-preview", "openai/qwen/qwq-32b"]
    config = IdeasConfig(model=writer, judges=[writer.with_(spec=s, temperature=0.0, max_tokens=512) for s in specs],
                         out=tmp_path / "run", keywords=keywords, limit=1, protocol="official", liveideabench=CLONE,
                         panel_rules="warn", bootstrap=2, progress=False)
    with pytest.warns(PanelWarning, match="panel rule organisation-cap: 3 models of openai"):
        run_ideas(config)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["extra"]["panel_rules"]["broken"][0].startswith("panel rule organisation-cap")


def test_the_idea_model_never_judges_itself_and_is_named(tmp_path, server, keywords):
    writer = ModelConfig("openai/qwen/qwq-32b", base_url=server.url, api_key="k", max_retries=0)
    specs = ["openai/qwen/qwq-32b", "openai/j1", "openai/j2", "openai/j3"]
    config = IdeasConfig(model=writer, judges=[writer.with_(spec=s, temperature=0.0, max_tokens=512) for s in specs],
                         out=tmp_path / "run", keywords=keywords, limit=1, protocol="official", liveideabench=CLONE,
                         bootstrap=2, progress=False)
    with pytest.warns(PanelWarning, match="panel rule no-self-judging: openai/qwen/qwq-32b"):
        run_ideas(config)
    judged = RunFolder(tmp_path / "run").read(IdeaJudgement)
    assert judged and all(j.judge_spec != "openai/qwen/qwq-32b" for j in judged)


def test_a_clone_whose_critics_differ_from_the_shipped_panel_is_warned_about(tmp_path):
    from neocoder.benchmarks.ideas.panel_file import against_clone
    (tmp_path / "utils").mkdir()
    (tmp_path / "utils" / "prompts.json").write_text(json.dumps(PROMPTS))
    (tmp_path / "config.py").write_text('CRITIC_MODELS = ["openai/o3", "google/gemini-2.5-pro"]\n')
    with pytest.warns(PanelWarning, match="not the clone's CRITIC_MODELS"):
        assert against_clone(load_panel(), tmp_path)["same"] is False


def test_a_panel_file_gives_each_seat_its_own_model_options(tmp_path, server, keywords):
    panel = tmp_path / "panel.toml"
    panel.write_text('[[judge]]\nname = "a"\nspec = "openai/j1"\nmax_tokens = 4000\n\n'
                     '[[judge]]\nname = "b"\nspec = "openai/j2"\n\n[[judge]]\nname = "c"\nspec = "openai/j3"\n')
    result = cli(*official_args(server, keywords, tmp_path / "run", "--panel", str(panel), "--limit", "1"))
    assert result.exit_code == 0, result.output
    budgets = {m: b["max_tokens"] for m, msgs, b in server.requests if msgs[0]["role"] == "system"}
    assert budgets == {"j1": 4000, "j2": 1024, "j3": 1024}
    panel.write_text('[[judge]]\nname = "a"\nspec = "openai/j1"\nmax_tokenz = 4000\n')
    with pytest.raises(RecordError, match="record judge 1: field 'max_tokenz': not a model option"):
        load_panel(panel)


# ----------------------------------------------------------------------------------------
# the paper's analyses over recorded runs


def test_correlations_and_the_pareto_front_follow_their_definitions():
    x, y = [1.0, 2.0, 3.0, 4.0, 5.0, 7.0], [2.0, 1.0, 4.0, 3.0, 6.0, 5.0]
    c = correlation(x, y)
    # by hand: deviations from the means 11/3 and 7/2 give sum dx dy = 16, sum dx^2 = 70/3, sum dy^2 = 35/2;
    # the ranks of y are 2 1 4 3 6 5, d = +-1 six times: rho = 1 - 6 * 6 / (6 * 35)
    assert c["pearson"]["r"] == pytest.approx(16 / math.sqrt(70 / 3 * 35 / 2))
    assert c["spearman"]["r"] == pytest.approx(1 - 36 / 210)
    assert c["pearson"]["low"] < c["pearson"]["r"] < c["pearson"]["high"]
    # Fisher z by hand: tanh(atanh(r) + 1.96 / sqrt(n - 3))
    r = c["pearson"]["r"]
    assert c["pearson"]["high"] == pytest.approx(math.tanh(math.atanh(r) + 1.959964 / math.sqrt(3)), abs=1e-5)
    assert correlation([1, 2, 3], [1, 2, 3])["pearson"] is None
    points = [{"label": k, "originality": o, "feasibility": f} for k, o, f in
              [("a", 9, 5), ("b", 7, 7), ("c", 6, 6), ("d", 5, 8), ("e", 5, 7.5)]]
    assert pareto_front(points) == ["a", "b", "d"]


def test_the_analyses_run_on_two_recorded_runs_and_render_in_the_report(tmp_path, server, keywords):
    runs = []
    for name in ("openai/gpt-4o-2024-11-20", "openai/qwen/qwq-32b-preview"):
        out = tmp_path / name.replace("/", "_")
        args = official_args(server, keywords, out, "--judges", JUDGES)
        args[args.index("--model") + 1] = name
        assert cli(*args).exit_code == 0
        runs.append(out)
    result = analyse(runs, CLONE, published=True)
    lv = result["livebench"]
    matched = {p["label"]: p["livebench_model"] for p in lv["pairs"]}
    assert matched["openai/gpt-4o-2024-11-20"] == "gpt-4o-2024-11-20"
    assert matched["openai/qwen/qwq-32b-preview"] == "qwq-32b-preview"
    assert matched["claude-3.5-sonnet"] == "claude-3-5-sonnet-20241022"
    pub = [p for p in lv["pairs"] if p["source"] == "published"]
    assert lv["published"]["n"] == len(pub) >= 15
    assert lv["published"]["pearson"]["r"] == pytest.approx(  # numpy's own product-moment formula, not scipy's
        np.corrcoef([p["livebench"] for p in pub], [p["average"] for p in pub])[0, 1])
    assert result["length"]["pooled"]["n"] == 24 and result["disciplines"]["models"]
    # earthquakes has no category in the run's keywords: the authors' classification gives one
    with (CLONE / "csvs/keyword_classifications.csv").open(encoding="utf-8") as f:
        given = next(r["category"] for r in csv.DictReader(f) if r["keyword"] == "earthquakes")
    assert all(given in t for t in result["disciplines"]["models"].values())
    assert result["pareto"]
    report = tmp_path / "report"
    out = cli("ideas-analyse", *map(str, runs), "--published", "--liveideabench", str(CLONE), "--report", str(report))
    assert out.exit_code == 0, out.output
    assert "Pearson r" in out.output and "Pareto front" in out.output and "gpt-4o-2024-11-20" in out.output
    page = dump_dom((report / "index.html").as_uri(), report / "profile", budget_ms=3000)
    assert "The paper's analyses" in page and "Not available" not in page
    for figure in ("LiveBench Global Average", "idea length (words)", "average (1-10)",
                   "Pareto front"):
        assert figure in page, figure
    assert page.count("<td>official</td>") == 2  # both runs' rows name their protocol
    drill = next(report.glob("run1-*.html")).read_text()
    assert "The idea is plausible but its test is vague" in drill  # the critics' analyses, per judge
    assert "B = 7 by openai/j" in drill and "on ideas 1, 3" in drill  # the pair the fluency critic compared
    shot = report / "analyses.png"
    screenshot((report / "index.html").as_uri(), shot, report / "profile", size="1200,4000")
    assert shot.stat().st_size > 10_000


@pytest.mark.llm
def test_the_local_model_writes_ideas_to_the_authors_prompt_judged_by_their_critics(tmp_path, server, keywords):
    out = tmp_path / "gemma"
    args = official_args(server, keywords, out, "--judges", JUDGES, "--limit", "2", "--max-tokens", "300")
    args[args.index("--model") + 1] = "local/gemma-3-270m"
    args[args.index("--ideas-per-keyword") + 1] = "2"
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    ideas = RunFolder(out).read(Idea)
    assert len(ideas) == 4 and all(i.tokens["completion"] > 0 for i in ideas if i.status != "error")
    kept = [i for i in ideas if i.status == "ok"]
    judged = RunFolder(out).read(IdeaJudgement)
    assert kept and len(judged) == 3 * len(kept) and all(j.scores and j.analysis for j in judged)
    # the critics saw the local model's ideas as written (the whole reply, reasoning dropped)
    seen = {msgs[-1]["content"] for _, msgs, _ in server.of(lambda m, msgs: msgs[0]["role"] == "system")}
    assert seen == {i.idea for i in kept}
    assert json.loads((out / "manifest.json").read_text())["extra"]["protocol"] == "official"


# ----------------------------------------------------------------------------------------
# the seam for reasoning judges (wired when the models issue's ModelConfig options land)


class ReasoningServer(AuthorsServer):
    """As AuthorsServer, but the critic ``o3-mini-high`` answers 400 to a request with
    ``max_tokens`` or a temperature, as OpenAI's reasoning models do."""

    def __init__(self):
        super().__init__()
        outer, handler = self, self.httpd.RequestHandlerClass
        answer_post = handler.do_POST

        def do_POST(req):
            length = int(req.headers.get("content-length", 0))
            raw = req.rfile.read(length)
            body = json.loads(raw or b"{}")
            if body.get("model") == "openai/o3-mini-high" and ("max_tokens" in body or "temperature" in body):
                outer.refused.append(body)
                data = json.dumps({"error": {"message": "Unsupported parameter: 'max_tokens' / 'temperature'",
                                             "type": "invalid_request_error"}}).encode()
                req.send_response(400)
                req.send_header("content-type", "application/json")
                req.send_header("content-length", str(len(data)))
                req.end_headers()
                req.wfile.write(data)
                return
            import io
            req.rfile = io.BytesIO(raw)
            answer_post(req)
        handler.do_POST = do_POST
        self.refused = []


def test_a_reasoning_judge_that_refuses_max_tokens_and_temperature_judges_a_run(tmp_path, keywords):
    server = ReasoningServer()
    try:
        panel = tmp_path / "panel.toml"
        panel.write_text('[[judge]]\nname = "o3-mini-high"\nspec = "openai/openai/o3-mini-high"\n'
                         'organisation = "openai"\nbase = "o3-mini"\nreasoning = true\n'
                         'max_tokens = 4000\n\n'
                         '[[judge]]\nname = "j1"\nspec = "openai/j1"\n\n[[judge]]\nname = "j2"\nspec = "openai/j2"\n')
        result = CliRunner().invoke(main, official_args(server, keywords, tmp_path / "run", "--panel", str(panel),
                                                        "--limit", "1"))
        assert result.exit_code == 0, result.output
        judged = RunFolder(tmp_path / "run").read(IdeaJudgement)
        assert any(j.judge == "o3-mini-high" and j.scores for j in judged) and not server.refused
    finally:
        server.close()


# ----------------------------------------------------------------------------------------
# a critic whose first reply is unreadable: the retries carry the numbered reminder, so each
# is a new call (not the cached unreadable reply) and the idea is scored on the second


class FirstReplyUnreadable(AuthorsServer):
    """The critic j1 and the fluency critic answer prose without scores or a letter until the
    message holds our reminder; everyone else answers as the authors' critics do."""

    def answer(self, body) -> str:
        model, messages = body.get("model"), body.get("messages") or []
        user = messages[-1]["content"]
        reminded = "Your previous reply could not be read" in user
        if messages[0]["role"] == "system" and model == "j1" and not reminded:
            return "I would rather discuss the idea's merits at length than score it."
        if user.startswith(FLUENCY_HEAD) and not reminded:
            return "Both ideas have their merits."
        return super().answer(body)


def test_an_unreadable_first_critic_reply_is_asked_again_with_a_reminder_not_from_the_cache(tmp_path, keywords):
    server = FirstReplyUnreadable()
    try:
        out = tmp_path / "run"
        keywords.write_text("keyword,category\nmeteorology,Earth science\n")
        result = cli(*official_args(server, keywords, out, "--judges", "openai/j1,openai/j2,openai/j3",
                                    "--ideas-per-keyword", "2"))
    finally:
        server.close()
    assert result.exit_code == 0, result.output
    records = RunFolder(out).read()
    by_j1 = [r for r in records if isinstance(r, IdeaJudgement) and r.judge_spec == "openai/j1"]
    assert len(by_j1) == 2
    for j in by_j1:  # two calls, the second answered and scored
        assert j.error is None and j.scores and len(j.replies) == 2 and j.replies[0].startswith("I would rather")
        assert j.reasons[0] is not None and j.reasons[1] is None
    critic_calls = server.of(lambda m, msgs: m == "j1" and msgs[0]["role"] == "system")
    # the two ideas are one text (the writer repeats itself): two calls in all, the retry reached the server
    assert len(critic_calls) == 2
    retries = [msgs[-1]["content"] for _, msgs, _ in critic_calls if "could not be read" in msgs[-1]["content"]]
    assert len(retries) == 1 and all("(reminder 1 of 2)" in r and "<score_1_to_10>" in r for r in retries)
    grade = next(r for r in records if isinstance(r, FluencyGrade))
    assert grade.grade == "B" and grade.error is None and len(grade.replies) == 2
    fluency = server.of(lambda m, msgs: msgs[-1]["content"].startswith(FLUENCY_HEAD))
    assert len(fluency) == 2 and "(reminder 1 of 2)" in fluency[1][1][-1]["content"]
    assert "A/B/C/D" in fluency[1][1][-1]["content"]
