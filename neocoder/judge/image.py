"""Build the sandbox image offline: debootstrap a Debian rootfs, import it, add the runner.

No registry is needed.  The Debian mirror comes from this machine's own apt sources
(``/etc/apt/sources.list`` and ``/etc/apt/sources.list.d/*``), never from a
hard-coded host.  The final image is labelled with the SHA-256 of
the in-container code (the Dockerfile and every file of the runner package) so the
judge can refuse a stale image and ``neocoder sandbox build`` rebuilds when it changed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import docker

from neocoder import resources
from neocoder.errors import NeocoderError
from neocoder.judge.engine import machine_lock
from neocoder.paths import fingerprint

IMAGE_ENV = "NEOCODER_SANDBOX_IMAGE"  # names the image to build and run, when set
FALLBACK_IMAGE = "neocoder-sandbox:latest"
RUNNER_LABEL = "neocoder.runner_sha256"
# What goes into the image besides the Dockerfile: the runner package, copied whole.
RUNNER_PACKAGE = "runner"
# Debian packages the debootstrapped base holds besides minbase: the Python interpreter
# and the C++ compiler (g++ and its dependencies: cpp, binutils, libstdc++-dev).
BASE_PACKAGES = ("python3", "g++")


def base_tag(suite: str) -> str:
    """The cached base image's tag for Debian ``suite``:
    ``neocoder-sandbox-base:<suite>-<first 12 hex digits of the SHA-256 of BASE_PACKAGES>``,
    so a base debootstrapped with another package set is never taken for this one."""
    digest = hashlib.sha256(" ".join(BASE_PACKAGES).encode()).hexdigest()[:12]
    return f"neocoder-sandbox-base:{suite}-{digest}"


def default_image() -> str:
    """The sandbox image's tag: ``$NEOCODER_SANDBOX_IMAGE`` if set, else FALLBACK_IMAGE.

    Read when called (never at import), so a caller that sets the variable before it
    opens a sandbox gets that image.
    """
    return os.environ.get(IMAGE_ENV) or FALLBACK_IMAGE


class ImageError(NeocoderError):
    """The sandbox image is missing, stale, or could not be built."""


def recipe_files(recipe_dir: Path | None = None) -> list[str]:
    """The recipe's files that make the image, as sorted POSIX paths relative to
    ``recipe_dir`` (default: the installed recipe, ``resources.sandbox_dir()``).

    That is every file of ``resources.SANDBOX_FILES`` (the Dockerfile and its build
    context's ignore file) and every file of the runner package, compiled caches left
    out, exactly what the Dockerfile copies.  Raises ImageError naming the first
    required file (``resources.SANDBOX_REQUIRED``) that is absent.
    """
    root = Path(recipe_dir) if recipe_dir is not None else resources.sandbox_dir()
    for name in resources.SANDBOX_REQUIRED:
        if not (root / name).is_file():
            raise ImageError(f"{root / name} not found: the sandbox recipe is incomplete; reinstall neocoder")
    package = [path.relative_to(root).as_posix() for path in (root / RUNNER_PACKAGE).rglob("*")
               if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"]
    top = [name for name in resources.SANDBOX_FILES if (root / name).is_file()]
    return sorted(set(top + package))


def runner_sha256(recipe_dir: Path | None = None) -> str:
    """SHA-256 hex digest (``paths.fingerprint``) of the in-container code: each of
    ``recipe_files`` under its path relative to the recipe, in sorted order, so an added,
    removed or renamed module changes it as much as an edited one.

    The image carries it as a label (RUNNER_LABEL); ``check_image`` refuses an image
    whose label differs.  Raises ImageError if the recipe is incomplete.
    """
    root = Path(recipe_dir) if recipe_dir is not None else resources.sandbox_dir()
    names = recipe_files(root)
    return fingerprint([root / name for name in names], names)


def apt_mirror_and_suite() -> tuple[str, str]:
    """Return (mirror URL, suite) of the machine's main Debian apt source.

    Reads deb822 ``*.sources`` files and one-line ``sources.list`` entries and picks
    the first source that is not a security or updates archive.  Raises ImageError
    when none is configured.
    """
    candidates: list[tuple[str, str]] = []
    files = [Path("/etc/apt/sources.list")] + sorted(Path("/etc/apt/sources.list.d").glob("*"))
    for path in files:
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                fields = dict(
                    (m.group(1).lower(), m.group(2).strip())
                    for m in re.finditer(r"^([A-Za-z-]+):\s*(.*)$", stanza, re.M)
                )
                if "deb" not in fields.get("types", "").split():
                    continue
                for uri in fields.get("uris", "").split():
                    for suite in fields.get("suites", "").split():
                        candidates.append((uri, suite))
        elif path.suffix == ".list":
            for line in text.splitlines():
                parts = line.split("#", 1)[0].split()
                if len(parts) >= 3 and parts[0] == "deb":
                    rest = [p for p in parts[1:] if not p.startswith("[")]
                    candidates.append((rest[0], rest[1]))
    for uri, suite in candidates:
        if "security" not in uri and "-" not in suite:
            return uri, suite
    raise ImageError("no Debian apt source found in /etc/apt/sources.list{,.d}; cannot debootstrap")


BUILD_LOCK = "neocoder-sandbox-build.lock"  # in engine.lock_dir(): one image build at a time per machine


def build_image(tag: str | None = None, rebuild_base: bool = False, log=print) -> str:
    """Build the sandbox image and return its tag (default: ``default_image()``).

    Two builds on one machine (two ``neocoder sandbox build``, or CI beside a user) take
    turns, holding BUILD_LOCK: the second one waits, then finds the base debootstrapped
    and the Dockerfile's layers cached, instead of debootstrapping again beside the first.

    Step 1 (slow, cached as ``base_tag(suite)``): debootstrap a minbase Debian with
    BASE_PACKAGES (python3, g++) from the local apt mirror and ``docker import`` it.
    Step 2: build ``sandbox/Dockerfile`` on top of it (adds the runner), labelled with
    the runner's SHA-256.  Raises ImageError on any failure.
    """
    with machine_lock(BUILD_LOCK):
        return _build_image(tag or default_image(), rebuild_base, log)


def _build_image(tag: str, rebuild_base: bool, log) -> str:
    recipe = resources.sandbox_dir()
    label = runner_sha256(recipe)  # before the slow part: an incomplete recipe fails at once
    client = docker.from_env()
    mirror, suite = apt_mirror_and_suite()
    base = base_tag(suite)
    have_base = bool(client.images.list(name=base))
    if rebuild_base or not have_base:
        if shutil.which("debootstrap") is None:
            raise ImageError("debootstrap not found: apt-get install debootstrap")
        with tempfile.TemporaryDirectory(prefix="neocoder-rootfs-") as tmp:
            rootfs = Path(tmp) / "rootfs"
            log(f"debootstrap {suite} from {mirror} (a few minutes) ...")
            proc = subprocess.run(
                ["debootstrap", "--variant=minbase", "--include=" + ",".join(BASE_PACKAGES),
                 suite, str(rootfs), mirror],
                capture_output=True, text=True,
            )
            if proc.returncode != 0:
                raise ImageError(f"debootstrap failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
            for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
                for p in (rootfs / junk).glob("*"):
                    if p.is_file():
                        p.unlink()
            log(f"importing rootfs as {base} ...")
            tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
            imp = subprocess.run(["docker", "import", "-", base], stdin=tar.stdout, capture_output=True, text=True)
            tar.wait()
            if imp.returncode != 0 or tar.returncode != 0:
                raise ImageError(f"docker import failed: {imp.stderr}")
    log(f"building {tag} on {base} ...")
    try:
        client.images.build(
            path=str(recipe), tag=tag, buildargs={"BASE": base}, rm=True, forcerm=True,
            labels={RUNNER_LABEL: label},
        )
    except docker.errors.BuildError as exc:
        raise ImageError(f"building {tag} failed: {exc}") from exc
    return tag


def check_image(client: docker.DockerClient, tag: str | None = None) -> None:
    """Raise ImageError unless ``tag`` (default: ``default_image()``) exists and carries
    the current runner (its RUNNER_LABEL equals ``runner_sha256()``)."""
    tag = tag or default_image()
    try:
        image = client.images.get(tag)
    except docker.errors.ImageNotFound as exc:
        raise ImageError(f"sandbox image {tag} not found: run `neocoder sandbox build`") from exc
    if image.labels.get(RUNNER_LABEL) != runner_sha256():
        raise ImageError(f"sandbox image {tag} is stale (the sandbox recipe changed): run `neocoder sandbox build`")
