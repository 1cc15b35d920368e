"""The sizes a newcomer can read (docs/architecture.md "Code style"): no module of
``neocoder/`` over 500 lines, no function or method over 60."""

import ast
from pathlib import Path

import neocoder

PACKAGE = Path(neocoder.__file__).resolve().parent
MODULE_LINES, FUNCTION_LINES = 500, 60


def sizes(root: Path = PACKAGE) -> tuple[list[str], list[str]]:
    """(modules over MODULE_LINES, functions over FUNCTION_LINES) under ``root``, as
    ``path: lines`` and ``path:line name: lines``."""
    modules, functions = [], []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MODULE_LINES:
            modules.append(f"{path.relative_to(root.parent)}: {lines}")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > FUNCTION_LINES:
                    functions.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name}: {length}")
    return modules, functions


def test_no_module_over_500_lines_and_no_function_over_60():
    modules, functions = sizes()
    assert not modules, f"modules over {MODULE_LINES} lines: {modules}"
    assert not functions, f"functions over {FUNCTION_LINES} lines: {functions}"


def test_the_check_sees_a_long_function(tmp_path):
    (tmp_path / "pkg").mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    (tmp_path / "pkg" / "m.py").write_text(f"def long():\n{body}\n")
    modules, functions = sizes(tmp_path / "pkg")
    assert modules == [] and functions == ["pkg/m.py:1 long: 62"]
