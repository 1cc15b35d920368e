"""A run folder's records as one Parquet table, for the leaderboard's downloads.

Why: people who rank models want the samples behind a number in their own tools
(pandas, DuckDB, R's arrow); a Parquet file opens in all of them.  Each record of the run
folder's ``records.jsonl`` is one row: its scalar fields as columns, nested fields (lists,
dicts) as JSON text, and ``type`` saying the record type (docs/records.md), so one table
holds a run's mixed record types.  pyarrow writes it (``pip install 'neocoder[leaderboard]'``).
"""

from __future__ import annotations

import json
from pathlib import Path

from neocoder.errors import NeocoderError
from neocoder.store import RunFolder


def rows_of(folder: Path) -> list[dict]:
    """Every record of the run folder ``folder`` as a flat dict (nested values as JSON
    text); RecordError (a NeocoderError) for a record that cannot be read."""
    out = []
    for record in RunFolder(Path(folder), create=False).read():
        data = record.to_dict()
        out.append({k: json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v
                    for k, v in data.items()})
    return out


def write_jsonl(folder: Path, path: Path) -> Path:
    """Write ``folder``'s records to the JSON-lines file ``path``, one flat row (``rows_of``)
    a line: the download a board has without pyarrow."""
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows_of(folder):
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return Path(path)


def write_parquet(folder: Path, path: Path) -> Path:
    """Write ``folder``'s records to the Parquet file ``path`` (columns: the union of the
    records' fields; a field a record lacks is null; a column of mixed types is text).
    Raises NeocoderError when pyarrow is not installed."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise NeocoderError("the leaderboard's Parquet downloads need pyarrow: pip install "
                            "'neocoder[leaderboard]'") from exc
    rows = rows_of(folder)
    names = list(dict.fromkeys(k for r in rows for k in r))
    columns = {}
    for name in names:
        values = [r.get(name) for r in rows]
        kinds = {type(v) for v in values if v is not None}
        if len(kinds) > 1 and not kinds <= {int, float}:
            values = [None if v is None else str(v) for v in values]
        elif kinds == {int, float}:
            values = [None if v is None else float(v) for v in values]
        columns[name] = values
    pq.write_table(pa.table(columns) if rows else pa.table({"type": pa.array([], pa.string())}), path)
    return Path(path)
