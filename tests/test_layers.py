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
    "errors": 0,
    "options": 1, "records": 1, "paths": 1, "resources": 1, "netpolicy": 1,
    "config": 2, "store": 2,
    "dataset": 3,
    "models": 4, "judge": 4,
    "executors": 5, "techniques": 5,
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
MAPPED = {"prompts", "sandbox_recipe", "codeforces", "macgyver"}  # data folders mapped into the package (pyproject.toml)


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
