"""The layout's promise, read from the code's own imports: data flows one way.

Every module of neocoder belongs to a unit (a top-level module or package, or one
benchmark package under ``neocoder/benchmarks/``), and every unit has a layer in
``LAYERS``: the bottom (errors, options, config, records, store, ...), the stages
(dataset -> models -> judge -> techniques -> metrics), the runner, the benchmarks, the
suite of them, the surfaces.  A unit may import only from units of a lower layer, which rules out any cycle
between folders.  Imports inside functions count too: a late import is still a
dependency.  A new unit must be given its layer here, on purpose.
"""

import ast
from pathlib import Path

import neocoder

PACKAGE = Path(neocoder.__file__).resolve().parent

# unit -> layer; an import must point to a strictly lower layer
LAYERS = {
    "redaction": 0,  # secrets never written or shown: the rule every layer reads
    "errors": 0.5,
    "options": 1, "records": 1, "paths": 1, "resources": 1, "netpolicy": 1,
    "config": 2, "store": 2,
    "outcome": 2.5,  # how a run's items ended and the lost-items rule (the runner applies it)
    "dataset": 3,
    "models": 4, "judge": 4,
    "executors": 5, "techniques": 5, "replies": 4.5,
    "oracle": 6, "metrics": 6,
    "runner": 7,
    "benchmarks": 8,  # the registry of tasks
    "benchmarks.*": 9,  # each benchmark's package
    "suite": 10,  # every benchmark for one model: the creativity profile
    "api": 11, "client": 11, "export": 11, "upgrade": 11, "report": 11,
    "inspect_tasks": 12, "rewards": 12,
    "serve": 13,
    "cli": 14,
    "neocoder": 15,  # the package's own __init__ (the lazy API names)
}
# a benchmark built on another one, on purpose: the framework's code domain solves NeoCoder's
# problem states with its pipeline and sandbox (docs/framework.md)
BUILDS_ON = {("benchmarks.framework", "benchmarks.neocoder")}
# data folders mapped into the package (pyproject.toml)
MAPPED = {"prompts", "sandbox_recipe", "codeforces", "macgyver"}


def unit(module: str) -> str:
    """The unit of a dotted module name inside neocoder."""
    parts = module.split(".")
    if len(parts) == 1:
        return "neocoder"
    if parts[1] == "benchmarks" and len(parts) > 2 and (PACKAGE / "benchmarks" / parts[2]).is_dir():
        return "benchmarks." + parts[2]
    return parts[1]


def layer(name: str) -> int:
    return LAYERS["benchmarks.*"] if name.startswith("benchmarks.") else LAYERS[name]


def imports() -> dict[tuple[str, str], set[str]]:
    """(importing unit, imported unit) -> the files where it happens."""
    found: dict[tuple[str, str], set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        if rel.parts[1] in MAPPED:
            continue
        module = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        package = module if rel.name == "__init__" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                targets = [base] if base != "neocoder" else [f"neocoder.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                if target.startswith("neocoder.") and unit(target) != unit(module):
                    found.setdefault((unit(module), unit(target)), set()).add(str(rel))
    return found


def test_every_unit_has_a_layer():
    units = {u for edge in imports() for u in edge}
    unknown = sorted(u for u in units if not u.startswith("benchmarks.") and u not in LAYERS)
    assert not unknown, f"give these units a layer in tests/test_layers.py LAYERS: {unknown}"


def test_imports_point_down_only():
    upward = [f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)}) in {sorted(files)}"
              for (a, b), files in sorted(imports().items()) if layer(b) >= layer(a) and (a, b) not in BUILDS_ON]
    assert not upward, "imports that point up a layer or across one:\n" + "\n".join(upward)


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    """The reader finds a late import inside a function, relative or absolute."""
    fake = tmp_path / "neocoder"
    (fake / "models").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "models" / "__init__.py").write_text("def f():\n    from ..report import html\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    assert imports() == {("models", "report"): {"neocoder/models/__init__"}}


# -- the shared machinery names no benchmark (issue 45) ------------------------------------------
# The modules every benchmark runs through.  They find benchmarks through the registry
# (neocoder/benchmarks/__init__.py) and their descriptors, never by importing a benchmark's
# package or a module a descriptor names (its section, commands, routes, tables, ...).
SHARED = ("runner.py", "records.py", "store.py", "models/", "suite/", "report/leaderboard/", "export.py",
          "serve/jobs.py", "serve/schemas.py", "serve/services.py", "serve/app.py", "serve/routes/runs.py",
          "report/runs.py", "report/html.py", "report/sections/__init__.py", "report/sections/base.py",
          "cli/__init__.py", "cli/run.py", "inspect_tasks/__init__.py", "benchmarks/__init__.py",
          "benchmarks/descriptor.py")


def benchmark_modules() -> set[str]:
    """Every module a benchmark owns: its package's modules and each module its descriptor
    names (report section, commands, inspect tasks, routes, tables, published rows, records)."""
    from neocoder.benchmarks import benchmarks
    owned = set()
    for bench in benchmarks():
        refs = [bench.section, bench.tables, bench.published, *bench.commands, *bench.inspect, *bench.routes,
                *bench.records.values(), *bench.tasks.values()]
        owned |= {ref.partition(":")[0] for ref in refs if isinstance(ref, str)}
    packages = {f"neocoder.benchmarks.{p.name}" for p in (PACKAGE / "benchmarks").iterdir() if p.is_dir()
                and p.name != "__pycache__"}
    return owned - {"neocoder.records"} | packages


def shared_modules(root: Path = PACKAGE) -> list[Path]:
    """The files of the shared machinery under ``root`` (a folder in SHARED: every file in it)."""
    found = []
    for entry in SHARED:
        path = root / entry
        found += sorted(path.rglob("*.py")) if entry.endswith("/") else [path] if path.exists() else []
    return found


def names_of_benchmarks(path: Path, owned: set[str]) -> list[str]:
    """What the file ``path`` imports, or names as a module in a string, that a benchmark owns."""
    found = []
    package = ".".join(path.parts[path.parts.index("neocoder"):-1])  # the file's package, for relative imports
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.ImportFrom) and (node.module or node.level):
            base = node.module or ""
            if node.level:  # a relative import, resolved against the file's package
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("neocoder."):
            targets = [node.value.partition(":")[0]]
        for target in targets:
            if any(target == m or target.startswith(m + ".") for m in owned):
                found.append(f"{path.name}:{node.lineno}: {target}" if not path.is_relative_to(PACKAGE.parent)
                             else f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {target}")
    return found


def test_the_shared_machinery_names_no_benchmark():
    owned = benchmark_modules()
    assert "neocoder.benchmarks.neocoder" in owned and "neocoder.report.sections.aidanbench" in owned
    registry = PACKAGE / "benchmarks" / "__init__.py"  # the one list of the built-in benchmarks
    found = [hit for path in shared_modules() for hit in names_of_benchmarks(path, owned)
             if not (path == registry and "descriptor" in hit.rsplit(" ", 1)[-1])]
    assert all((PACKAGE / entry).exists() for entry in SHARED)  # a moved module must be listed again
    assert not found, "the shared machinery names a benchmark:\n" + "\n".join(found)


def test_the_check_sees_a_benchmark_named_by_import_or_string(tmp_path):
    fake = tmp_path / "neocoder" / "suite"
    fake.mkdir(parents=True)
    (fake / "x.py").write_text("def f():\n    from neocoder.benchmarks.ideas.config import IdeasConfig\n"
                               "REF = 'neocoder.report.sections.framework:FrameworkSection'\n"
                               "from ..benchmarks.aidanbench import task\n")
    hits = names_of_benchmarks(fake / "x.py", benchmark_modules())
    assert sorted(h.rsplit(" ", 1)[-1] for h in hits) == ["neocoder.benchmarks.aidanbench",
                                                          "neocoder.benchmarks.aidanbench.task",
                                                          "neocoder.benchmarks.ideas.config",
                                                          "neocoder.benchmarks.ideas.config.IdeasConfig",
                                                          "neocoder.report.sections.framework"]
