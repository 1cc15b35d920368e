"""Report stage: what a person reads after a run.

- ``text``: the plain-text tables the CLI prints;
- ``compare``: runs side by side with paired differences (``neocoder compare``);
- ``html``: the static, offline HTML report with plots (``neocoder report``): the runs read
  by ``runs``, one section per benchmark in ``sections`` chosen by the run's kind, pages
  rendered from the Jinja2 templates in ``templates/`` by ``render``.
"""
