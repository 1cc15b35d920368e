"""Rendering the report's pages from the Jinja2 templates in ``neocoder/report/templates``.

Why: markup lives in templates (one per section and page), Python only decides what the
pages show.  The environment autoescapes every value (``autoescape=True``): a problem
statement, a model's code or an idea's text can never inject markup; the only values
passed through unescaped are what this package made itself (matplotlib SVG figures,
pygments' highlighted code, already rendered sections), marked with ``Markup``.

The templates are read as package data (``jinja2.PackageLoader``), so an installed wheel
renders the same pages as a checkout.  Number formats are the templates' ``fmt`` filter
(Python's format-spec mini-language, ``—`` for a missing value) and ``pct`` (a fraction as
a percentage with one decimal).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

STATIC_FILES = ("report.css", "filter.js")
CODE_CLASS = "hl"  # the CSS class of pygments' code blocks
MISSING = "—"  # how a value that does not exist is shown


def fmt(value, spec: str = "") -> str:
    """``value`` formatted with the format spec ``spec`` (``format(value, spec)``); ``—``
    for None."""
    return MISSING if value is None else format(value, spec)


def pct(value) -> str:
    """A fraction in [0, 1] as a percentage with one decimal ("17.1%"); ``—`` for None."""
    return MISSING if value is None else f"{100 * value:.1f}%"


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("neocoder.report", "templates"), autoescape=True,
                      extensions=["jinja2.ext.do"], undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters.update(fmt=fmt, pct=pct)
    return env


ENV = _environment()


def render(template: str, **context) -> Markup:
    """The template ``template`` (a file name in ``templates/``) rendered with ``context``,
    as markup that another template inlines unescaped.  Raises jinja2's UndefinedError
    when the template uses a name the context lacks (a programming error)."""
    return Markup(ENV.get_template(template).render(**context))


def write_page(path: Path, title: str, body: str, script: bool = False) -> None:
    """Write one complete HTML page (``page.html``: head, style sheet, ``body``, and the
    filter script when ``script``) to ``path``."""
    path.write_text(render("page.html", title=title, body=Markup(body), script=script), encoding="utf-8")


def write_static(out: Path) -> None:
    """Copy the package's style sheet (with pygments' colours for ``CODE_CLASS`` appended)
    and filter script into folder ``out``."""
    from pygments.formatters import HtmlFormatter

    for name in STATIC_FILES:
        data = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
        if name.endswith(".css"):
            data += "\n/* code colours (pygments) */\n" + HtmlFormatter().get_style_defs(f".{CODE_CLASS}") + "\n"
        (out / name).write_text(data, encoding="utf-8")
