"""``replay/<file.jsonl>``: recorded AidanBench answers, re-scored without regenerating.

Lines ``{"model", "question", "answer_num", "answer"}``; the answers of a question are
given back in ``answer_num`` order, so the stop rule applies to the recorded order.
"""

from __future__ import annotations

from pathlib import Path

from ..dataset.records import jsonl_lines
from ..dataset.release import DatasetError
from ..models import Model, Prompt, Reply


class ReplayAnswers(Model):
    """Answers from a recorded file; ``questions`` lists them in order of first appearance."""

    def __init__(self, spec: str, path: Path):
        path = Path(path)
        self.name = spec
        self.by_question: dict[str, dict[int, str]] = {}
        self.recorded_model = None
        for number, row in jsonl_lines(path):
            if not isinstance(row, dict):
                raise DatasetError(path, f"line {number}", "-", "expected an object")
            for key, kind in (("question", str), ("answer", str), ("answer_num", int)):
                if not isinstance(row.get(key), kind):
                    raise DatasetError(path, f"line {number}", key, f"missing or not {kind.__name__}")
            answers = self.by_question.setdefault(row["question"], {})
            if row["answer_num"] in answers:
                raise DatasetError(path, f"line {number}", "answer_num", "appears twice for this question")
            answers[row["answer_num"]] = row["answer"]
            self.recorded_model = self.recorded_model or row.get("model")
        if not self.by_question:
            raise DatasetError(path, "-", "-", "no recorded answers")

    @property
    def questions(self) -> list[str]:
        return list(self.by_question)

    def generate(self, prompt: Prompt, state: dict) -> Reply:
        answers = self.by_question.get(state.get("question"), {})
        ordered = [answers[k] for k in sorted(answers)]
        k = state.get("answer_num", 1) - 1
        if k >= len(ordered):
            return Reply(text="", extra={"exhausted": True})
        return Reply(text=ordered[k], extra={"recorded_model": self.recorded_model})
