"""`neocoder export`: a real replay run's samples and states as parquet and JSONL, read back with
`datasets` and pandas, with exactly the columns docs/records.md documents."""

import json

import pytest
from click.testing import CliRunner
from records_doc import documented

from neocoder.benchmarks.neocoder.tables import SAMPLE_COLUMNS, STATE_COLUMNS
from neocoder.cli import main
from neocoder.errors import NeocoderError
from neocoder.export import export_run
from neocoder.records import Sample
from neocoder.store import RunFolder


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "replay"
    result = CliRunner().invoke(main, ["eval", "--model", "replay/gpt-4-1106-preview", "--limit", "3",
                                       "--states", "0-1", "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    return out


def test_documented_columns_are_the_written_ones():
    assert documented("Columns of samples.") == list(SAMPLE_COLUMNS)
    assert documented("Columns of states.") == list(STATE_COLUMNS)


@pytest.mark.docker
def test_parquet_loads_with_datasets_and_pandas(run, tmp_path):
    import datasets
    import pandas as pd
    result = CliRunner().invoke(main, ["export", str(run), "--format", "parquet", "--out", str(tmp_path / "x")])
    assert result.exit_code == 0, result.output
    samples_path, states_path = tmp_path / "x" / "samples.parquet", tmp_path / "x" / "states.parquet"
    assert result.output.split() == [str(samples_path), str(states_path)]
    loaded = {name: datasets.load_dataset("parquet", data_files=str(path), split="train",
                                          cache_dir=str(tmp_path / "hf"))
              for name, path in (("samples", samples_path), ("states", states_path))}
    assert loaded["samples"].column_names == list(SAMPLE_COLUMNS)
    assert loaded["states"].column_names == list(STATE_COLUMNS)
    frame = pd.read_parquet(samples_path)
    records = sorted(RunFolder(run, create=False).read(Sample), key=lambda s: s.key)
    assert len(frame) == len(loaded["samples"]) == len(records) == 6
    for row, record in zip(frame.to_dict("records"), records):
        assert (row["problem_id"], row["state"], row["sample"]) == record.key and row["language"] == "python"
        assert row["pass"] == record.correct and row["follows"] == record.follows
        assert list(row["techniques"]) == record.techniques and row["code"] == record.code
        assert row["divergent"] == pytest.approx(record.divergent)
    metrics = json.loads((run / "metrics.json").read_text())
    states = pd.read_parquet(states_path)
    assert list(states.columns) == list(STATE_COLUMNS) and list(states["state"]) == [0, 1]
    for row in states.to_dict("records"):
        m = metrics["states"][str(row["state"])]
        assert row["pass_at_1"] == m["pass@1"] and row["neogauge"] == m["neogauge"]
        assert row["neogauge_low"] == m["intervals"]["neogauge"]["low"]
        assert row["cumulative_neogauge"] == m["cumulative_neogauge"]
    # the mean of the per-sample rows is the state's rate (one sample per problem here)
    assert frame[frame.state == 0]["pass"].mean() == pytest.approx(metrics["states"]["0"]["pass@1"])


@pytest.mark.docker
def test_jsonl_has_the_same_rows(run, tmp_path):
    import pandas as pd
    samples, states = export_run(run, "jsonl", tmp_path)
    rows = [json.loads(line) for line in samples.read_text().splitlines()]
    assert [list(r) for r in rows] == [list(SAMPLE_COLUMNS)] * 6
    parquet = pd.read_parquet(export_run(run, "parquet", tmp_path)[0])
    assert [r["code"] for r in rows] == list(parquet["code"])
    assert len(states.read_text().splitlines()) == 2


@pytest.mark.docker
def test_clear_errors(run, tmp_path, monkeypatch):
    with pytest.raises(NeocoderError, match="not a run folder"):
        export_run(tmp_path, "parquet")
    with pytest.raises(NeocoderError, match="--format"):
        export_run(run, "csv")
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / "records.jsonl").write_text((run / "records.jsonl").read_text())
    with pytest.raises(NeocoderError, match="metrics.json"):
        export_run(unfinished, "jsonl")
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)  # pyarrow not installed
    with pytest.raises(NeocoderError, match="needs pyarrow"):
        export_run(run, "parquet", tmp_path / "p")
