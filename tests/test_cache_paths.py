"""The one cache root and the one fingerprint helper (neocoder/paths.py).

The shipped dataset's manifest names the release and the builder by two fingerprints (and
the human runs' cache is named by the first); if their values changed, every existing cache
would be rebuilt (about ten minutes), so the helper is checked against the code it replaced,
kept here verbatim as the reference, and against a digest written down before the change.
"""

import hashlib
from importlib import resources
from pathlib import Path

import neocoder
from neocoder.dataset import shipped
from neocoder.dataset.release import ANNOTATED_FILE, HUMAN_FILE, NEOCODER_FILE
from neocoder.paths import cache_root, fingerprint, package_files

# the validated dataset's fingerprints before neocoder/paths.py existed (neocoder/validated.py, commit 946a308).


def _old_sha256_files(paths):
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _old_builder_fingerprint():
    here = Path(neocoder.__file__).resolve().parent
    special = here / "judge" / "special"
    files = [here / name for name in shipped.BUILDER_MODULES]
    files += sorted(special.rglob("*.py")) if special.is_dir() else [here / "judge" / "special.py"]
    # the in-container runner: runner.py until it became the runner package, whose every module counts now
    files += sorted(Path(str(resources.files("neocoder.sandbox_recipe").joinpath("runner"))).rglob("*.py"))
    return _old_sha256_files([f for f in files if f.is_file()])


def test_fingerprint_is_the_old_digest(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"alpha")
    (tmp_path / "b.py").write_bytes(b"beta\n")
    files = [tmp_path / "a.txt", tmp_path / "b.py"]
    # written down from the old code on these two files
    assert fingerprint(files) == "54f84b596f34f26be0371c3273c44646687341bb883c3ddc5db94bf682c1685b"
    assert fingerprint(files) == _old_sha256_files(files)
    assert fingerprint(reversed(files)) != fingerprint(files)  # the order given counts
    (tmp_path / "b.py").write_bytes(b"beta!\n")
    assert fingerprint(files) != "54f84b596f34f26be0371c3273c44646687341bb883c3ddc5db94bf682c1685b"


def test_dataset_fingerprints_unchanged(release_dir):
    """The old hasher's digests: the same release and builder files give the same cache folder."""
    assert shipped.builder_fingerprint() == _old_builder_fingerprint()
    release = [Path(release_dir) / name for name in (NEOCODER_FILE, ANNOTATED_FILE, HUMAN_FILE)]
    assert shipped.release_fingerprint(release_dir) == _old_sha256_files(release)


def test_package_files_in_rglob_order():
    here = Path(neocoder.__file__).resolve().parent
    expected = sorted((here / "judge" / "special").rglob("*.py"))
    got = package_files("neocoder", "judge", "special")
    assert [Path(str(f)) for f in got] == expected and len(got) > 3
    scm = package_files("neocoder.techniques", suffixes=(".scm",))
    assert scm and all(f.name.endswith(".scm") for f in scm)
    assert package_files("neocoder", "no-such-folder") == []


def test_cache_root_read_at_call_time(monkeypatch, tmp_path, release_dir):
    from neocoder.techniques.human import detected_solution_sets
    monkeypatch.setenv("NEOCODER_CACHE", str(tmp_path / "one"))
    assert cache_root() == tmp_path / "one"
    detected_solution_sets(release_dir, ["1899A"])
    assert [p.name[:17] for p in (tmp_path / "one").iterdir()] == ["human-techniques-"]
    monkeypatch.setenv("NEOCODER_CACHE", str(tmp_path / "two"))
    assert cache_root() == tmp_path / "two"
    monkeypatch.delenv("NEOCODER_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # not read: one variable decides
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "neocoder"
    monkeypatch.setenv("NEOCODER_CACHE", "")  # empty counts as unset
    assert cache_root() == tmp_path / "home" / ".cache" / "neocoder"
