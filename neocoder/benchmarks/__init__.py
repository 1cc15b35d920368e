"""The benchmarks, one package each, holding everything that benchmark alone knows (its
config, records, task, loops, domains and validation): ``framework/`` is the step-wise
semantic entropy and retrieval-based multi-agent judge benchmark (docs/framework.md).
The others move beside it (docs/architecture.md)."""
