"""NeoCoder's recorded GPT-4 replies as an inspect_ai model API: ``neocoder-replay/<source>``.

``inspect eval neocoder/neocoder --model neocoder-replay/gpt-4-1106-preview`` answers each
sample with the code gpt-4-1106-preview wrote for that problem and Denial Prompting round
(the release's ``codes``, shipped with neocoder), the same reply ``neocoder eval --model
replay/gpt-4-1106-preview`` gets, so the two can be compared offline.  The reply is looked
up by the key in the sample's metadata (samples.py ``replay_key``) through neocoder's own
replay provider (models/replay.py); any source that provider reads works (a run folder
too).
"""

from __future__ import annotations

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi

from neocoder.errors import NeocoderError
from neocoder.inspect_tasks.samples import replay_key
from neocoder.models import get_model
from neocoder.models.base import Prompt

API_NAME = "neocoder-replay"


@modelapi(name=API_NAME)
class NeocoderReplayAPI(ModelAPI):
    """Answers a NeoCoder sample with neocoder's ``replay/<model_name>`` reply for its key."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(), **model_args):
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, config=config)
        self.replay = get_model(f"replay/{model_name}")

    async def generate(self, input: list[ChatMessage], tools, tool_choice, config: GenerateConfig) -> ModelOutput:
        """The recorded reply for the active sample.  Raises NeocoderError when no
        NeoCoder sample is active or the source holds no reply for it."""
        from inspect_ai.solver._task_state import sample_state  # the active sample (inspect has no public getter)
        state = sample_state()
        if state is None:
            raise NeocoderError(f"{API_NAME}/{self.model_name} answers only inside a neocoder task's sample")
        key = replay_key(state.metadata)
        prompt = Prompt(messages=tuple({"role": m.role, "content": m.text} for m in input), completion="",
                        code_prefix="", replay_key=key)
        reply = self.replay.generate(prompt)
        return ModelOutput.from_content(model=self.model_name, content=reply.text)

    def max_connections(self) -> int:
        """Calls in flight at once (a replay reads memory, so many)."""
        return 32
