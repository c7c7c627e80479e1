"""Progress on a terminal: a bar with done/total, elapsed time and ETA; nothing when the output
is not a terminal (pipes, files, CI logs)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

__all__ = [
    "bar_columns", "progress_bar", "report_step", "run_spec_sweep", "run_sweep_shown", "status",
]  # fmt: skip

#: the bar appears only once a task has run this long (short commands print no bar)
SHOW_AFTER_S = 1.0


def bar_columns(unit: str = "") -> tuple:
    """The columns of every progress bar of the command line: description, bar, done/total,
    elapsed, ETA."""
    return (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )


@contextmanager
def progress_bar(
    console: Console, description: str, total: int, unit: str = ""
) -> Iterator[Callable[[int, int], None]]:
    """Yield ``update(done, total)``; the bar shows on a terminal from the first update after
    :data:`SHOW_AFTER_S` seconds, and disappears when the block ends."""
    t0 = time.monotonic()
    state: dict[str, object] = {}

    def update(done: int, total_now: int) -> None:
        if not console.is_terminal:
            return
        bar = state.get("bar")
        if bar is None:
            if time.monotonic() - t0 < SHOW_AFTER_S:
                return
            bar = Progress(*bar_columns(unit), console=console, transient=True)
            bar.start()
            state["bar"] = bar
            state["task"] = bar.add_task(description, total=total_now)
        bar.update(state["task"], completed=done, total=total_now)  # type: ignore[union-attr]

    try:
        yield update
    finally:
        bar = state.get("bar")
        if bar is not None:
            bar.stop()  # type: ignore[union-attr]


@contextmanager
def status(console: Console, text: str) -> Iterator[None]:
    """A spinner with ``text`` on a terminal while the block runs (nothing otherwise)."""
    if not console.is_terminal:
        yield
        return
    with console.status(text):
        yield


def run_sweep_shown(
    err: Console, title: str, n: int, target: object, sweep: Callable[..., tuple]
) -> tuple:
    """Run a resumable sweep with the progress bar: ``sweep(on_start=, on_done=)`` returns
    ``(summary, rows)`` (:func:`coschedlab.experiments.runner.run_tasks`' summary). Prints
    what is already stored and every failed run; an interrupted sweep says how to resume and
    exits 130; no finished run at all is an input error."""
    from ..errors import InputError

    err.print(f"{title}: {n} runs -> {target}/")
    with progress_bar(err, "runs", n, unit="runs") as update:
        state = {"done": 0, "total": n}

        def started(todo: int, total: int) -> None:
            state["done"], state["total"] = total - todo, total
            if todo < total:
                err.print(f"{total - todo} of {total} runs already stored; {todo} to do")
            update(state["done"], total)

        def finished(outcome: object) -> None:
            state["done"] += 1
            if outcome.error:  # type: ignore[attr-defined]
                err.print(f"[red]{outcome.key}: {outcome.error}[/red]", soft_wrap=True)  # type: ignore[attr-defined]
            update(state["done"], state["total"])

        summary, rows = sweep(on_start=started, on_done=finished)
    if summary.interrupted:
        err.print(
            f"interrupted: {summary.stored} of {summary.total} runs stored in {target}/; "
            f"run the same command again to resume",
            soft_wrap=True,
        )
        raise SystemExit(130)
    if not rows:
        raise InputError("no run finished", str(target))
    return summary, rows


@contextmanager
def report_step(err: Console, target: object) -> Iterator[None]:
    """Writing a sweep's report (summary and figures): Ctrl-C says the runs are safe and how
    to finish the report, and exits 130."""
    try:
        yield
    except KeyboardInterrupt:
        err.print(
            f"interrupted while writing the report in {target}/ (it may be incomplete); every "
            "run is stored: run the same command again to finish it",
            soft_wrap=True,
        )
        raise SystemExit(130) from None


def run_spec_sweep(
    spec: object,
    out: object,
    jobs: int | None,
    executor: str | None,
    load: Callable[[object], object],
    check_output: Callable[[object, object], None],
    run_sweep: Callable[..., tuple],
    write_report: Callable[[object, object, list], list],
) -> None:
    """A resumable spec sweep command (``workflows compare``, ``coupled compare``): read the
    spec (a file or ``coschedlab:NAME``) with ``load``, check ``--out`` (default: the spec's
    ``output``), run the sweep (``run_sweep``) with the progress bar, write the report with
    ``write_report(spec, target, rows)`` and say what was written; failed runs exit 2."""
    from pathlib import Path

    from rich.console import Console

    from ..bundled import bundled, is_bundled
    from ..errors import InputError
    from ..experiments.executors import parse_executor

    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {jobs}")
    where = parse_executor(executor) if executor is not None else None
    s: Any = load(bundled(str(spec)) if is_bundled(str(spec)) else spec)
    target = Path(out if out is not None else s.output)  # type: ignore[arg-type]
    check_output(target, s)
    err = Console(stderr=True)

    def info(text: str) -> None:
        err.print(text, soft_wrap=True)

    summary, rows = run_sweep_shown(
        err, s.name, len(s.configs()), target,
        lambda **cb: run_sweep(s, target, jobs=jobs, executor=where, on_info=info, **cb),
    )  # fmt: skip
    with report_step(err, target):
        written = write_report(s, target, rows)
    err.print("wrote " + ", ".join(str(p) for p in written), soft_wrap=True)
    if summary.failed:
        raise InputError(f"{len(summary.failed)} runs failed (see {target}/runs/*.error.txt)")
