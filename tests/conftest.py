"""Shared fixtures: the real release files, the real Docker engine, the real sandbox image.

Nothing here skips: a missing release, engine or image fails the tests that need
it, with a message saying what to set up.
"""

from pathlib import Path

import pytest

from neocoder.dataset import build_from_release, default_release_dir


@pytest.fixture(scope="session", autouse=True)
def dataset_cache(tmp_path_factory):
    """A cache folder of this test session's own (neocoder/paths.py: the human technique
    sets detected from the release), so no test reads a cache another run made."""
    import os
    path = tmp_path_factory.mktemp("neocoder-cache")
    os.environ["NEOCODER_CACHE"] = str(path)
    return path


@pytest.fixture(scope="session")
def release_dir() -> Path:
    path = default_release_dir()
    assert (path / "NeoCoder.json").is_file(), (
        f"NeoCoder release not found at {path}: set NEOCODER_RELEASE or put shared/ beside the checkout")
    return path


@pytest.fixture(scope="session")
def release_states(release_dir):
    records, report = build_from_release(release_dir)
    return records, report


@pytest.fixture(scope="session")
def sandbox(request):
    """The real Docker sandbox (two workers), one per session.  A module that tests every
    backend asks for them with ``pytest.mark.parametrize("sandbox", ["docker", "process"],
    indirect=True, scope="module")`` and gets one box per backend and module."""
    from neocoder.judge import make_sandbox
    kind = getattr(request, "param", "docker")
    box = make_sandbox(kind, concurrency=2)
    if box.unavailable:  # the engine or image is missing: say so, never skip
        pytest.fail(f"{kind} sandbox unavailable ({box.unavailable}); start dockerd and run `neocoder sandbox build`")
    yield box
    box.close()


def pytest_collection_modifyitems(config, items):
    """Every test that starts the real local model is also ``slow``, and every test that
    takes the ``sandbox`` fixture (a DockerSandbox) is ``docker`` (pyproject.toml's
    markers): ``-m "not slow"`` and ``-m "not docker"`` need no second list."""
    for item in items:
        if "sandbox" in getattr(item, "fixturenames", ()) and item.get_closest_marker("docker") is None:
            item.add_marker(pytest.mark.docker)
        if item.get_closest_marker("llm") is not None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)
