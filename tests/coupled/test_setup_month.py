"""``--system FILE:month=M`` takes the month of the trace's own year (it used to look in 2022,
theta's year, and found no job in any other year's trace)."""

from __future__ import annotations

import calendar

from coschedlab.coupled.setup import build_systems


def test_month_of_an_epoch_trace_is_taken_in_its_own_year(tmp_path):
    t0 = calendar.timegm((2019, 3, 2, 0, 0, 0))
    jobs = [(i, t0 + 600 * i) for i in range(1, 6)] + [(6, calendar.timegm((2019, 4, 2, 0, 0, 0)))]
    swf = tmp_path / "epoch2019.swf"
    swf.write_text(
        "; MaxNodes: 4\n; MaxProcs: 4\n"
        + "".join(f"{i} {t} -1 50 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n" for i, t in jobs)
    )
    systems, _ = build_systems([f"{swf}:month=3", f"{swf}:month=4,name=b"], [], 0)
    march, april = (s.workload.columns for s in systems)
    month_start = calendar.timegm((2019, 3, 1, 0, 0, 0))
    assert list(march["id"]) == [1, 2, 3, 4, 5] and list(april["id"]) == [6]
    assert list(march["submit"]) == [t - month_start for _, t in jobs[:5]]
