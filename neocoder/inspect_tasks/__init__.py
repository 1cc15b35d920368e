"""NeoCoder inside inspect_ai (docs/inspect.md): tasks, a scorer and metrics, a replay model API.

This module is inspect_ai's entry point for neocoder (``[project.entry-points.inspect_ai]``
in pyproject.toml): importing it registers the tasks ``neocoder/neocoder`` (tasks.py),
``neocoder/aidanbench`` (loops.py), ``neocoder/ideas`` (ideas_task.py) and
``neocoder/framework`` (framework_task.py, the creativity-evaluation framework), the scorer and
metric (scoring.py) and the model API ``neocoder-replay`` (replay_api.py).
It needs inspect_ai (``pip install 'neocoder[inspect]'``); ``import neocoder`` does not.
The other direction, an inspect log's replies scored by ``neocoder eval``, is the model
provider ``inspect/<log file>`` (neocoder/models/inspect_log.py).
"""

from neocoder.inspect_tasks.framework_task import framework
from neocoder.inspect_tasks.ideas_task import ideas
from neocoder.inspect_tasks.loops import aidanbench
from neocoder.inspect_tasks.replay_api import NeocoderReplayAPI
from neocoder.inspect_tasks.scoring import neocoder_scorer, neocoder_states
from neocoder.inspect_tasks.tasks import neocoder

__all__ = ["NeocoderReplayAPI", "aidanbench", "framework", "ideas", "neocoder", "neocoder_scorer", "neocoder_states"]
