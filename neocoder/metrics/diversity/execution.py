"""Algorithm classes by execution: a program's cost curve and memory curve (issue 25).

A program runs in the sandbox, instrumented by ``counter.instrument`` (a deterministic
operation count), on the inputs of growing size that ``growth.growth_inputs`` makes and
``validated_inputs`` keeps (the sizes where accepted human solutions run cleanly and
agree).  Its **fingerprint** is the complexity class of operations against ``n``
(``complexity.fit_complexity``) and the class of its memory curve (peak RSS against
``n``); ``Fingerprint.key()`` = (complexity, memory) is its execution class.

Runs go to the sandbox ``CHUNK`` sizes per submission, smallest first; after a chunk in
which the program passed the operation cap (or the CPU limit), no larger size is run, so
an O(n^2) program costs about as much as an O(n) one.  Every run is cached on disk
(``cache_root()/diversity/runs.jsonl``) under (code version, inputs, source, entry), so
an interrupted job resumes and a program is never measured twice.

What an execution class can tell apart: programs whose cost grows differently with the
input (a quadratic scan and a linear one; a sort-based O(n log n) solution and an O(n)
counting one, when the sort is visible to the counter) and programs that keep O(n)
memory from those that keep O(1).  What it cannot: two different algorithms of the same
growth (a two-pointer scan and a prefix-sum scan are both O(n)), work hidden in C
built-ins the counter cannot size (counter.py), growth in a dimension the generator does
not grow (growth.py), and behaviour beyond the sizes measured.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from neocoder.judge import Limits
from neocoder.judge.checkers import as_checker, check
from neocoder.judge.verdicts import AC, TLE, WA
from neocoder.metrics.diversity.complexity import MIN_POINTS, FitError, fit_complexity
from neocoder.metrics.diversity.counter import instrument, split_output
from neocoder.metrics.diversity.growth import GrowthInput, growth_inputs
from neocoder.paths import cache_root, package_files
from neocoder.paths import fingerprint as hash_files
from neocoder.records import ProblemState
from neocoder.store import JsonlStore

CHUNK = 4  # sizes per submission
RECORD_VERSION = 1  # raise when _run_record changes what it records
CPU_SECONDS = 10.0  # per grown input; the operation cap stops a run long before (about 1-2 s)
MIN_AGREE = 2  # clean human runs a size needs to be kept
LABEL_HUMANS = 6  # human solutions that validate a problem's sizes for a model's program
MEMORY_CLASSES = ("O(1)", "O(n)", "O(n^2)")
MEMORY_FLAT_KB = 768  # peak RSS that grows by less than this over the sizes: O(1) memory
KEEP_OUTPUT_BYTES = 4096  # outputs up to this size are cached whole (float agreement), else their hash
# the special checkers (judge/special/) are written for Codeforces-sized examples: some are
# quadratic or exponential in n (1774A, 1743B, 1861A), so each check runs in a child process
# and is given up after this many seconds
SPECIAL_SECONDS = 2.0


@lru_cache(maxsize=1)
def code_version() -> str:
    """SHA-256 (16 hex) of what makes a cached run: the counter's source and the run record's
    format (``RECORD_VERSION``), read once per process.  The generator needs no share: the
    cache key names the inputs themselves."""
    files = [f for f in package_files("neocoder.metrics.diversity") if f.name == "counter.py"]
    return hash_files(files)[:12] + f"-r{RECORD_VERSION}"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]


def default_cache() -> JsonlStore:
    """The runs cache: ``cache_root()/diversity/runs.jsonl`` (one line per program and inputs)."""
    return JsonlStore(Path(cache_root()) / "diversity" / "runs.jsonl", "runs")


@dataclass
class Fingerprint:
    """A program's execution fingerprint.

    complexity: class of operations against n (complexity.COMPLEXITY_CLASSES);
    memory: class of peak RSS against n (MEMORY_CLASSES); points: ``[(n, operations,
    cpu_seconds, peak_rss_kb)]`` of the sizes it finished; residual: the fit's RMS
    relative error; capped_at: the first n at which it passed the operation cap (None:
    it finished every size)."""

    complexity: str
    memory: str
    points: list = field(default_factory=list)
    residual: float = 0.0
    capped_at: int | None = None

    def key(self) -> tuple:
        """The execution class: (complexity, memory)."""
        return (self.complexity, self.memory)

    def to_dict(self) -> dict:
        """The fit as a JSON object (its fields)."""
        return asdict(self)


def _special_child(conn, checker, out, text):
    conn.send(bool(check(checker, out.encode(), {"input": text, "output": ""})))
    conn.close()


def special_ok(checker: dict, out: str, text: str) -> bool | None:
    """The problem's special checker on (input ``text``, output ``out``) in a forked child,
    None when it takes over SPECIAL_SECONDS (the size then needs clean runs only)."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_special_child, args=(child, checker, out, text), daemon=True)
    proc.start()
    child.close()
    try:
        if parent.poll(SPECIAL_SECONDS):
            return parent.recv()
        return None
    except EOFError:  # the checker raised in the child: not a pass
        return False
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()


def _run_record(g: GrowthInput, verdict, checker: dict) -> dict:
    """One run as cached: n, status (ok, capped or a verdict), ops, cpu, rss and the output."""
    out, ops, capped = split_output(verdict.stdout or "")
    status = "capped" if capped or verdict.verdict == TLE else (
        "ok" if verdict.verdict in (AC, WA) and ops is not None else (
            "RE" if verdict.verdict in (AC, WA) else verdict.verdict))
    record = {"n": g.n, "status": status, "ops": ops, "cpu": verdict.cpu_seconds, "rss": verdict.max_rss_kb,
              "out_sha": _sha(" ".join(out.split()))}
    if status == "ok":
        if len(out) <= KEEP_OUTPUT_BYTES:
            record["out"] = out
        if checker["kind"] == "special":
            ok = special_ok(checker, out, g.input)
            if ok is not None:
                record["special_ok"] = ok
    return record


def measure(sandbox, source: str, inputs: list[GrowthInput], limits: Limits, entry: str = "auto",
            checker="tokens", cache: JsonlStore | None = None) -> list[dict]:
    """Run the instrumented ``source`` on ``inputs`` (ascending n), CHUNK per submission,
    stopping after a chunk with a capped run; returns one record per input (``_run_record``;
    status "skipped" for sizes not run).  Cached under (code version, inputs, source, entry)
    unless a run met sandbox trouble (INFRA)."""
    checker = as_checker(checker)
    key = "|".join((code_version(), _sha(json.dumps([[g.n, g.input] for g in inputs])), _sha(source), entry,
                    f"cpu{limits.cpu_seconds:g}"))
    cached = cache.get(key) if cache is not None else None
    if cached is not None:
        return cached
    program = instrument(source)
    records: list[dict] = []
    for start in range(0, len(inputs), CHUNK):
        chunk = inputs[start:start + CHUNK]
        if any(r["status"] == "capped" for r in records):
            records += [{"n": g.n, "status": "skipped"} for g in chunk]
            continue
        result = sandbox.run(program, [{"input": g.input, "output": ""} for g in chunk], limits,
                             keep_output=True, entry=entry)
        if result.compile_error or len(result.tests) != len(chunk):
            records += [{"n": g.n, "status": "CE"} for g in chunk]
            continue
        records += [_run_record(g, v, checker) for g, v in zip(chunk, result.tests)]
    if cache is not None and not any(r["status"] == "INFRA" for r in records):
        cache.put(key, records)
    return records


def _memory_class(ns: list[int], rss: list[int]) -> str:
    """O(1) when peak RSS grows by less than MEMORY_FLAT_KB over the sizes, else the
    best of MEMORY_CLASSES by the same fit as the operation count."""
    if max(rss) - min(rss) < MEMORY_FLAT_KB:
        return "O(1)"
    try:
        return fit_complexity(ns, rss, classes=MEMORY_CLASSES[1:]).label
    except FitError:
        return "O(1)"


def from_runs(records: list[dict], keep: set[int] | None = None) -> Fingerprint | None:
    """The fingerprint of measured runs (``measure``) restricted to sizes ``keep`` (None:
    all); None when a kept size did not run cleanly (a crash, a wrong status) or fewer
    than MIN_POINTS sizes finished under the cap."""
    runs = [r for r in records if keep is None or r["n"] in keep]
    if any(r["status"] not in ("ok", "capped", "skipped") for r in runs):
        return None
    done = [r for r in runs if r["status"] == "ok" and r.get("ops")]
    if len(done) < MIN_POINTS:
        return None
    ns = [r["n"] for r in done]
    fit = fit_complexity(ns, [r["ops"] for r in done])
    rss = [r["rss"] or 0 for r in done]
    capped = [r["n"] for r in runs if r["status"] == "capped"]
    return Fingerprint(fit.label, _memory_class(ns, rss),
                       [(r["n"], r["ops"], r["cpu"], r["rss"]) for r in done], round(fit.residual, 4),
                       min(capped) if capped else None)


def _agree(checker: dict, clean: list[dict]) -> bool:
    """The clean runs of one size answer alike: one token hash (tokens, consensus: any
    clean answer), the float checker on whole outputs, or the special checker passing each."""
    kind = checker["kind"]
    if kind == "special":
        return all(r.get("special_ok", True) for r in clean)  # absent: an input too large to check
    if kind == "consensus":
        return True
    if kind == "float" and all("out" in r for r in clean):
        first = clean[0]["out"]
        return all(check(checker, r["out"].encode(), {"output": first}) for r in clean[1:])
    if checker.get("ignore_case") and all("out" in r for r in clean):
        return len({r["out"].lower().split().__repr__() for r in clean}) == 1
    return len({r["out_sha"] for r in clean}) == 1


def kept_sizes(checker, human_runs: list[list[dict]]) -> tuple[set[int], dict]:
    """Sizes kept by the human runs (one ``measure`` list per solution): at least MIN_AGREE
    humans finished it cleanly, at least half of those that reached it (not capped or
    skipped) did, and they agree (``_agree``).  Returns (kept n, {n: reason dropped})."""
    checker = as_checker(checker)
    kept, dropped = set(), {}
    sizes = sorted({r["n"] for runs in human_runs for r in runs})
    for n in sizes:
        at = [r for runs in human_runs for r in runs if r["n"] == n]
        reached = [r for r in at if r["status"] not in ("capped", "skipped")]
        clean = [r for r in reached if r["status"] == "ok"]
        if len(clean) < MIN_AGREE:
            dropped[n] = f"{len(clean)} clean human runs"
        elif len(clean) < 0.5 * len(reached):
            dropped[n] = f"{len(reached) - len(clean)} of {len(reached)} human runs failed: " + \
                         ", ".join(f"{k} {v}" for k, v in Counter(r["status"] for r in reached).items())
        elif not _agree(checker, clean):
            dropped[n] = "human outputs disagree"
        else:
            kept.add(n)
    return kept, dropped


def limits_for(state: ProblemState) -> Limits:
    """The limits of a growth run: CPU_SECONDS and the problem's memory limit (at least 256 MiB)."""
    return Limits.for_cpu(CPU_SECONDS, memory_mb=max(256, int(state.memory_limit_mb or 256)))


def human_python(release_dir: Path, problem_ids=None) -> dict[str, list[str]]:
    """problem_id -> the release's accepted human Python 3 sources, in release order (the
    selection neocoder/oracle.py makes: ``techniques.human.solutions_by_language``)."""
    from neocoder.techniques.human import solutions_by_language
    return {pid: [src for lang, src in sols if lang == "python"]
            for pid, sols in solutions_by_language(release_dir, problem_ids).items()}


def validated_inputs(sandbox, state: ProblemState, humans: list[str], cache: JsonlStore | None = None,
                     workers: int = 2, candidates: list[GrowthInput] | None = None) -> tuple[list[GrowthInput], dict]:
    """The grown inputs of ``state`` (``candidates``, default ``growth_inputs(state)``) that
    ``humans`` (sources, run as written) validate (``kept_sizes``), and a report
    ``{"candidates", "kept", "dropped"}``.  ``[]`` when the problem cannot be grown or no
    size is kept."""
    candidates = growth_inputs(state) if candidates is None else candidates
    if not candidates:
        return [], {"candidates": 0, "kept": [], "dropped": {}, "reason": "cannot be grown"}
    limits = limits_for(state)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        runs = list(pool.map(lambda src: measure(sandbox, src, candidates, limits, "script", state.checker, cache),
                             humans))
    kept, dropped = kept_sizes(state.checker, runs)
    return [g for g in candidates if g.n in kept], {"candidates": len(candidates), "kept": sorted(kept),
                                                    "dropped": dropped}


def fingerprint(sandbox, state: ProblemState, source: str, entry: str = "auto", *,
                inputs: list[GrowthInput] | None = None, cache: JsonlStore | None = None,
                release_dir: Path | None = None) -> Fingerprint | None:
    """The execution fingerprint of ``source`` on ``state``'s validated growth inputs
    (``inputs``; default: grown and validated by up to LABEL_HUMANS accepted human
    solutions of the release at ``release_dir`` or $NEOCODER_RELEASE).  None when the
    problem has no validated size or the program does not run cleanly on them."""
    if inputs is None:
        inputs = default_inputs(sandbox, state, cache=cache, release_dir=release_dir)
    if not inputs:
        return None
    return from_runs(measure(sandbox, source, inputs, limits_for(state), entry, state.checker, cache))


def default_inputs(sandbox, state: ProblemState, cache: JsonlStore | None = None,
                   release_dir: Path | None = None) -> list[GrowthInput]:
    """``validated_inputs`` with the first LABEL_HUMANS human Python solutions of the release."""
    from neocoder.dataset.release import default_release_dir
    release = Path(release_dir) if release_dir else default_release_dir()
    humans = human_python(release, [state.problem_id]).get(state.problem_id, [])[:LABEL_HUMANS]
    return validated_inputs(sandbox, state, humans, cache)[0]


def fingerprints(sandbox, state: ProblemState, sources: list[str], workers: int = 2, cache=None,
                 entry: str = "auto") -> list[Fingerprint | None]:
    """``fingerprint`` of each source (same order), ``workers`` at a time, cached on disk
    (``cache``: a JsonlStore, default ``default_cache()``)."""
    cache = cache if cache is not None else default_cache()
    inputs = default_inputs(sandbox, state, cache=cache)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda src: fingerprint(sandbox, state, src, entry, inputs=inputs, cache=cache),
                             sources))


def human_reference(sandbox, state: ProblemState, humans: list[str], cache: JsonlStore | None = None,
                    workers: int = 2) -> tuple[list[GrowthInput], list[Fingerprint | None], dict]:
    """The grown inputs every accepted human Python solution of ``state``'s problem
    validates (``validated_inputs`` over all of ``humans``) and each human's fingerprint on
    them (None: it did not run cleanly there), so a model's programs are measured on the
    same inputs as the humans, and ``validated_inputs``' report (kept and dropped sizes).
    No inputs and every fingerprint None when the problem cannot be grown or no size is
    kept.  Every run is cached (``cache``, default ``default_cache()``)."""
    cache = cache if cache is not None else default_cache()
    candidates = growth_inputs(state)
    if not candidates or not humans:
        return [], [None] * len(humans), {"candidates": len(candidates), "kept": [], "dropped": {}}
    inputs, report = validated_inputs(sandbox, state, humans, cache, workers=workers, candidates=candidates)
    keep = {g.n for g in inputs}
    limits = limits_for(state)
    prints = [from_runs(measure(sandbox, src, candidates, limits, "script", state.checker, cache), keep)
              if keep else None for src in humans]  # cached by validated_inputs: no sandbox run here
    return inputs, prints, report
