"""How a question ends when the generator gives no answer (``loop.next_reply``): a replayed
source that ran out stops it as "max answers", a failing generator as "error" with its
message, and an endpoint that refuses every call stops the run."""

import pytest

from neocoder.benchmarks.aidanbench.config import AidanConfig
from neocoder.benchmarks.aidanbench.loop import next_reply, run_question
from neocoder.config import ModelConfig
from neocoder.models import EndpointError, ModelError, NoRecordedReply, Reply


class Raising:
    """A generator whose every call raises ``error`` (or, with none, replies "an answer")."""

    name = "scripted/raising"

    def __init__(self, error: Exception | None):
        self.error, self.prompts = error, []

    def generate(self, prompt):
        self.prompts.append(prompt)
        if self.error is not None:
            raise self.error
        return Reply(text="an answer")


SETTINGS = AidanConfig(model=ModelConfig("replay/x"), judge=None, out=None)


def test_a_reply_comes_back_with_no_stop_reason():
    generator = Raising(None)
    reply, reason, error = next_reply(generator, "Q?", ["earlier"], SETTINGS, False)
    assert (reply.text, reason, error) == ("an answer", None, None)
    assert "earlier" in generator.prompts[0].messages[-1]["content"]


@pytest.mark.parametrize("raised, expected", [
    (NoRecordedReply("no more"), (None, "max answers", None)),
    (ModelError("boom"), (None, "error", "generator: boom")),
])
def test_no_reply_gives_the_stop_reason(raised, expected):
    assert next_reply(Raising(raised), "Q?", [], SETTINGS, False) == expected


def test_an_endpoint_error_stops_the_run():
    with pytest.raises(EndpointError):
        next_reply(Raising(EndpointError("refused")), "Q?", [], SETTINGS, False)


def test_a_failing_generator_ends_the_question_as_an_error():
    records = list(run_question(0, "Q?", Raising(ModelError("boom")), None, None, SETTINGS, []))
    assert len(records) == 1
    assert (records[0].answers, records[0].stop_reason, records[0].error) == (0, "error", "generator: boom")
