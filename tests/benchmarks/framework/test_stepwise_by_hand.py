"""The step-wise loop's records and its semantic entropy's edges, worked by hand (issue 50):
what a step records (its number, the backend, each candidate's reading, the entailment
replies), what is sent for a candidate, how an unreadable candidate is kept out of the
choice, how a resumed solution goes on, and how a solution's end is named.  Each test was
written against a mutant of stepwise.py or entropy.py that no earlier test failed
(scripts/mutation.sh entropy)."""

import math

import pytest
from checkout import CHECKOUT
from framework_panel import USAGE, entail, prompt_of, with_logprob
from loopback import RespondingServer

from neocoder.benchmarks.framework import domains
from neocoder.benchmarks.framework.entailment import LLMEntailment
from neocoder.benchmarks.framework.records import FrameworkStep
from neocoder.benchmarks.framework.stepwise import (
    STEP_STOP,
    StepSettings,
    candidate_text,
    one_step,
    run_steps,
    step_prompt,
    summarise,
)
from neocoder.config import ModelConfig
from neocoder.metrics.entropy import GreedyClasses, classes_by_behaviour, length_normalised_logprob
from neocoder.models import get_model

PROBLEM = domains.Problem("macgyver", "p1", "Clean the stain.")


def serve(table):
    """A scripted base model: each candidate by its seed from ``table`` (text, mean
    log-probability or None for a reply without log-probabilities); entailment by equal text."""
    def respond(kind, body):
        prompt = prompt_of(kind, body)
        if "Statement A:" in prompt:
            return entail(prompt), None
        text, mean = table[body["seed"]]
        return with_logprob(text, mean) if mean is not None else (text, None)
    return RespondingServer(respond, usage=USAGE)


def model_at(server):
    return get_model(ModelConfig("openai/scripted", base_url=server.url, api_key="k", api="completion"))


def test_a_step_records_its_number_backend_readings_and_what_was_asked():
    table = {0: ("Step 2: Wipe it.", -0.3), 1: ("", -0.01), 2: ("Dry it.", -0.4), 3: ("STOP", -0.9)}
    settings = StepSettings(candidates=4, temperature=1.0, top_p=0.9, max_steps=5, step_tokens=33)
    with serve(table) as server, model_at(server) as model:
        entailment = LLMEntailment(model)
        step = one_step(PROBLEM, ["Boil the water."], model, entailment, settings)
        sent = [body for kind, body in server.requests if "Statement A:" not in prompt_of(kind, body)]
    assert (step.domain, step.problem_id, step.step) == ("macgyver", "p1", 2)
    assert step.entailment == entailment.name == "llm:openai/scripted"
    # the label a base model repeats is cut from a readable step; the empty reply is kept as it came
    assert step.candidates == ["Wipe it.", "", "Dry it.", "STOP"]
    assert step.unreadable == [None, "empty", None, None] and step.classes[1] is None
    # the empty reply has the best log-probability but is no candidate: the best readable one is chosen
    assert step.chosen == 0 and not step.stopped
    assert step.entailment_replies["replies"] >= 1 and step.entailment_replies["unreadable"] == 0
    assert len(sent) == 4
    for body in sent:
        assert body["max_tokens"] == 33 and body["stop"] == list(STEP_STOP) and body["logprobs"] == 1
        assert "Step 1: Boil the water.\n" in body["prompt"]


def test_without_log_probabilities_the_largest_readable_class_is_chosen():
    """Candidates 1 and 2 mean the same (one class of two), 3 is alone; the unreadable
    candidate 0 is never a class of its own, so 1 (the first of the largest class) wins."""
    table = {0: ("", None), 1: ("Dry it.", None), 2: ("dry it.", None), 3: ("Wipe it.", None)}
    with serve(table) as server, model_at(server) as model:
        step = one_step(PROBLEM, [], model, LLMEntailment(model), StepSettings(candidates=4))
    assert step.classes == [None, 0, 0, 1] and step.estimator == "discrete"
    assert step.entropy == pytest.approx(-(2 / 3) * math.log(2 / 3) - (1 / 3) * math.log(1 / 3))
    assert step.chosen == 1


def test_a_step_with_no_readable_candidate_has_no_entropy_and_ends_the_solution_as_unreadable():
    """An empty reply and one that repeats the problem's own text (an echo of the prompt):
    neither is a candidate; the echo is kept as it came (both lines, label included), no
    entailment call is made, and the solution ends there."""
    shirt = domains.Problem("macgyver", "p2", "Remove a coffee stain from a white cotton shirt.")
    echo = "Step 1: Remove a coffee stain from a white cotton shirt.\nthen more"
    table = {0: ("", -0.1), 1: (echo, -0.2)}
    with serve(table) as server, model_at(server) as model:
        steps = list(run_steps(shirt, model, LLMEntailment(model), StepSettings(candidates=2, max_steps=4)))
    (step,) = steps
    assert step.unreadable == ["empty", "echo"] and step.candidates == ["", echo]
    assert step.entailment_replies == {} and step.classes == [None, None]
    assert step.entropy is None and step.estimator == "none" and step.chosen is None and not step.stopped
    assert summarise(steps, 4)["stop_reason"] == "unreadable"


def test_the_step_prompt_holds_the_task_the_problem_and_every_step_so_far():
    text = step_prompt(PROBLEM, ["Boil the water.", "Dry it."])
    assert (CHECKOUT / "prompts" / "framework_task_macgyver.txt").read_text().strip() in text
    assert "Clean the stain." in text and "Step 1: Boil the water.\nStep 2: Dry it.\n" in text
    assert candidate_text("\n\n  \n") == "" and candidate_text("  step 3 - Wipe it.\nmore") == "Wipe it."


def _step(n, chosen=0, stopped=False, entropy=0.5, text=None):
    return FrameworkStep(domain="macgyver", problem_id="p1", step=n, candidates=[text or f"do {n}", "STOP"],
                         stops=[False, True], logprobs=[None, None], classes=[0, 1], entropy=entropy,
                         estimator="discrete", chosen=chosen, stopped=stopped, entailment="llm:x")


def test_summarise_names_the_end_by_the_last_step_and_scores_the_appended_ones():
    # out of order on purpose: summarise sorts by step number
    steps = [_step(3, chosen=None, stopped=True, entropy=0.2), _step(1, entropy=0.6), _step(2, entropy=0.3)]
    got = summarise(steps, 5)
    assert got["steps"] == ["do 1", "do 2"] and got["entropies"] == [0.6, 0.3]
    assert got["divergent"] == pytest.approx(0.45) and (got["divergent_min"], got["divergent_max"]) == (0.3, 0.6)
    assert got["stop_reason"] == "stop" and got["repeated"] is False
    # an unreadable last step (no candidate read: no entropy, no choice) after two appended ones
    ended = summarise([_step(1), _step(2), _step(3, chosen=None, entropy=None)], 5)
    assert ended["stop_reason"] == "unreadable" and ended["steps"] == ["do 1", "do 2"]
    # a last step with no choice but an entropy (every readable candidate said STOP, no majority): stop
    assert summarise([_step(1), _step(2), _step(3, chosen=None, entropy=0.0)], 5)["stop_reason"] == "stop"
    # the cap: every step appended; the first steps' own state does not name the end
    capped = summarise([_step(1, stopped=False), _step(2, chosen=None, stopped=True, entropy=None), _step(3)], 3)
    assert capped["stop_reason"] == "cap"
    assert summarise([_step(1, text="Dry it."), _step(2, text="dry it. ")], 2)["repeated"] is True
    empty = summarise([], 3)
    assert empty["divergent"] is None and empty["stop_reason"] == "cap"


def test_a_resumed_solution_goes_on_from_its_steps_in_order_or_not_at_all():
    table = {0: ("Wipe it.", -0.2), 1: ("STOP", -0.5), 2: ("Wipe it.", -0.3)}
    done = [_step(2, text="Dry it."), _step(1, text="Boil the water.")]  # as a records file may hold them
    with serve(table) as server, model_at(server) as model:
        settings = StepSettings(candidates=3, max_steps=3)
        (third,) = run_steps(PROBLEM, model, LLMEntailment(model), settings, done)
        asked = [prompt_of(k, b) for k, b in server.requests if "Statement A:" not in prompt_of(k, b)]
        assert third.step == 3 and third.candidates[third.chosen] == "Wipe it."
        assert "Step 1: Boil the water.\nStep 2: Dry it.\n" in asked[0]
        # a solution whose last step stopped, or chose nothing, asks nothing more
        before = len(server.requests)
        assert list(run_steps(PROBLEM, model, LLMEntailment(model), StepSettings(candidates=3, max_steps=9),
                              [_step(1), _step(2), _step(3, chosen=None, stopped=True)])) == []
        assert list(run_steps(PROBLEM, model, LLMEntailment(model), StepSettings(candidates=3, max_steps=9),
                              [_step(1), _step(2), _step(3, chosen=None, entropy=None)])) == []
        assert len(server.requests) == before


def test_a_bookmia_story_without_a_sentence_count_is_capped_by_max_steps_alone():
    story = domains.Problem("bookmia", "b1", "Once there was a lighthouse.")  # no "sentences" in extra
    table = {0: ("The keeper lit it.", -0.2), 1: ("The keeper lit it.", -0.3)}
    with serve(table) as server, model_at(server) as model:
        steps = list(run_steps(story, model, LLMEntailment(model), StepSettings(candidates=2, max_steps=1)))
    assert [s.step for s in steps] == [1] and steps[0].chosen == 0


def test_greedy_ties_go_to_the_first_candidate_and_the_first_class():
    from neocoder.benchmarks.framework.stepwise import greedy_choice
    # equal log-probabilities: the first live candidate
    assert greedy_choice(["a", "b", "c"], [True, False, False], [-0.1, -0.5, -0.5], [0, 1, 2]) == 1
    # no log-probabilities, two classes of two: the smaller class id (ids are given in order of
    # first appearance), its first member
    assert greedy_choice(["a", "b", "c", "d"], [False] * 4, [None] * 4, [0, 1, 1, 0]) == 0
    assert greedy_choice(["a", "b", "c", "d"], [False] * 4, [None, -1.0, None, None], [2, 1, 1, 0]) == 1


def test_entropy_inputs_are_checked_and_named():
    assert length_normalised_logprob([1e-9, -1.0]) == pytest.approx((1e-9 - 1.0) / 2)  # rounding above 0 allowed
    for bad in ([None], [float("nan")], [2e-9]):
        with pytest.raises(ValueError, match=r"^token_logprobs\[0\] = .* is not a log-probability"):
            length_normalised_logprob(bad)
    with pytest.raises(ValueError, match=r"^token_logprobs: no tokens$"):
        length_normalised_logprob([])
    with pytest.raises(ValueError, match=r"^behaviours: no programs$"):
        classes_by_behaviour([])
    with pytest.raises(ValueError, match=r"^behaviours\[1\] has 1 tests, behaviours\[0\] has 2: programs must be "
                                         r"run on the same tests$"):
        classes_by_behaviour([("a", "b"), ("a",)])
    # dicts inside a behaviour are compared by value, whatever their key order
    same = [[{"out": "1", "rc": 0}], [{"rc": 0, "out": "1"}], [{"rc": 1, "out": "1"}]]
    assert classes_by_behaviour(same) == [0, 0, 1]
    classes = GreedyClasses(lambda a, b: a == b)
    classes.restore("x", 0)
    with pytest.raises(ValueError, match="class id 2: 1 classes so far"):
        classes.restore("y", 2)
