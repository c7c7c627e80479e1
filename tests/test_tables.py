"""The number format of every table and the fitting of tables at 80 columns."""

from __future__ import annotations

import math

from rich.console import Console

from coschedlab.tables import Col, count, fit_table, number, plain


def test_number_format() -> None:
    assert number(1660.2) == "1,660.2"  # not 1.66e+03
    assert number(0.0046, 2) == "0.00" and number(14, 2) == "14.00"
    assert number(1.52e-15) == "0" and number(-1.52e-15, 3) == "0"  # float noise
    assert number(-0.04, 1) == "0.0"  # no "-0.0"
    assert number(-3.25, 1) == "-3.2" or number(-3.25, 1) == "-3.3"
    assert number(0.869, 1, scale=100) == "86.9"  # utilization in %
    assert number(2207580.4, 0) == "2,207,580"
    assert number(1e12, 0) == "1,000,000,000,000"
    for missing in (None, math.nan, math.inf, "x"):
        assert number(missing) == "-"


def test_count_singular_plural_and_separators() -> None:
    assert count(54044, "job") == "54,044 jobs"
    assert count(1, "socket") == "1 socket" and count(0, "core") == "0 cores"
    assert count(2, "analysis", "analyses") == "2 analyses"


def test_cluster_and_workload_lines() -> None:
    from coschedlab.platform import Cluster

    assert str(Cluster(100, 1, 1)) == "100 nodes x 1 socket x 1 core (100 cores)"
    assert str(Cluster(5576, 2, 12)) == "5,576 nodes x 2 sockets x 12 cores (133,824 cores)"


def test_plain_strips_rst() -> None:
    assert plain("Backfilling with ``reservations``\n  reservations") == (
        "Backfilling with reservations reservations"
    )
    assert plain("see :func:`~coschedlab.metrics.improvement` and :class:`a.B`") == (
        "see improvement and a.B"
    )
    assert plain("the `link`_ and `x`") == "the link and x"


def _render(group: object, width: int = 80) -> str:
    con = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    con.print(group)
    return con.export_text()


def test_a_wide_one_row_table_is_turned_on_its_side() -> None:
    names = [f"metric number {k}" for k in range(12)]
    cols = [Col("scheduler", "left", wrap=True), *(Col(n) for n in names)]
    rows = [["easy", *(number(1000.5 * k) for k in range(12))]]
    text = _render(fit_table("t", cols, rows, 80))
    assert "(1/" not in text  # one table, not parts
    assert all(len(line) <= 80 for line in text.splitlines())
    lines = text.splitlines()
    assert any("easy" in line for line in lines[:4])  # the row's name heads a column
    for k, n in enumerate(names):  # each metric on its own line with its value
        assert any(n in line and number(1000.5 * k) in line for line in lines)


def test_a_wide_table_of_many_rows_is_split_and_keeps_its_names() -> None:
    cols = [Col("scheduler", "left", wrap=True), *(Col(f"metric number {k}") for k in range(12))]
    rows = [[f"s{i}", *(number(i * k) for k in range(12))] for i in range(10)]
    text = _render(fit_table("t", cols, rows, 80))
    assert "t (1/" in text and "t (2/" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    assert text.count("s9 ") >= 2  # the row names repeat in every part


def test_a_table_that_fits_is_unchanged() -> None:
    cols = [Col("scheduler", "left"), Col("util %")]
    text = _render(fit_table("t", cols, [["easy", "69.9"]], 80))
    assert "scheduler" in text and "util %" in text and "69.9" in text
