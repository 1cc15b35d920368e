"""The creativity-framework paper's published figures for the leaderboard: Tables 3-5
(MacGyver, HypoGen, BookMIA), shipped as ``data/macgyver/framework_paper_tables.json``.

Table 3 is MacGyver, the domain of the board's framework columns: its semantic entropy,
feasibility, effectiveness and Overall fill those columns (safety, which has no column,
is listed beside them).  Tables 4 and 5 are other domains with other criteria: their
figures have no column on the board and are listed apart, never mixed into MacGyver's.
The paper's Overall is the mean of a domain's three criteria (Sec. 6, Tables 3-5).
"""

from __future__ import annotations

import json
from importlib import resources

from neocoder.errors import NeocoderError

FILE = "framework_paper_tables.json"
ORIGIN = "creativity-evaluation framework paper, {table} ({domain})"
COLUMNS = {"semantic_entropy": "entropy", "feasibility": "feasible", "effectiveness": "effective",
           "overall": "overall"}  # Table 3's figures -> the framework's measure keys


def paper_tables() -> dict:
    """The shipped file: ``{"source", "note", "tables": [{"table", "domain", "criteria",
    "rows": [{"model", "semantic_entropy", <criteria>..., "overall"}]}]}``.  Raises
    NeocoderError when it is missing or not that shape."""
    try:
        data = json.loads(resources.files("neocoder.macgyver").joinpath(FILE).read_text(encoding="utf-8"))
        assert all({"table", "domain", "criteria", "rows"} <= set(t) for t in data["tables"])
    except (OSError, ValueError, KeyError, AssertionError) as exc:
        raise NeocoderError(f"data/macgyver/{FILE}: the framework paper's tables cannot be read ({exc})") from exc
    return data


def published_rows() -> list[dict]:
    """The leaderboard's published framework rows (``Benchmark.published``): one per model
    and table, ``values`` for the board's columns (Table 3 only), ``other`` the figures
    without a column (``{label: value}``), ``origin`` naming the table and domain."""
    rows = []
    for table in paper_tables()["tables"]:
        macgyver = table["domain"] == "macgyver"
        for entry in table["rows"]:
            values, other = {}, {}
            for key, value in entry.items():
                if key == "model":
                    continue
                if macgyver and key in COLUMNS:
                    values[f"framework.{COLUMNS[key]}"] = {"value": value}
                else:
                    other[key.replace("_", " ")] = value
            slug = "".join(c if c.isalnum() else "-" for c in entry["model"].lower()).strip("-")
            rows.append({"id": f"published-framework-{table['domain']}-{slug}", "model": entry["model"],
                         "origin": ORIGIN.format(table=table["table"], domain=table["domain"]),
                         "values": values, "other": other})
    return rows
