"""NeoCoder inside inspect_ai (docs/inspect.md): tasks, a scorer and metrics, a replay model API.

This module is inspect_ai's entry point for neocoder (``[project.entry-points.inspect_ai]``
in pyproject.toml): importing it registers every registered benchmark's inspect tasks (the
modules its descriptor names in ``Benchmark.inspect``: ``neocoder/neocoder`` in tasks.py,
``neocoder/aidanbench`` in loops.py, ``neocoder/ideas`` in ideas_task.py,
``neocoder/framework`` in framework_task.py), the scorer and metric (scoring.py) and the
model API ``neocoder-replay`` (replay_api.py).
It needs inspect_ai (``pip install 'neocoder[inspect]'``); ``import neocoder`` does not.
The other direction, an inspect log's replies scored by ``neocoder eval``, is the model
provider ``inspect/<log file>`` (neocoder/models/inspect_log.py).
"""

from importlib import import_module

from neocoder.benchmarks import benchmarks
from neocoder.inspect_tasks.replay_api import NeocoderReplayAPI
from neocoder.inspect_tasks.scoring import neocoder_scorer, neocoder_states

for _bench in benchmarks():
    for _module in _bench.inspect:
        import_module(_module)  # its @task functions register with inspect_ai

__all__ = ["NeocoderReplayAPI", "neocoder_scorer", "neocoder_states"]
