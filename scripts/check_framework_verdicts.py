"""Check a framework run's recorded verdicts against their stored replies (issue 46).

    python scripts/check_framework_verdicts.py RUN_FOLDER

RUN_FOLDER is a ``neocoder framework`` or ``neocoder framework validate`` run folder.  Every
judge reply kept in its records' transcripts with a reading (the retrieval judge's
confidence, stance and verdict, ChatEval's verdict and probability) is read again by its
grammar (neocoder/benchmarks/framework/grammars.py) from the stored text and finish reason;
then each criterion's verdict is checked against its verdict replies (the retrieval judge's
one reply; ChatEval's majority of its debaters' votes).

A *contradiction* is a recorded value the reply's last marker does not give: the re-read
gives another value, or no marker at all; a reply recorded unreadable for a reason that
does not need the prompt (empty, no marker, refusal, ...) whose re-read gives a value; a
criterion verdict other than its replies say.  The re-read has no prompt, so a reply the
run set aside as an echo of its prompt, or one whose copied prompt lines carried markers,
is only noted.  Prints, per judge and criterion, the verdict replies readable and
unreadable (by reason), and per judge role the same; exits 1 on any contradiction.
"""

from __future__ import annotations

import sys
from pathlib import Path

from neocoder.benchmarks.framework.chateval import majority
from neocoder.benchmarks.framework.grammars import GRAMMARS, as_bool, read
from neocoder.benchmarks.framework.records import FrameworkSolution, JudgedPair
from neocoder.models import Reply
from neocoder.replies import CONFLICT, ECHO, Reading, Tally
from neocoder.store import RunFolder

NEEDS_PROMPT = (ECHO,)  # a reason only the prompt can confirm


def recheck(entry: dict) -> tuple[list[str], list[str]]:
    """(contradictions, notes) of one transcript entry: each of its readings against the
    stored reply read again."""
    bad, notes = [], []
    reply = Reply(text=entry.get("reply") or "", reasoning=entry.get("reasoning"),
                  extra={"finish_reason": entry.get("finish_reason")})
    for name, kept in (entry.get("readings") or {}).items():
        grammar = GRAMMARS.get(name)
        if grammar is None:
            bad.append(f"{name}: no such grammar")
            continue
        again = read(grammar, reply)
        where = f"{name} ({entry.get('criterion')}, {entry.get('analyst')}): recorded "
        if kept["reason"] is None:
            if again.readable and again.value != kept["value"]:
                bad.append(f"{where}{kept['value']!r}, its last marker says {again.value!r}")
            elif not again.readable and again.reason == CONFLICT:
                notes.append(f"{where}{kept['value']!r}; without the prompt its markers conflict")
            elif not again.readable:
                bad.append(f"{where}{kept['value']!r}, but the reply has none ({again.reason})")
        elif again.readable and kept["reason"] not in NEEDS_PROMPT + (CONFLICT,):
            bad.append(f"{where}unreadable ({kept['reason']}), its last marker says {again.value!r}")
        elif again.readable:
            notes.append(f"{where}unreadable ({kept['reason']}), read {again.value!r} without the prompt")
    return bad, notes


def verdict_replies(transcript: list, criterion: str) -> list[dict]:
    """The transcript's verdict-phase entries about ``criterion``."""
    return [t for t in transcript if t.get("phase") == "verdict" and t.get("criterion") == criterion]


def check(folder: Path) -> dict:
    """``{"contradictions", "notes", "criteria": {judge: {criterion: summary}}, "roles": {role:
    summary}, "records"}`` for the run folder ``folder`` (summaries in replies.Tally's form)."""
    run = RunFolder(folder, create=False)
    records = [r for r in run.read() if isinstance(r, (FrameworkSolution, JudgedPair)) and r.error is None]
    bad, notes, roles, criteria = [], [], Tally(), {}
    for rec in records:
        name = getattr(rec, "problem_id", None) or getattr(rec, "pair_id", "?")
        for judge, verdicts in (rec.verdicts or {}).items():
            transcript = (rec.discussion or {}).get(judge) or []
            for entry in transcript:
                for role, kept in (entry.get("readings") or {}).items():
                    roles.add(role, Reading(kept["value"], kept["reason"]))
                got, seen = recheck(entry)
                bad += [f"{name}: {g}" for g in got]
                notes += [f"{name}: {n}" for n in seen]
            for criterion, v in verdicts.items():
                entries = verdict_replies(transcript, criterion)
                grammar = f"{judge} verdict"
                readings = [Reading(e["readings"][grammar]["value"], e["readings"][grammar]["reason"])
                            for e in entries if grammar in (e.get("readings") or {})]
                for reading in readings:
                    criteria.setdefault(judge, Tally()).add(criterion, reading)
                if not readings:
                    bad.append(f"{name}: {judge} {criterion}: no verdict reply with a reading in the transcript")
                    continue
                votes = [as_bool(x) for x in readings]
                said = votes[-1] if judge == "retrieval" else majority(votes)
                if v.get("verdict") is not said:
                    bad.append(f"{name}: {judge} {criterion}: recorded verdict {v.get('verdict')!r}, its replies "
                               f"say {said!r}")
    return {"records": len(records), "contradictions": bad, "notes": notes, "roles": roles.to_dict(),
            "criteria": {j: t.to_dict() for j, t in criteria.items()}}


def _line(summary: dict) -> str:
    why = ", ".join(f"{n} {r}" for r, n in summary["reasons"].items())
    return f"{summary['readable']} readable, {summary['unreadable']} unreadable" + (f" ({why})" if why else "")


def main(argv: list[str]) -> int:
    """Print the check of ``argv[0]``; 1 on a contradiction (or a wrong call), else 0."""
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    got = check(Path(argv[0]))
    print(f"{got['records']} records")
    for judge, by in got["criteria"].items():
        for criterion, summary in by.items():
            print(f"{judge} {criterion}: verdict replies {_line(summary)}")
    for role, summary in got["roles"].items():
        print(f"{role}: {_line(summary)}")
    for n in got["notes"]:
        print(f"note: {n}")
    for b in got["contradictions"]:
        print(f"CONTRADICTION: {b}")
    print(f"{len(got['contradictions'])} contradictions")
    return 1 if got["contradictions"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
