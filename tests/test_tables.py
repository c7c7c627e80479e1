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


def _comparison(workloads: list[str], scheds: tuple = ("fcfs", "easy", "cons")) -> tuple:
    """A comparison's table: the workload named on its first row only (a section)."""
    cols = [Col("workload", "left", wrap=True), Col("scheduler", "left", wrap=True),
            *(Col(f"metric {k} h") for k in range(7))]  # fmt: skip
    rows = [[w if i == 0 else "", s, *(number(1000.5 * k + i) for k in range(7))]
            for w in workloads for i, s in enumerate(scheds)]  # fmt: skip
    return cols, rows


def test_a_table_on_its_side_names_the_workload_of_every_column() -> None:
    """On its side, the workload headed only the first column ("kth fcfs", "easy", "cons"):
    one workload is named once, over the metric names; several, over each of their columns."""
    cols, rows = _comparison(["kth"])
    lines = _render(fit_table("t", cols, rows, 80, keep=2)).splitlines()
    assert all(len(line) <= 80 for line in lines)
    head = next(line for line in lines if "fcfs" in line)
    assert head.split("┃")[1].strip() == "kth"  # once, over the metric names
    assert [c.strip() for c in head.split("┃")[2:-1]] == ["fcfs", "easy", "cons"]
    cols, rows = _comparison(["kth", "sdsc"], ("fcfs", "easy"))
    lines = _render(fit_table("t", cols, rows, 80, keep=2)).splitlines()
    assert all(len(line) <= 80 for line in lines)
    heads = " ".join(line for line in lines if "┃" in line)
    for w in ("kth", "sdsc"):
        for s in ("fcfs", "easy"):
            assert f"{w} {s}" in heads, heads  # each column names its workload


def test_at_20_columns_every_value_keeps_its_row_name() -> None:
    """A comparison at COLUMNS=20: no part fits beside its two name columns, which rich then
    squeezed to nothing (values with no workload or scheduler); plain lines instead."""
    cols = [Col("workload", "left", wrap=True), Col("scheduler", "left", wrap=True),
            Col("makespan h"), Col("vs fcfs %"), Col("turnaround h")]  # fmt: skip
    rows = [["t", "fcfs", "1.12", "", "0.56"], ["", "easy", "0.97", "13.41", "0.41"]]
    lines = _render(fit_table("tiny", cols, rows, 20, keep=2), 20).splitlines()
    assert [line.rstrip() for line in lines] == [
        "tiny", "t fcfs", "  makespan h: 1.12", "  turnaround h: 0.56",
        "t easy", "  makespan h: 0.97", "  vs fcfs %: 13.41", "  turnaround h: 0.41",
    ]  # fmt: skip
    assert "┃" in _render(fit_table("tiny", cols, rows, 40, keep=2), 40)  # wider: a table


def test_a_table_that_fits_is_unchanged() -> None:
    cols = [Col("scheduler", "left"), Col("util %")]
    text = _render(fit_table("t", cols, [["easy", "69.9"]], 80))
    assert "scheduler" in text and "util %" in text and "69.9" in text


def _result(**metrics: float) -> object:
    from types import SimpleNamespace

    base = dict(makespan=7200.0, utilization=0.5, wait_mean=60.0, wait_p95=120.0,
                bounded_slowdown_mean=1.5, bounded_slowdown_p95=3.0, speedup_mean=1.1,
                slower_than_compact=0.1, spread_share=0.2)  # fmt: skip
    return SimpleNamespace(metrics={**base, **metrics}, jobs=None, wall_time=0.5)


def test_no_gain_column_without_a_baseline(monkeypatch) -> None:
    import coschedlab.metrics
    from coschedlab.cli.batch import metrics_rows

    def metrics_table(results: dict, title: str, width: int) -> object:
        return fit_table(title, *metrics_rows(results), width)

    one = _render(metrics_table({"policy.py": _result()}, "t", 200), 200)
    assert "gain" not in one and "policy.py" in one
    monkeypatch.setattr(
        coschedlab.metrics, "improvement", lambda a, b: {"makespan_improvement": 12.5}
    )
    two = _render(metrics_table({"easy": _result(), "policy.py": _result()}, "t", 200), 200)
    header = next(line for line in two.splitlines() if "scheduler" in line)
    assert "gain %" in header
    easy = next(line for line in two.splitlines() if "easy" in line)
    mine = next(line for line in two.splitlines() if "policy.py" in line)
    assert easy.rstrip(" │").endswith("-") or "│ - │" in easy.replace("  ", " ")
    assert "12.5" in mine and "12.5" not in easy


def test_schedulers_at_80_columns() -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": "80"}
    args = [sys.executable, "-m", "coschedlab.cli", "schedulers"]
    p = subprocess.run(args, text=True, capture_output=True, env=env, timeout=120)
    assert p.returncode == 0
    assert all(len(line) <= 80 for line in p.stdout.splitlines())
    assert "…" not in p.stdout and "``" not in p.stdout and ":func:" not in p.stdout
    assert "priority_weight_age=50000000.0" in p.stdout  # a long value whole, not cut


def test_no_option_name_is_cut_in_help_at_80_columns(monkeypatch) -> None:
    import click
    import typer
    from typer.testing import CliRunner

    from coschedlab.cli.main import app

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("TERMINAL_WIDTH", "80")
    root = typer.main.get_command(app)
    paths: list[list[str]] = [[]]
    for name, cmd in root.commands.items():  # type: ignore[attr-defined]
        paths.append([name])
        if isinstance(cmd, click.Group):
            paths += [[name, sub] for sub in cmd.commands]
    runner = CliRunner()
    for path in paths:
        r = runner.invoke(app, [*path, "--help"], terminal_width=80)
        assert r.exit_code == 0, path
        assert "…" not in r.output, (path, [x for x in r.output.splitlines() if "…" in x])
        assert all(len(x) <= 80 for x in r.output.splitlines()), path


def test_names_and_cells_are_printed_as_written() -> None:
    """A trace, scheduler or workload name is text: rich markup and emoji codes in it are
    printed as they are (a trace named ``a[bold]x:fire:.swf.gz`` printed as ``ax🔥.swf.gz``)."""
    name = "[b]:fire:"
    text = _render(fit_table(name, [Col("", "left"), Col("[red]s")], [["[i]w", ":fire:"]], 80))
    for literal in (name, "[red]s", "[i]w", ":fire:"):
        assert literal in text
    assert "🔥" not in text


def test_simulate_prints_a_trace_name_as_written(tmp_path) -> None:
    import gzip
    import shutil

    from _cli import cli_here

    swf = tmp_path / "a[bold]x:fire:.swf"
    lines = [f"{i} {i * 10} 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1" for i in range(1, 6)]
    swf.write_text("; MaxNodes: 4\n" + "\n".join(lines) + "\n")
    with open(swf, "rb") as f, gzip.open(str(swf) + ".gz", "wb") as g:
        shutil.copyfileobj(f, g)
    out = cli_here("simulate", swf.name, "-s", "easy", "--out", "o[red]", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count(swf.name) == 2  # the summary line and the table's title
    assert "outputs in o[red]/" in out.stdout
    assert "🔥" not in out.stdout
