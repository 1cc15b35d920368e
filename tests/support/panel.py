"""A scripted panel for LiveIdeaBench (and any benchmark with several models): one real
OpenAI-style endpoint on loopback that answers each model id as the test scripts it, and
the IdeasConfig a test runs against it."""

from loopback import RespondingServer

from neocoder.benchmarks.ideas.config import IdeasConfig
from neocoder.config import ModelConfig

FALLBACK_MARK = "brainstorming exercise"  # in prompts/ideas_fallback_user.txt, not in the first prompt


class PanelServer(RespondingServer):
    """A real OpenAI-style endpoint on loopback for several models at once: each request
    (chat or completions) is answered by ``answer(model_id, prompt_text, body)``; every
    request is kept in ``requests`` as (model_id, prompt_text, body)."""

    def __init__(self, answer):
        super().__init__(lambda kind, body: (answer(body.get("model"), self.text(body), body), None),
                         usage={"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29})

    @staticmethod
    def text(body: dict) -> str:
        return "\n".join(m["content"] for m in body["messages"]) if "messages" in body else body["prompt"]

    def log(self, kind: str, body: dict) -> None:
        self.requests.append((body.get("model"), self.text(body), body))

    def of(self, model: str) -> list[str]:
        """The prompts ``model`` was sent."""
        return [text for m, text, _ in self.requests if m == model]


JUDGE_REPLIES = {"j1": "originality: 8\nfeasibility: 6\nclarity: 7",
                 "j2": "**Originality:** 6/10\n**Feasibility:** 4/10\n**Clarity:** 9/10",
                 "j3": "<originality>7</originality> <feasibility>5</feasibility> <clarity>8</clarity>",
                 "j4": "originality: 5\nfeasibility: 9\nclarity: 6"}


def keyword_of(text: str) -> str:
    for line in text.splitlines():
        if line.startswith(("Keyword: ", "Your keyword is: ")):
            return line.split(": ", 1)[1]
    return "?"


def scripted(writer=None, judges=None, grade="grade: B"):
    """An answer function: the writer ``writer(keyword, idea_num, fallback)`` (default: a
    distinct idea per keyword and number), judges by model id (default JUDGE_REPLIES),
    and fluency grades ``grade``."""
    judges = judges or JUDGE_REPLIES

    def answer(model, text, body):
        if "grade: X" in text:
            return grade
        if "originality: N" in text:
            reply = judges[model]
            return reply(text) if callable(reply) else reply
        keyword, num = keyword_of(text), body.get("seed", 0) + 1
        if writer is not None:
            return writer(keyword, num, FALLBACK_MARK in text)
        return f"Idea: measure {keyword} with method number {num} and compare it with a control group."
    return answer


def settings(tmp_path, server, keywords, judges=("j1", "j2", "j3", "j4"), **changes) -> IdeasConfig:
    writer = ModelConfig(changes.pop("writer", "openai/writer"), base_url=server.url, api_key="k", temperature=0.7)
    panel = [writer.with_(spec=f"openai/{j}", temperature=0.0, max_tokens=64) for j in judges]
    return IdeasConfig(**{"model": writer, "judges": panel, "out": tmp_path / "run", "keywords": keywords,
                          "ideas_per_keyword": 2, "bootstrap": 200, "progress": False, **changes})
