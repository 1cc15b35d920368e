"""Every record type is known to ``neocoder.records`` without any other import (issue 22,
item 7, and issue 45): a run folder of any benchmark reads back in a process that imported
nothing else.  A benchmark's records live in its package and are declared in its descriptor;
``records.record_type`` finds them through the registry, importing only the descriptors and
the records module it needs, never the benchmark's task, loop or scoring.

Before, LiveIdeaBench's record types registered themselves when ``neocoder.benchmarks.ideas`` was
imported, so a fresh process reading an ideas run folder failed with "unknown record
type 'idea'"."""

import importlib
import json
import pkgutil
import subprocess
import sys

import pytest
from panel import PanelServer, scripted, settings

import neocoder
from neocoder.api import run_ideas
from neocoder.records import RECORD_TYPES, Record, known_tags, record_type
from neocoder.store import RunFolder

READ_IN_A_FRESH_PROCESS = """
import collections, json, sys
from neocoder.store import RunFolder
records = RunFolder(sys.argv[1], create=False).read()
print(json.dumps({"types": collections.Counter(type(r).__name__ for r in records),
                  "ideas_imported": sorted(m for m in sys.modules if m.startswith("neocoder.benchmarks.ideas"))}))
"""


def test_an_ideas_run_folder_reads_back_in_a_fresh_process(tmp_path):
    keywords = tmp_path / "keywords.csv"
    keywords.write_text("keyword,category\nmeteorology,Earth science\nsoil,Biology\n")
    server = PanelServer(scripted())
    try:
        result = run_ideas(settings(tmp_path, server, keywords))
    finally:
        server.close()
    here = {}
    for record in RunFolder(result.run, create=False).read():
        here[type(record).__name__] = here.get(type(record).__name__, 0) + 1
    assert here["Idea"] == 4 and here["IdeaJudgement"] > 0 and here["FluencyGrade"] > 0
    out = subprocess.run([sys.executable, "-c", READ_IN_A_FRESH_PROCESS, str(result.run)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got == {"types": here,
                   "ideas_imported": ["neocoder.benchmarks.ideas", "neocoder.benchmarks.ideas.descriptor",
                                      "neocoder.benchmarks.ideas.records"]}


def _record_classes(cls) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _record_classes(sub)
    return found


def test_the_registry_knows_every_record_type_of_every_module():
    for module in pkgutil.walk_packages(neocoder.__path__, "neocoder."):
        if not module.name.endswith("__main__"):  # runs the CLI
            importlib.import_module(module.name)
    defined = {c for c in _record_classes(Record) if c.__module__.startswith("neocoder.")}
    assert {record_type(tag) for tag in known_tags()} == defined
    assert all(record_type(c.TYPE) is c for c in defined)  # one class per type tag
    shared = {c for c in defined if c.__module__ == "neocoder.records"}
    assert shared == {c for c in RECORD_TYPES.values() if c.__module__ == "neocoder.records"}
    # each benchmark's own records live in its package
    assert all(c.__module__.startswith("neocoder.benchmarks.") for c in defined - shared
               if c.__module__ != "neocoder.suite.records")


def test_a_task_registers_its_own_record_type_explicitly(monkeypatch):
    from dataclasses import dataclass

    from neocoder.errors import NeocoderError
    from neocoder.records import RECORD_TYPES, Record, register_record

    @dataclass
    class Note(Record):
        TYPE = "test_note"
        text: str

        @property
        def key(self) -> tuple:
            return (self.text,)

    monkeypatch.setattr("neocoder.records.RECORD_TYPES", dict(RECORD_TYPES))
    import neocoder.records as records
    assert register_record(Note) is Note and records.RECORD_TYPES["test_note"] is Note
    assert register_record(Note) is Note  # the same type again is fine
    with pytest.raises(NeocoderError, match="taken by Sample"):
        register_record(type("Other", (Note,), {"TYPE": "sample"}))
