"""What docs/records.md documents: the column names of its exported tables."""

import re

from checkout import CHECKOUT

DOCS = CHECKOUT / "docs" / "records.md"


def documented(table: str) -> list[str]:
    """The column names of the docs/records.md table headed ``table`` (the first cell of each row)."""
    text = DOCS.read_text()
    section = text[text.index(table):]
    section = section[:section.index("\n\n", section.index("| ---"))]
    return [m.group(1) for m in re.finditer(r"^\| `([^`]+)` \|", section, re.M)]
