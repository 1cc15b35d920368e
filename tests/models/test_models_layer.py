"""The model layer knows no benchmark (issue 22): NeoCoder's solve prompt lives in
``neocoder/solve.py``, and nothing in ``neocoder/models`` imports a module to its right.

The prompt's hash is what every sample records (``Sample.prompt_sha256``) and what the call
cache keys on, so the moved prompt is checked against the hash the old
``models.base.solve_prompt`` gave."""

import ast
from pathlib import Path

import neocoder.models
from neocoder.benchmarks.neocoder.solve import solve_prompt
from neocoder.models import Prompt, ReplayKey

# what neocoder/models may import: the shared bottom layer and the dataset stage to its left
ALLOWED = {"config", "errors", "resources", "records", "store", "dataset", "netpolicy", "redaction"}
RIGHT_OF_MODELS = ("neocoder.benchmarks.neocoder.solve", "neocoder.benchmarks.neocoder.program",
                   "neocoder.benchmarks.neocoder.strategies", "neocoder.benchmarks.neocoder.pipeline",
                   "neocoder.judge", "neocoder.techniques", "neocoder.metrics.rates", "neocoder.report", "neocoder.api",
                   "neocoder.benchmarks.aidanbench", "neocoder.benchmarks.ideas", "neocoder.benchmarks.neocoder.denial")
# config.py (the bottom layer) reads the strategies' option declarations; those modules hold
# declarations only, and importing them loads no solver (strategies/__init__ is lazy)
DECLARATIONS = ("neocoder.benchmarks.neocoder.strategies", "neocoder.benchmarks.neocoder.strategies.options")


def test_the_solve_prompt_is_the_one_the_model_layer_built():
    statement = '  A. Sum\nRead a and b; print a+b. Quote: """x"""\n'
    prompt = solve_prompt(statement, ReplayKey("1A", 2, 1, 3))
    assert isinstance(prompt, Prompt)
    # the hash of the old neocoder.models.base.solve_prompt on the same statement (commit 946a308)
    assert prompt.sha256() == "9b58965e3e332f49acf1f4381b188a9904b717e1826aad2929040223a6629efc"
    assert prompt.code_prefix == "import sys\n\n\ndef solve():\n" and prompt.completion.endswith(prompt.code_prefix)
    assert "'''x'''" in prompt.completion and '"""x"""' in prompt.messages[1]["content"]
    assert prompt.replay_key == ReplayKey("1A", 2, 1, 3)
    assert solve_prompt("B. Other").sha256() != prompt.sha256()


def test_no_module_of_the_model_layer_imports_a_stage_to_its_right():
    for path in sorted(Path(neocoder.models.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("neocoder."):
                top = node.module.split(".")[1]
                assert top in ALLOWED or top == "models", f"{path.name} imports {node.module}"
            assert not (isinstance(node, ast.ImportFrom) and node.level), f"{path.name}: a relative import"
