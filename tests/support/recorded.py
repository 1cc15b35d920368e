"""Real inputs for the reward tests: the shipped problem states, GPT-4's recorded program
for each, and a character-level tokenizer made on the spot (nothing downloaded)."""

from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

from neocoder.dataset import shipped

MODEL = "gpt-4-1106-preview"


def shipped_states(keys):
    """The shipped ProblemStates for ``keys`` [(problem_id, t)], in that order."""
    by_key = {(s.problem_id, s.state): s for s in shipped.load_states()}
    return [by_key[k] for k in keys]


def recorded_program(state) -> str:
    return shipped.recorded_codes(MODEL)[state.problem_id][state.source_index]


def char_tokenizer(texts) -> PreTrainedTokenizerFast:
    """A character-level tokenizer over the characters of ``texts`` (nothing downloaded)."""
    vocab = {"<pad>": 0, "<eos>": 1, "<unk>": 2}
    for ch in sorted(set("".join(texts))):
        vocab.setdefault(ch, len(vocab))
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    core.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
