"""A run folder as tables other tools read, chosen by the run's benchmark (its manifest's kind).

``neocoder export RUN --format parquet|jsonl`` writes the tables the run's benchmark
declares (``Benchmark.tables``, neocoder/benchmarks/descriptor.py): for NeoCoder
(``eval``, and the ``human`` baselines) ``samples.<ext>`` and ``states.<ext>``
(neocoder/benchmarks/neocoder/tables.py); for the creativity-evaluation framework
``steps.<ext>`` and ``problems.<ext>`` (neocoder/benchmarks/framework/tables.py); the
shapes lm-eval and lighteval users load with ``datasets.load_dataset("parquet",
data_files=...)`` or ``pandas.read_parquet``.  A benchmark that declares no tables is
refused with a NeocoderError naming the folder and the benchmark.  A folder without a
manifest (an older or hand-made run) is exported as the benchmark that declares its
records' type.  Each table's columns are declared once, with their types, in its
benchmark's module; docs/records.md ("Exported tables") documents them.  Parquet needs
only pyarrow.
"""

from __future__ import annotations

import json
from pathlib import Path

from neocoder.benchmarks import benchmark_of_kind, benchmark_of_record, benchmarks
from neocoder.benchmarks.descriptor import BOOLS, DOUBLES, INTS, STRINGS, resolve
from neocoder.errors import NeocoderError
from neocoder.store import RunFolder

FORMATS = ("parquet", "jsonl")


def run_kind(folder: Path) -> str | None:
    """The manifest kind of the run at ``folder`` ("eval", "framework", ...), or None for a
    folder without a manifest.  Raises RecordError for a manifest of another format version."""
    if not (Path(folder) / RunFolder.MANIFEST).is_file():
        return None
    return RunFolder(folder, create=False).read_manifest().kind


def _first_record_type(folder: Path) -> str | None:
    """The ``type`` of the first line of the folder's records.jsonl (None: empty or unreadable)."""
    with open(Path(folder) / RunFolder.RECORDS, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                try:
                    return json.loads(line).get("type")
                except (ValueError, AttributeError):
                    return None
    return None


def run_tables(folder: Path) -> list[tuple[str, list[dict], dict]]:
    """The tables of the run at ``folder``, as its benchmark declares them (``Benchmark.tables``):
    ``[(name, rows, {column: type})]``.  Raises NeocoderError naming the folder and the
    benchmark when it declares none."""
    kind = run_kind(folder)
    bench = benchmark_of_kind(kind) if kind is not None else benchmark_of_record(_first_record_type(folder) or "")
    if bench is None or bench.tables is None:
        with_tables = [f"{b.name} ({', '.join(b.kinds)})" for b in benchmarks() if b.tables is not None]
        what = f"a {kind!r} run" if kind is not None else "a run folder without a manifest"
        raise NeocoderError(f"{folder}: {what}; neocoder export writes tables for the runs of "
                            f"{'; '.join(with_tables)}, not for {kind!r} (its records.jsonl and metrics.json "
                            "are the run's data)")
    return resolve(bench.tables)(Path(folder))


def export_run(folder: Path, fmt: str = "parquet", out: Path | None = None) -> list[Path]:
    """Write the tables of the run at ``folder`` into ``out`` (default ``<folder>/export``)
    and return their paths (``<table>.<fmt>``, ``run_tables``).  Raises NeocoderError for an
    unknown format, a folder that is not a run folder, a run that has not finished, a
    benchmark with no tables (naming the folder and the benchmark), or parquet without pyarrow."""
    if fmt not in FORMATS:
        raise NeocoderError(f"--format must be one of {FORMATS}, got {fmt!r}")
    if not (Path(folder) / RunFolder.RECORDS).is_file():
        raise NeocoderError(f"{folder}: not a run folder (no {RunFolder.RECORDS})")
    tables = run_tables(folder)
    out = Path(out) if out is not None else Path(folder) / "export"
    out.mkdir(parents=True, exist_ok=True)
    write = _write_parquet if fmt == "parquet" else _write_jsonl
    return [write(rows, types, out / f"{name}.{fmt}") for name, rows, types in tables]


def _write_jsonl(rows: list[dict], types: dict, path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def _write_parquet(rows: list[dict], types: dict, path: Path) -> Path:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise NeocoderError("--format parquet needs pyarrow: pip install pyarrow (or use --format jsonl)") from exc
    kinds = {"string": pa.string(), "int64": pa.int64(), "double": pa.float64(), "bool": pa.bool_(),
             STRINGS: pa.list_(pa.string()), BOOLS: pa.list_(pa.bool_()), INTS: pa.list_(pa.int64()),
             DOUBLES: pa.list_(pa.float64())}
    schema = pa.schema([(name, kinds[kind]) for name, kind in types.items()])
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path)
    return path
