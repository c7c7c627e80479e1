"""Convert Qsim's PBS-style output logs to CSV (see README.md).

    python qsim_to_csv.py QSIM_OUT DEST.csv

QSIM_OUT holds ``qsim-Intrepid-run.log`` (system ``bg``) and ``qsim-Eureka-run.log``
(``cluster``). One row per job and event: ``system,job_id,event,time,hold,overhead`` where
event is ``S`` (start), ``E`` (end), ``H`` (took nodes to hold them) or ``U`` (released them);
``hold`` (total hold time) and ``overhead`` (start minus first hold or yield: the paper's sync
time) come from the ``E`` line. Times are UTC seconds.
"""

from __future__ import annotations

import calendar
import sys
import time
from pathlib import Path

LOGS = (("bg", "qsim-Intrepid-run.log"), ("cluster", "qsim-Eureka-run.log"))


def stamp(date: str) -> int:
    """Seconds of a Qsim log date (``%m/%d/%Y %H:%M:%S``, written in UTC)."""
    return calendar.timegm(time.strptime(date, "%m/%d/%Y %H:%M:%S"))


def rows(system: str, text: str) -> list[tuple]:
    """The S/E/H/U events of one log."""
    out = []
    for line in text.splitlines():
        parts = line.split(";", 3)
        if len(parts) < 3 or parts[1] not in ("S", "E", "H", "U"):
            continue
        date, ev, jid = parts[0], parts[1], int(parts[2])
        kv = dict(x.partition("=")[::2] for x in parts[3].split(" ")) if len(parts) > 3 else {}
        if ev == "S":
            t = float(kv["start"])
        elif ev == "E":
            t = float(kv["end"])
        else:
            t = float(stamp(date))
        hold = float(kv.get("hold", 0)) if ev == "E" else 0.0
        overhead = float(kv.get("overhead", 0)) if ev == "E" else 0.0
        out.append((system, jid, ev, t, hold, overhead))
    return out


def main() -> None:
    """Write DEST.csv from the logs in QSIM_OUT."""
    src, dest = Path(sys.argv[1]), Path(sys.argv[2])
    lines = ["system,job_id,event,time,hold,overhead"]
    for system, name in LOGS:
        for r in rows(system, (src / name).read_text()):
            lines.append(f"{r[0]},{r[1]},{r[2]},{r[3]:.0f},{r[4]:.0f},{r[5]:.0f}")
    tmp = dest.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(dest)


if __name__ == "__main__":
    main()
