"""What LiveIdeaBench's two protocols send, worked by hand from the files they are made of
(issue 50): the official protocol's prompts must be the authors' prompts.json texts with
only their placeholders filled (read here with ``json``, not through our loader); ours are
our prompt files filled the same way; and each loader refuses a damaged file naming the
file, the key and the field.  Written against the ideas set's survivors
(scripts/mutation.sh ideas)."""

import hashlib
import json
from pathlib import Path

import pytest
from checkout import CHECKOUT, SHARED

from neocoder.benchmarks.ideas import protocol
from neocoder.benchmarks.ideas.official import load_official, refusal_phrases
from neocoder.benchmarks.ideas.protocol import FALLBACK, MAIN, OFFICIAL_STOP, OfficialProtocol
from neocoder.errors import NeocoderError, RecordError
from neocoder.models.base import ReplayKey

CLONE = SHARED / "liveideabench" / "official"
PROMPTS = CHECKOUT / "prompts"
needs_clone = pytest.mark.skipif(not CLONE.is_dir(), reason="the authors' files are not here")


def authors() -> dict:
    return json.loads((CLONE / "utils" / "prompts.json").read_text(encoding="utf-8"))


def ours(name: str, **fields) -> str:
    text = (PROMPTS / name).read_text(encoding="utf-8")
    for key, value in fields.items():
        text = text.replace("{" + key + "}", value)
    return text


@needs_clone
def test_the_official_prompts_are_the_authors_texts_with_their_placeholders_filled():
    raw = authors()
    official = OfficialProtocol(load_official(CLONE), phrases=("i cannot",))
    idea = official.idea_prompt("meteorology", 3)
    text = raw["idea_prompt"]["description"].replace("{{keywords}}", "meteorology")
    assert idea.messages == ({"role": "user", "content": text},) and idea.completion == text + "\n\n"
    assert idea.stop == OFFICIAL_STOP and idea.replay_key == ReplayKey("meteorology", 3, MAIN)
    fallback = official.idea_prompt("meteorology", 3, fallback=True)
    assert fallback.messages[0]["content"] == raw["idea_prompt"]["fallback_description"].replace(
        "{{keywords}}", "meteorology")
    assert fallback.replay_key == ReplayKey("meteorology", 3, FALLBACK)

    judge = official.judge_prompt("meteorology", "  A balloon that maps fog.  ")
    critic = raw["critic_prompt"]["description"]
    assert judge.messages == ({"role": "system", "content": critic},
                              {"role": "user", "content": "A balloon that maps fog."})
    assert judge.completion == critic + "\n\nA balloon that maps fog.\n\n" and judge.stop == OFFICIAL_STOP
    again = official.judge_prompt("meteorology", "A balloon that maps fog.", attempt=1, retries=2)
    reminder = again.messages[1]["content"].split("\n", 1)[1]
    assert "(reminder 1 of 2)" in reminder and "<score_1_to_10>" in reminder and "scores" in reminder

    fluency = official.fluency_prompt("meteorology", [" Fog balloons. ", "Rain radar."])
    text = (raw["fluency_critic_prompt"]["description"].replace("{{keyword}}", "meteorology")
            .replace("{{A}}", "Fog balloons.").replace("{{B}}", "Rain radar."))
    assert fluency.messages == ({"role": "user", "content": text},) and fluency.completion == text + "\n\n"
    assert fluency.stop == ("\n",)
    retry = official.fluency_prompt("meteorology", ["Fog balloons.", "Rain radar."], attempt=2, retries=2)
    assert retry.messages[0]["content"].startswith(text + "\n") and "(reminder 2 of 2)" in retry.messages[0]["content"]
    assert "A/B/C/D" in retry.messages[0]["content"]


@needs_clone
def test_the_official_manifest_hashes_the_files_it_read():
    official = OfficialProtocol(load_official(CLONE), phrases=("i cannot",))
    got = official.manifest()
    digest = hashlib.sha256((CLONE / "utils" / "prompts.json").read_bytes()).hexdigest()
    assert got == {"protocol": "official", "liveideabench": str(CLONE.resolve()),
                   "official_files": {"utils/prompts.json": digest}, "refusal_phrases": ["i cannot"]}


def test_our_prompts_are_our_files_with_the_keyword_and_ideas_filled():
    idea = protocol.idea_prompt("meteorology", 2)
    assert idea.messages == ({"role": "system", "content": ours("ideas_system.txt").strip()},
                             {"role": "user", "content": ours("ideas_user.txt", keyword="meteorology").strip()})
    assert idea.completion == ours("ideas_completion.txt", keyword="meteorology").rstrip("\n")
    assert idea.stop == protocol.IDEA_STOP and idea.replay_key == ReplayKey("meteorology", 2, MAIN)
    fallback = protocol.idea_prompt("meteorology", 2, fallback=True)
    assert fallback.messages[1]["content"] == ours("ideas_fallback_user.txt", keyword="meteorology").strip()
    assert fallback.completion == ours("ideas_fallback_completion.txt", keyword="meteorology").rstrip("\n")

    judge = protocol.judge_prompt("meteorology", "A balloon\n  that maps   fog.")  # white space made single
    assert judge.messages == ({"role": "user", "content": ours(
        "ideas_judge.txt", keyword="meteorology", idea="A balloon that maps fog.").strip()},)
    assert judge.completion == ours("ideas_judge_completion.txt", keyword="meteorology",
                                    idea="A balloon that maps fog.").rstrip("\n") + "\noriginality:"
    assert judge.code_prefix == "originality:" and judge.stop == protocol.JUDGE_STOP
    retry = protocol.judge_prompt("meteorology", "A balloon that maps fog.", attempt=1, retries=3)
    assert "(reminder 1 of 3)" in retry.messages[0]["content"] and "in place of N" in retry.messages[0]["content"]

    fluency = protocol.fluency_prompt("meteorology", ["Fog  balloons.", "Rain radar."])
    assert fluency.messages == ({"role": "user", "content": ours(
        "ideas_fluency.txt", keyword="meteorology", ideas="Idea 1: Fog balloons.\n\nIdea 2: Rain radar.").strip()},)
    assert fluency.completion == ours("ideas_fluency_completion.txt", keyword="meteorology",
                                      ideas="Idea 1: Fog balloons.\nIdea 2: Rain radar.").rstrip("\n") + "\ngrade:"
    assert fluency.code_prefix == "grade:" and fluency.stop == ("\n",)
    retry = protocol.fluency_prompt("meteorology", ["Fog balloons."], attempt=2, retries=2)
    assert "(reminder 2 of 2)" in retry.messages[0]["content"] and "in place of X" in retry.messages[0]["content"]


def test_a_damaged_clone_is_refused_naming_file_key_and_field(tmp_path):
    clone = tmp_path / "clone"
    (clone / "utils").mkdir(parents=True)
    file = clone / "utils" / "prompts.json"
    file.write_text("{not json")
    with pytest.raises(RecordError, match=rf"^{file}: record -: field 'json': not readable JSON"):
        load_official(clone)
    good = {"idea_prompt": {"description": "Ideas on {{keywords}}.", "fallback_description": "Again {{keywords}}."},
            "critic_prompt": {"description": "Score it."},
            "fluency_critic_prompt": {"description": "{{keyword}}: {{A}} or {{B}}?"}}
    file.write_text(json.dumps(good))
    got = load_official(clone)
    assert (got.idea, got.fallback, got.critic, got.fluency) == (
        "Ideas on {{keywords}}.", "Again {{keywords}}.", "Score it.", "{{keyword}}: {{A}} or {{B}}?")
    assert got.root == clone.resolve()
    file.write_text(json.dumps({**good, "critic_prompt": {"description": "  "}}))
    with pytest.raises(RecordError, match=rf"^{file}: record critic_prompt.description: field 'description': "
                                          "missing or not a text$"):
        load_official(clone)
    file.write_text(json.dumps({**good, "fluency_critic_prompt": {"description": "{{keyword}}: {{A}} only"}}))
    with pytest.raises(RecordError, match=r"record fluency_critic_prompt.description: field 'description': "
                                          r"has no \{\{B\}\} placeholder$"):
        load_official(clone)
    with pytest.raises(NeocoderError, match=rf"^{tmp_path}: not a LiveIdeaBench clone \(no utils/prompts.json\)"):
        load_official(tmp_path)


def test_a_refusal_phrase_file_is_read_a_phrase_a_line_or_refused(tmp_path):
    path = Path(tmp_path / "phrases.txt")
    path.write_text("# ours\nI Cannot\n\n  As an AI  \n")
    assert refusal_phrases(path) == ("i cannot", "as an ai")
    path.write_text("# only a comment\n\n")
    with pytest.raises(RecordError, match=rf"^{path}: record -: field 'phrase': no refusal phrases in the file$"):
        refusal_phrases(path)
    with pytest.raises(NeocoderError, match=rf"^{tmp_path / 'none.txt'}: refusal phrases not readable: "):
        refusal_phrases(tmp_path / "none.txt")


def test_the_authors_panel_is_read_from_config_py_or_refused_naming_file_line_and_field(tmp_path, monkeypatch):
    """``CRITIC_MODELS`` is read with ``ast`` from the clone's config.py: the shipped copy's
    list as it stands there; a file that is not Python, a list that holds no names, and a
    file with no such list are each refused with the file, the record (``-`` or the line)
    and the field."""
    import ast

    from neocoder.benchmarks.ideas.official import clone_dir, critic_models
    if CLONE.is_dir():
        tree = ast.parse((CLONE / "config.py").read_text(encoding="utf-8"))
        listed = next(n.value for n in tree.body if isinstance(n, ast.Assign)
                      and any(getattr(t, "id", None) == "CRITIC_MODELS" for t in n.targets))
        assert critic_models(CLONE) == [e.value for e in listed.elts] and len(listed.elts) >= 3
    clone = tmp_path / "clone"
    (clone / "utils").mkdir(parents=True)
    (clone / "utils" / "prompts.json").write_text("{}")
    config = clone / "config.py"
    config.write_text("CRITIC_MODELS = ['a/x', 'b/y']\n")
    assert critic_models(clone) == ["a/x", "b/y"]
    config.write_text("CRITIC_MODELS = [\n")
    with pytest.raises(RecordError, match=rf"^{config}: record -: field 'CRITIC_MODELS': not readable Python: "):
        critic_models(clone)
    config.write_text("OTHER = 1\nCRITIC_MODELS = ['a/x', 3]\n")
    with pytest.raises(RecordError, match=rf"^{config}: record line 2: field 'CRITIC_MODELS': not a list of model "
                                          "names$"):
        critic_models(clone)
    config.write_text("CRITICS = ['a/x']\n")
    with pytest.raises(RecordError, match=rf"^{config}: record -: field 'CRITIC_MODELS': no CRITIC_MODELS list$"):
        critic_models(clone)

    # the clone by --liveideabench, else by $LIVEIDEABENCH_REPO, else a clear refusal
    monkeypatch.setenv("LIVEIDEABENCH_REPO", str(clone))
    assert clone_dir(None) == clone.resolve()
    monkeypatch.delenv("LIVEIDEABENCH_REPO")
    with pytest.raises(NeocoderError, match=r"^--protocol official needs a clone of the LiveIdeaBench repository: "
                                            r"give --liveideabench DIR \(or set LIVEIDEABENCH_REPO\)$"):
        clone_dir(None)
    with pytest.raises(NeocoderError, match=r": not a LiveIdeaBench clone \(no utils/prompts.json\); --liveideabench "
                                            r"names the folder holding utils/ and config.py$"):
        clone_dir(tmp_path)


def test_our_criterion_grammar_read_by_hand():
    """``criterion_grammar`` called as a plugin's judge would (the module's grammars are
    built at import, where a mutation tool does not reach): the line or the tag, any case,
    "/10" allowed, the last marker counting, 1..10 only, the placeholder an echo."""
    from neocoder.benchmarks.ideas.scoring import criterion_grammar
    g = criterion_grammar("originality")
    assert g.name == "ideas originality" and "originality: N" in g.describe and "1 to 10" in g.describe
    assert g.read("Analysis first.\noriginality: 7\nfeasibility: 5").value == 7.0
    assert g.read("**Originality** = 8/10").value == 8.0
    assert g.read("<originality>9</originality>").value == 9.0
    assert g.read("originality: 11").reason == "out of range" and g.read("originality: 0").reason == "out of range"
    assert g.read("originality: N").reason == "echo"
    assert g.read("feasibility: 7").reason == "no marker"


def test_reasoning_is_cut_from_an_ideas_reply_in_every_form():
    from neocoder.benchmarks.ideas.scoring import strip_reasoning
    assert strip_reasoning("<THINKING>weigh it</THINKING>Idea: fog nets.") == "Idea: fog nets."
    assert strip_reasoning("<reasoning>a</reasoning>B") == "B"
    # an opening tag the endpoint dropped: everything up to the last closing tag goes
    assert strip_reasoning("step one</think> more</think>Idea: kites.") == "Idea: kites."
    assert strip_reasoning("</think>Idea: kites.") == "Idea: kites."
    assert strip_reasoning("a</thinking>B") == "B" and strip_reasoning("a</reasoning>B") == "B"
    assert strip_reasoning("Idea: kites.<Reasoning>never closed") == ""
