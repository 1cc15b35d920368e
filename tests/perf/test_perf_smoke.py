"""Every speed script of perf/ runs in its small mode (``--smoke``) as a subprocess, on the
real release, Docker engine, Ray and embedder, and prints its table: each test reads the
figures it printed and checks what they must say (every program answered, verdicts equal
between the ways, counts that follow from the smoke sizes), never how fast anything was.
A script that breaks (an import, a changed signature, a stand-in sandbox that no longer
fits the Sandbox protocol) fails here instead of when someone next wants its figures."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PERF = ROOT / "perf"


def smoke(script: str, release_dir: Path, *extra: str, timeout: float = 900) -> str:
    """Run ``perf/<script> --smoke`` from the checkout; its stdout (the test fails with
    both streams when it exits non-zero)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEOCODER_RELEASE": str(release_dir)}
    proc = subprocess.run([sys.executable, str(PERF / script), "--smoke", *extra], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{script} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr[-4000:]}"
    return proc.stdout


def row(text: str, label: str) -> list[str]:
    """The fields after ``label`` on the line of ``text`` that starts with it."""
    lines = [line for line in text.splitlines() if line.startswith(label)]
    assert lines, f"no line starting with {label!r} in:\n{text}"
    return lines[0][len(label):].split()


def test_every_perf_script_has_a_smoke_test():
    tested = set(re.findall(r'smoke\("(\w+\.py)"', Path(__file__).read_text()))
    scripts = {p.name for p in PERF.glob("*.py") if "--smoke" in p.read_text() and "__main__" in p.read_text()}
    helpers = {p.name for p in PERF.glob("*.py")} - scripts
    assert helpers == {"mix_callers.py"}, f"a perf/ script without --smoke: {helpers}"
    assert scripts == tested, f"scripts without a smoke test: {scripts - tested}"


def test_detect_speed(release_dir):
    out = smoke("detect_speed.py", release_dir)
    assert re.search(r"^200 human solutions \(", out, re.M), out
    supported = int(re.search(r"; (\d+) in a supported language", out).group(1))
    assert 0 < supported <= 200
    for way in ("tree-sitter parse only", "detect (neocoder)"):
        seconds, rate = map(float, row(out, way)[-2:])
        assert seconds > 0 and rate > 0
    assert float(re.search(r"ratio detect / parse: ([\d.]+)", out).group(1)) > 0


@pytest.mark.slow
def test_aidanbench_novelty(release_dir):
    out = smoke("aidanbench_novelty.py", release_dir)
    for n in (5, 20):
        fields = row(out, f"{n:>6} ")
        assert int(fields[0]) == n and int(fields[2]) == n * (n + 1) // 2  # each answer once, against n(n+1)/2
    assert "(est.)" in " ".join(row(out, f"{20:>6} ")) and "(est.)" not in " ".join(row(out, f"{5:>6} "))


@pytest.mark.docker
def test_cpp_compile(release_dir):
    out = json.loads(smoke("cpp_compile.py", release_dir))
    assert out["all"]["programs"] == 3
    assert out["include_bits_stdcpp"]["programs"] + out["other"]["programs"] == 3
    assert out["all"]["with_pch_mean_s"] > 0 and out["all"]["without_mean_s"] > 0
    assert out["compiled_alike"] == 1.0  # the header changes the time, never whether a program compiles


@pytest.mark.docker
def test_cpp_rewards(release_dir):
    out = smoke("cpp_rewards.py", release_dir)
    assert re.search(r"^batch of 4 Python / 4 C\+\+ programs, 2 sandbox workers", out, re.M), out
    python, cpp = map(float, re.search(r"rewards per second: Python ([\d.]+), C\+\+ ([\d.]+)", out).groups())
    assert python > 0 and cpp > 0
    assert re.search(r"^bare on this machine \([12] programs", out, re.M), out


@pytest.mark.docker
def test_verdicts_under_load(release_dir):
    out = smoke("verdicts_under_load.py", release_dir)
    assert re.search(r"^3 programs, \d+ tests; idle [\d.]+s, under 2 busy processes", out, re.M), out
    assert "verdicts that differ: 0" in out


@pytest.mark.docker
def test_sandbox_throughput(release_dir):
    out = smoke("sandbox_throughput.py", release_dir)
    assert "all programs: 4 programs" in out
    for way in ("bare subprocess", "sandbox, fork server", "sandbox, exec (old)", "docker run per test"):
        tests, seconds = int(row(out, way)[0]), float(row(out, way)[1])
        assert tests > 0 and seconds > 0
    assert int(row(out, "docker run per test")[0]) == 2  # --docker-tests 2, one round
    assert re.search(r"fork vs exec: 0 programs with a different verdict list", out), out


@pytest.mark.docker
def test_serve_load(release_dir):
    out = smoke("serve_load.py", release_dir)
    for way in ("in-process", "server"):
        assert int(row(out, f"{way:<12}")[0]) > 0
    assert "requests lost or failed: none" in out
    assert "verdicts, techniques and scores identical to in-process: yes, all 4 programs" in out


@pytest.mark.docker
def test_reward_throughput(release_dir):
    out = smoke("reward_throughput.py", release_dir)
    for batch in (1, 4):
        fields = row(out, f"{2:>8}{batch:>7}")
        assert float(fields[0]) > 0 and float(fields[1]) > 0
    assert "rewards identical, server and in-process: yes" in out
    assert "items with an error: 0; open-loop requests lost or failed: none" in out
    assert "speed targets not checked (--smoke)" in out


@pytest.mark.docker
def test_max_connections(release_dir):
    out = smoke("max_connections.py", release_dir)
    runs = re.findall(r"^(N=\S+(?:, 429)?)\s+[\d.]+ s  containers at once (\d+) .* "
                      r"samples (\d+) \(lost or failed (\d+)\)", out, re.M)
    assert [r[0] for r in runs] == ["N=1", "N=4", "N=4, 429"], out
    assert all(int(most) <= 2 and int(samples) == 6 and int(lost) == 0 for _, most, samples, lost in runs), runs
    assert out.count("metrics equal N=1: True") == 2, out


@pytest.mark.docker
def test_hostile_mix(release_dir):
    out = smoke("hostile_mix.py", release_dir)
    for caller in ("trainers", "print(1)", "eval"):
        for phase in ("alone", "mix"):
            results, calls, rate, _, _, lost, dup, unanswered, _ = row(out, f"{caller:<10}{phase:<7}")
            assert int(results) > 0 and float(rate) > 0 and (lost, dup, unanswered) == ("0", "0", "0"), caller
    kinds = ("oversized body", "wrong token", "abandoned sleeper", "abandoned batch", "huge output")
    hostile = dict(re.findall(rf"({'|'.join(kinds)}) (\{{[^}}]*\}})", out))
    outcomes = {kind: ast.literal_eval(counts) for kind, counts in hostile.items()}
    assert set(outcomes) == set(kinds), out
    assert "200" not in outcomes["wrong token"] and "200" not in outcomes["oversized body"]
    assert outcomes["oversized body"].get("413", 0) >= 1
    assert outcomes["abandoned sleeper"].get("left", 0) >= 1 and outcomes["abandoned batch"].get("left", 0) >= 1
    assert "its containers left: 0" in out and "results lost, duplicated or unanswered: none" in out
    assert re.search(r"server memory peak \(RSS of its process tree\): warm-up \d+ MiB, alone \d+ MiB, mix \d+ MiB",
                     out), out


@pytest.mark.docker
@pytest.mark.slow
def test_executor_overhead(release_dir):
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'neocoder[ray]')")
    out = smoke("executor_overhead.py", release_dir)
    for way in ("local", "ray, 1 node", "ray, 2 nodes"):  # the table's rows (not "local Ray cluster ...")
        assert row(out, f"{way:14} ")[-1] == "0", f"{way}: verdicts differing\n{out}"
    assert "scale mode (no judging): 2 InstantPool actors of 2 slots on 2 local nodes" in out
    assert re.search(r"1 rounds of 400 jobs by 8 callers; .*; 0 retried, 0 INFRA", out), out
    hours = [float(row(out, f"{n:6d} ")[0]) for n in (1, 4, 16, 64, 256)]
    assert hours == sorted(hours, reverse=True) and hours[0] > hours[-1]  # more nodes, fewer hours (2 decimals)


@pytest.mark.docker
@pytest.mark.slow
def test_ray_call_cost(release_dir):
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'neocoder[ray]')")
    out = smoke("ray_call_cost.py", release_dir)
    assert re.search(r"^\d+ programs x 1 rounds, 4 callers", out, re.M), out
    for way in ("local", "in-process", "ray"):
        assert float(row(out, f"{way:12} ")[0]) > 0
    assert float(row(out, f"{'local':12} ")[1]) == 1.0
    assert "our batching code:" in out


@pytest.mark.docker
def test_shared_engine(release_dir):
    out = smoke("shared_engine.py", release_dir)
    fields = row(out, "    0")  # round 0: processes, evals, seconds, failures, wrong verdicts, containers left
    assert fields[0] == "4" and int(fields[1]) >= 1 and fields[3:] == ["0", "0", "0"], out
