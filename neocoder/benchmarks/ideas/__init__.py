"""LiveIdeaBench in neocoder: the ``ideas`` task (task.py, ``neocoder ideas``).

LiveIdeaBench (Ruan et al., "LiveIdeaBench: Evaluating LLMs' Divergent Thinking for
Scientific Idea Generation with Minimal Context", arXiv:2412.17596) asks a model for a
short scientific idea from a single keyword, has a panel of other models score each idea
for originality, feasibility and clarity, grades per keyword how different the model's
ideas are (fluency), and summarises the weaker keywords by a percentile (flexibility).
The modules:

- ``sources.py``: the keywords and the published leaderboard, read from
  ``$LIVEIDEABENCH_DIR`` (else ``shared/liveideabench`` beside the checkout) at run time;
- ``panel.py``: ``--judges`` with seat names, no self-judging, the seeded draws;
- ``scoring.py``: reading judge replies, the refusal and length rules, fluency points,
  flexibility, totals with bootstrap intervals over keywords (formulas and sources);
- ``loop.py``: the resumable loop over keywords; ``replay.py``: recorded ideas;
- ``protocol.py``: our protocol (the default) and LiveIdeaBench's own (``--protocol
  official``), whose prompts ``official.py`` reads from the authors' repository at run time;
- ``panel_file.py``: panel files (the shipped ``liveideabench_panel.toml``: the authors'
  critics) and the panel rules; ``analyses.py``: the paper's analyses over runs;
- ``records.py``: the ``Idea``, ``IdeaJudgement`` and ``FluencyGrade`` records;
- ``summary.py``: a model's summary (``metrics.json``'s ``models``) and ``IdeasResult``;
- ``descriptor.py``: the benchmark's declaration (tasks, records, measures, suite sizes).

docs/ideas.md describes the method, the formulas and the run folder.
"""
