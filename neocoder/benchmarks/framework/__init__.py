"""The domain-agnostic creativity-evaluation framework (creativity-framework paper): divergent
creativity as step-wise semantic entropy, convergent creativity as the verdicts of a
retrieval-based multi-agent judge, on MacGyver, HypoGen, BookMIA and NeoCoder's code
problems, with its validation (docs/framework.md).

Modules: ``config`` (the typed configs), ``records`` (the run folder's records),
``domains`` (problems and criteria), ``stepwise`` (the step loop, Eq. 1-3),
``entailment`` (NLI, LLM and embedding backends), ``retrieval`` (the retrieval-based judge,
App. D.2), ``chateval`` (the one-by-one baseline), ``code`` (the code domain's program and
sandbox verdict), ``task`` (the runner's task), ``validate`` (accuracy, AUARC, diversity
baselines).
"""

