"""How far a sweep is, for a watcher such as the dashboard: the sweep's counts in a file,
written atomically as runs finish (:class:`SweepReport`), read back with an ETA
(:func:`sweep_progress`)."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .tasks import Summary

__all__ = ["PROGRESS_DIR", "SWEEP_FILE", "SweepReport", "progress_file", "put", "sweep_progress"]

#: a directory (an environment variable naming it) where a sweep reports how far it is, for
#: a watcher such as the dashboard: :data:`SWEEP_FILE` there holds the sweep's counts, and the
#: runs of a comparison add one file each with their jobs done
PROGRESS_DIR = "COSCHEDLAB_PROGRESS_DIR"
#: the sweep's counts in :data:`PROGRESS_DIR`: ``{"total", "stored", "done", "failed",
#: "started", "updated", "interrupted"}`` (runs; ``stored``: found stored when it started;
#: ``done``: finished since, failed ones included; times: seconds since the epoch)
SWEEP_FILE = "sweep.json"


def progress_file(name: str) -> str | None:
    """The file ``name`` in :data:`PROGRESS_DIR` when it names a directory here, else None."""
    folder = os.environ.get(PROGRESS_DIR)
    return os.path.join(folder, name) if folder and os.path.isdir(folder) else None


def put(path: str, doc: dict[str, Any]) -> None:
    """``doc`` into ``path`` (JSON, atomically); a failure is passed over: progress is a
    courtesy, never a reason to fail a run or a sweep."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w") as f:
            json.dump(doc, f)
        os.replace(tmp, path)
    except OSError:
        pass


@dataclass
class SweepReport:
    """Writes a sweep's counts to :data:`SWEEP_FILE` in :data:`PROGRESS_DIR` (atomically)."""

    path: str
    summary: Summary
    started: float = field(default_factory=time.time)

    @classmethod
    def here(cls, summary: Summary) -> SweepReport | None:
        """The report of ``summary`` when :data:`PROGRESS_DIR` names a directory, else None."""
        path = progress_file(SWEEP_FILE)
        if path is None:
            return None
        report = cls(path, summary)
        report.write()
        return report

    def write(self, final: bool = False) -> None:

        s = self.summary
        doc = {
            "total": s.total, "stored": len(s.skipped), "done": len(s.executed),
            "failed": len(s.failed), "started": self.started, "updated": time.time(),
            "interrupted": s.interrupted, "finished": final,
        }  # fmt: skip
        put(self.path, doc)


def sweep_progress(folder: str | Path) -> dict[str, Any] | None:
    """The counts a sweep reports in ``folder`` (:data:`SWEEP_FILE`), with ``eta`` (seconds
    left, estimated from the runs finished so far; None before the first) and ``elapsed``;
    None when there is no readable report."""

    try:
        doc = json.loads((Path(folder) / SWEEP_FILE).read_text())
        total, stored, done = int(doc["total"]), int(doc["stored"]), int(doc["done"])
        started, updated = float(doc["started"]), float(doc["updated"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = updated if doc.get("finished") else time.time()
    doc["elapsed"] = max(now - started, 0.0)
    left = max(total - stored - done, 0)
    doc["eta"] = doc["elapsed"] / done * left if done else None
    return doc
