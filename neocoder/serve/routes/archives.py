"""``/v1/archives``: the caller's archives of scored programs (neocoder/rewards/archive.py),
listed, exported as JSONL and reset.  An archive is the caller's own: another token's
archive of the same name is another archive, and never shows here."""

from __future__ import annotations

import json

from fastapi import APIRouter, Depends
from fastapi import Path as PathParam
from fastapi.responses import Response

from neocoder.rewards.archive import ARCHIVE_NAME
from neocoder.serve.batching import NDJSON
from neocoder.serve.deps import caller, services
from neocoder.serve.judging import NotFound
from neocoder.serve.routes import SECURED
from neocoder.serve.schemas import ArchiveList, ArchiveReset, ArchiveSummary
from neocoder.serve.services import Services

router = APIRouter(tags=["archives"], **SECURED)
EXPORT_DOC = {200: {"description": "The archive's programs in the order they joined, one JSON object per line: "
                                   "archive, seq, problem_id, state, code_sha256, techniques, code, added.",
                    "content": {NDJSON: {}}}}


@router.get("/v1/archives", response_model=ArchiveList)
def list_archives(who: str = Depends(caller), s: Services = Depends(services)):
    """The caller's archives: programs and problems in each, when they were added to."""
    return ArchiveList(archives=[ArchiveSummary(**a) for a in s.store.archives.list(who)])


@router.get("/v1/archives/{name}", response_class=Response, responses=EXPORT_DOC)
def export_archive(name: str = PathParam(pattern=ARCHIVE_NAME), who: str = Depends(caller),
                   s: Services = Depends(services)):
    """Export an archive as JSONL (404 when the caller has no program in an archive of that name)."""
    rows = s.store.archives.export(who, name)
    if not rows:
        raise NotFound("name", f"no archive {name!r}")
    body = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return Response(body, media_type=NDJSON)


@router.delete("/v1/archives/{name}", response_model=ArchiveReset)
def reset_archive(name: str = PathParam(pattern=ARCHIVE_NAME), who: str = Depends(caller),
                  s: Services = Depends(services)):
    """Reset an archive: its programs are deleted, and the next program scored into it is
    novel again (404 when it holds none)."""
    deleted = s.store.archives.reset(who, name)
    if not deleted:
        raise NotFound("name", f"no archive {name!r}")
    return ArchiveReset(name=name, deleted=deleted)
