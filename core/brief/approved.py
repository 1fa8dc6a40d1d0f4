"""Approved briefs: the handoff from a person's curation in the composer to the next agent session.

Each brief a person approves in the composer (`w` writes it to a file; `sessionscope brief` prints
it on closing) is also kept here, in sessionscope's own data folder (`core.config.data_dir()`,
`$SESSIONSCOPE_DATA_DIR` to move it), one folder per project, one JSON file per brief:

    <data dir>/briefs/<project name>-<hash of its path>/<YYYYmmddTHHMMSSffffff>Z.json
    {"schema": 1, "project", "approved_at", "task", "text", "tokens", "scope",
     "findings": [{"id", "type", "label", "text", "edited", "evidence", "attribution", "date", "source"}]}

The MCP tool `approved_brief` reads the newest one of a project (`latest`). Never written into an
agent's folders or the repository. Every string is masked before it is written (the brief's text
already is; an edited finding may not be). Written atomically (a temp file in the same folder,
fsync, rename): a reader never sees half a brief.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from ..config import data_dir
from ..model import iso
from ..secrets import emails_in, mask_data
from .compose import BriefResult, Finding, Rendered
from .retrieval import project_root

SCHEMA = 1
_NAME = re.compile(r"^\d{8}T\d{12}Z\.json$")


def project_key(project: str | None) -> str:
    """The project's root (its git repository, as the composer and `context` scope it)."""
    return project_root(project)[0]


def briefs_dir(project: str | None, base: Path | None = None) -> Path:
    root = project_key(project)
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", os.path.basename(root.rstrip("/")) or "root").strip("-")[:40] or "root"
    digest = hashlib.sha256(root.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return (base or data_dir()) / "briefs" / f"{name}-{digest}"


def record(result: BriefResult, rendered: Rendered, approved: Sequence[Finding], *, project: str,
           now: datetime | None = None) -> dict[str, Any]:
    """The stored form of a brief: its text and the approved findings it includes, masked."""
    by_id = {f.id: f for f in approved}
    included = [by_id[i] for i in rendered.included if i in by_id]
    when = now or datetime.now(timezone.utc)
    data = {
        "schema": SCHEMA,
        "project": project,
        "approved_at": iso(when),
        "task": result.task.text,
        "text": rendered.text,
        "tokens": rendered.tokens,
        "scope": result.scope.line(),
        "findings": [{"id": f.id, "type": f.type, "label": f.label, "text": f.text, "edited": f.edited,
                      "evidence": f.evidence, "attribution": f.attribution, "date": iso(f.date),
                      "source": f.source.ref} for f in included],
    }
    return mask_data(data, keep_emails=emails_in(result.task.text))


def save(result: BriefResult, rendered: Rendered, approved: Sequence[Finding], *,
         now: datetime | None = None, base: Path | None = None) -> Path | None:
    """Keep the brief for the project it was composed for; its path, or None when it holds no
    approved finding (nothing to hand over). OSError when the data folder cannot be written."""
    if not rendered.included:
        return None
    project = result.scope.project or project_key(None)
    when = now or datetime.now(timezone.utc)
    folder = briefs_dir(project, base)
    folder.mkdir(parents=True, exist_ok=True)
    data = record(result, rendered, approved, project=project_key(project), now=when)
    target = folder / f"{when.astimezone(timezone.utc):%Y%m%dT%H%M%S%f}Z.json"
    fd, tmp = tempfile.mkstemp(prefix=".brief-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return target


@dataclass
class Latest:
    project: str  # the project root looked up
    brief: dict[str, Any] | None
    path: str | None = None
    warnings: list[str] = field(default_factory=list)


def latest(project: str | None, base: Path | None = None) -> Latest:
    """The newest approved brief of the project (None when there is none); a file that cannot be
    read or is not a brief is skipped with a warning and the next newest tried."""
    root = project_key(project)
    folder = briefs_dir(project, base)
    out = Latest(root, None)
    try:
        names = sorted((n for n in os.listdir(folder) if _NAME.match(n)), reverse=True)
    except FileNotFoundError:
        return out
    except OSError as exc:
        out.warnings.append(f"cannot read {folder}: {exc.strerror or exc}")
        return out
    for name in names:
        path = folder / name
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            out.warnings.append(f"skipped {path}: {getattr(exc, 'strerror', None) or exc}")
            continue
        if not isinstance(data, dict) or not isinstance(data.get("text"), str) or data.get("project") != root:
            out.warnings.append(f"skipped {path}: not an approved brief of {root}")
            continue
        out.brief, out.path = data, str(path)
        return out
    return out
