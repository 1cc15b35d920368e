"""The one place that finds the files shipped with neocoder: prompt texts and the sandbox recipe.

In a checkout they live in the top-level folders ``prompts/`` and ``sandbox/`` (the
design card fixes that layout).  ``pyproject.toml`` maps those folders to the
subpackages ``neocoder.prompts`` and ``neocoder.sandbox_recipe``, so an editable
install and a built wheel both carry them as part of the package.  They are found
here through ``importlib.resources``, never with ``Path(__file__).parents[N]``: an
installed wheel has no checkout around it, so such arithmetic points at nothing.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from neocoder.errors import NeocoderError

if TYPE_CHECKING:  # importlib.resources.abc exists from Python 3.11 on; only annotations use it
    from importlib.resources.abc import Traversable

PROMPTS_PACKAGE = "neocoder.prompts"
SANDBOX_PACKAGE = "neocoder.sandbox_recipe"
# The recipe folder's own files that go into the image build (the runner package,
# runner/, goes in whole: neocoder.judge.image.recipe_files lists it).
SANDBOX_FILES = ("Dockerfile", ".dockerignore")
# What must be there for the image build and the process backend to work at all.
SANDBOX_REQUIRED = ("Dockerfile", "runner/__main__.py", "runner/child.py")


class ResourceMissing(NeocoderError):
    """A file that ships with neocoder (a prompt, the sandbox recipe) cannot be found."""


def _package_root(package: str) -> Traversable:
    """The resource root of ``package``; ResourceMissing if the package is not installed.

    An editable install made before the folders were mapped into the package lacks
    them, hence the hint to reinstall.
    """
    try:
        return resources.files(package)
    except ModuleNotFoundError as exc:
        raise ResourceMissing(
            f"{package} is not installed with neocoder: reinstall it (in a checkout: pip install -e .)"
        ) from exc


def prompt_names() -> list[str]:
    """Sorted file names of the shipped prompts, e.g. ``["aidan_coherence.txt", ...]``.

    The package's own ``__init__.py``, hidden files and folders (``__pycache__``) are
    not prompts and are left out.
    """
    root = _package_root(PROMPTS_PACKAGE)
    return sorted(entry.name for entry in root.iterdir()
                  if entry.is_file() and entry.name != "__init__.py" and not entry.name.startswith("."))


def prompt_text(name: str) -> str:
    """The UTF-8 text of ``prompts/<name>``, e.g. ``prompt_text("solve_system.txt")``.

    ``name`` must be one of ``prompt_names()`` (a bare file name, no folders), so a
    typo or a path like ``../x`` cannot read anything else.  Raises ResourceMissing
    naming the file otherwise.
    """
    names = prompt_names()
    if name not in names:
        raise ResourceMissing(f"prompt file prompts/{name} not found; the shipped prompts are: {', '.join(names)}")
    return _package_root(PROMPTS_PACKAGE).joinpath(name).read_text(encoding="utf-8")


def sandbox_dir() -> Path:
    """The folder on disk that holds the sandbox recipe (Dockerfile, the runner package).

    It must be a real directory: Docker reads it as the image's build context and the
    process backend runs the ``runner`` package from a copy of it.  A package imported from a zip
    archive has no such directory, so that raises ResourceMissing.  Whether each
    file is present is checked by the callers that read it (``judge.image``), so a
    damaged recipe only fails the commands that need the sandbox.
    """
    root = _package_root(SANDBOX_PACKAGE)
    # importlib.resources hands out a pathlib.Path exactly when the package sits in
    # a plain directory; from a zip archive it is a zipfile.Path.
    if not isinstance(root, Path) or not root.is_dir():
        raise ResourceMissing(
            f"the sandbox recipe ({', '.join(SANDBOX_REQUIRED)}) is at {root}, which is not a directory on "
            "disk; Docker needs one as build context: install neocoder unpacked (pip install), not as a zip"
        )
    return root
