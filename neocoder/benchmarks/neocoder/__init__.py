"""NeoCoder (Lu et al., NAACL 2025): Denial Prompting and NeoGauge, as a benchmark package.

- ``config.py``: ``EvalConfig`` (with the model defaults of an eval), ``DatasetConfig``,
  ``ChainConfig``;
- ``evaluation.py``: the ``eval`` task (solve, judge, detect, score) and the ``human``
  task (the human baselines, Eq. 5 and 6);
- ``pipeline.py``: one sample through the stages (strategy -> sandbox -> detector ->
  ``Sample``), ``solve.py`` (the solve prompt), ``program.py`` (reply -> program),
  ``strategies/`` (how a sample is solved);
- ``paper.py``: judging as the release's own harness did (``--paper``);
- ``shards.py``: ``--shard K/N``, several drivers on one run folder;
- ``building.py`` (the ``dataset`` task: the validated dataset from the release),
  ``chains.py`` and ``denial.py`` (the ``chains`` task: Denial Prompting, Algorithm 1).
"""
