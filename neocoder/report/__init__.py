"""Report stage: what a person reads after a run.

- ``text``: the plain-text tables the CLI prints;
- ``compare``: runs side by side with paired differences (``neocoder compare``);
- ``html``: the static, offline HTML report with plots (``neocoder report``).
"""
