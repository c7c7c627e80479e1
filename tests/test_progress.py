"""The command line's progress bar: the ETA from (time, done) samples, the total never below
done, the label following the phase, shown at once on a terminal."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from coschedlab.cli.progress import Bar, eta, hms, progress_bar


def test_no_eta_before_one_unit_is_done() -> None:
    assert eta([], 10) is None
    assert eta([(0.0, 0)], 10) is None
    assert eta([(0.0, 3), (50.0, 3)], 10, now=60.0) is None  # resumed at 3, none since
    assert eta([(0.0, 0), (5.0, 1)], None) is None  # unknown total


def test_eta_from_the_items_done() -> None:
    # 2 of 10 in 60 s: 30 s each, 8 left; 10 s since the last one
    assert eta([(0.0, 0), (60.0, 2)], 10, now=70.0) == pytest.approx(8 * 30 - 10)
    # the setup before the first sample does not count; stored runs do not count as done fast
    assert eta([(100.0, 4), (160.0, 5)], 10, now=160.0) == pytest.approx(5 * 60)


def test_eta_is_stable_between_completions_and_counts_down() -> None:
    samples = [(0.0, 0), (60.0, 1), (60.5, 2), (120.0, 3), (120.5, 4)]  # 2 workers, 60 s runs
    seen = [eta(samples, 20, now=t) for t in (120.5, 130.0, 150.0, 170.0)]
    assert all(e is not None for e in seen)
    assert seen == sorted(seen, reverse=True)  # never up between completions
    assert seen[0] == pytest.approx(16 * 120.5 / 4)


def test_eta_follows_the_recent_rate() -> None:
    # 1000 units at 1 s each, then 10 s each: the ETA uses the recent rate, not the mean
    samples = [(float(t), t) for t in range(0, 1001, 50)]
    samples += [(1000.0 + 10 * k, 1000 + k) for k in range(50, 1001, 50)]
    left = 4000 - samples[-1][1]
    assert eta(samples, 4000) == pytest.approx(left * 10)


def test_eta_is_never_negative() -> None:
    assert eta([(0.0, 0), (1.0, 1)], 2, now=100.0) == 0.0
    assert eta([(0.0, 0), (1.0, 5)], 5) == 0.0


def test_total_is_never_below_done_and_unknown_is_shown_as_such() -> None:
    clock = iter(range(100)).__next__
    bar = Bar("runs", None, "runs", started=0.0, clock=lambda: float(clock()))
    bar(3)
    assert bar.total is None and bar.counts() == "3/? runs"
    bar(8, 5)
    assert bar.total == 8 and bar.counts() == "8/8 runs"
    bar(9)
    assert bar.total == 9
    bar(9, 2000)
    assert bar.counts() == "9/2,000 runs"


def test_label_follows_the_phase_and_rate_restarts() -> None:
    t = [0.0]
    bar = Bar("", None, "runs", started=0.0, clock=lambda: t[0])
    bar.phase("configuration O", 25)
    assert bar.remaining() == "preparing"
    for k in range(1, 6):
        t[0] = 10.0 * k
        bar(k)
    assert bar.label == "configuration O" and bar.remaining().startswith("ETA 0:03:")
    bar.phase("configuration E", None)
    assert bar.label == "configuration E" and bar.total is None and bar.done == 0
    bar(1)
    assert bar.remaining() == "ETA ?"


def _shown(buf: io.StringIO) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buf.getvalue()).replace("\r", "\n")


def test_bar_shows_at_once_with_the_label_of_the_running_phase() -> None:
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=True, width=100)
    with progress_bar(con, "configuration O", 25, "runs") as bar:
        bar.phase("configuration E", 25)
        bar(2)
        con.print("a line")  # printed above the live bar
    text = _shown(buf)
    assert "configuration E" in text and "2/25 runs" in text
    assert "a line" in text


def test_bar_shows_preparing_before_the_first_update() -> None:
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=True, width=100)
    with progress_bar(con, "runs", 127, "runs"):
        pass
    assert "0/127 runs" in _shown(buf) and "preparing" in _shown(buf)


def test_no_bar_off_a_terminal() -> None:
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=False)
    with progress_bar(con, "runs", 3, "runs") as bar:
        bar(1)
    assert buf.getvalue() == "" and bar.done == 1


def test_hms() -> None:
    assert hms(0) == "0:00:00" and hms(3725.9) == "1:02:05" and hms(-3) == "0:00:00"
