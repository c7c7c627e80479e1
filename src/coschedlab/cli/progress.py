"""Progress on a terminal: one bar for every command, shown at once (a spinner while the
command prepares), with done/total, the time elapsed since the command started and an ETA
from the recent rate (:func:`eta`); nothing when the output is not a terminal (pipes, files,
CI logs)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover (rich.progress is imported when a bar is drawn)
    from rich.console import Console
    from rich.progress import Progress, ProgressColumn

__all__ = [
    "Bar", "eta", "hms", "progress_bar", "report_step", "run_sweep_shown", "text_console",
]  # fmt: skip


def text_console(**options: Any) -> Console:
    """A rich console for the command line (``options``: rich's): emoji codes are never drawn
    (a trace named ``x:fire:.swf`` prints as it is named); markup only where a message writes
    it, names and paths going through ``rich.markup.escape``."""
    from rich.console import Console

    return Console(emoji=False, **options)


#: the fewest done units the rate of :func:`eta` is measured over (then a tenth of the total)
MIN_WINDOW = 5


def eta(
    samples: Sequence[tuple[float, float]], total: float | None, now: float | None = None
) -> float | None:
    """Seconds left, from ``samples`` of ``(time, done)`` (the first: when the work began):
    the recent time per unit (over the last tenth of ``total``, at least :data:`MIN_WINDOW`
    units, else since the start) times the units left, less the time since the last
    sample (``now``). None while nothing is done since the first sample or ``total`` is
    unknown; never negative."""
    if total is None or len(samples) < 2:
        return None
    t_last, d_last = samples[-1]
    t_first, d_first = samples[0]
    if d_last <= d_first:
        return None
    window = max(MIN_WINDOW, total / 10)
    t_from, d_from = t_first, d_first
    for t, d in reversed(samples):  # the latest sample a window's worth of units back
        if d <= d_last - window:
            t_from, d_from = t, d
            break
    per_unit = (t_last - t_from) / (d_last - d_from)
    left = max(total - d_last, 0) * per_unit
    if now is not None:
        left -= max(now - t_last, 0.0)
    return max(left, 0.0)


def hms(seconds: float) -> str:
    """``h:mm:ss``."""
    s = int(max(seconds, 0))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class Bar:
    """A progress bar's state: the label, the total (None: unknown), the ``(time, done)``
    samples; call it as ``bar(done, total)`` (``total`` None keeps the known one), start a
    new phase (another configuration, another mode) with :meth:`phase`. It draws on a
    terminal once :meth:`show` is called with a :class:`rich.progress.Progress`."""

    def __init__(
        self,
        label: str,
        total: int | None,
        unit: str = "",
        started: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label, self.total, self.unit, self.clock = label, total or None, unit, clock
        self.started = clock() if started is None else started
        self.samples: list[tuple[float, float]] = []
        self._progress: Progress | None = None
        self._task: Any = None

    @property
    def done(self) -> int:
        """Units done so far (0 before the first update)."""
        samples = self.samples  # one read: the drawing thread calls this too
        return int(samples[-1][1]) if samples else 0

    def __call__(self, done: int, total: int | None = None) -> None:
        """Record ``done`` units of ``total`` (None or 0: the known total, or unknown); the
        total shown is never below ``done``."""
        if total:
            self.total = total
        if not self.samples or done != self.samples[-1][1]:
            self.samples.append((self.clock(), done))
        if self.total is not None and self.total < done:
            self.total = done
        self._draw()

    def phase(self, label: str, total: int | None) -> None:
        """A new phase: its label and total (None: unknown); the rate starts afresh."""
        self.label, self.total, self.samples = label, total or None, []
        if self._progress is not None:  # a new task: rich keeps a known total on update
            self._progress.remove_task(self._task)
            self._task = self._progress.add_task(label, total=self.total)

    def counts(self) -> str:
        """``done/total unit`` (``?`` for an unknown total)."""
        total = "?" if self.total is None else f"{self.total:,}"
        return f"{self.done:,}/{total}" + (f" {self.unit}" if self.unit else "")

    def remaining(self) -> str:
        """``preparing`` before the first update, then ``ETA h:mm:ss`` once a unit is done
        (``ETA ?`` before)."""
        samples = self.samples  # one read: phase() may replace the list meanwhile
        if not samples:
            return "preparing"
        left = eta(samples, self.total, self.clock())
        return "ETA ?" if left is None else f"ETA {hms(left)}"

    def show(self, progress: Progress) -> None:
        """Draw on ``progress`` (its columns: :func:`bar_columns` of this bar)."""
        self._progress = progress
        self._task = progress.add_task(self.label, total=self.total)

    def _draw(self) -> None:
        if self._progress is not None:
            self._progress.update(
                self._task, description=self.label, total=self.total, completed=self.done
            )


@cache
def _call_column() -> type:
    """The rich column class whose text is ``text()`` (read at every refresh); made on first
    use: a command whose output is not a terminal does not import ``rich.progress``."""
    from rich.progress import ProgressColumn, Task
    from rich.text import Text

    class _Call(ProgressColumn):
        def __init__(self, text: Callable[[], str], style: str = "") -> None:
            super().__init__()
            self.text, self.style = text, style

        def render(self, task: Task) -> Text:
            return Text(self.text(), style=self.style)

    return _Call


def bar_columns(bar: Bar) -> tuple[ProgressColumn, ...]:
    """The columns of every progress bar of the command line: spinner, label, bar,
    done/total, time since the command started, ETA."""
    from rich.progress import BarColumn, SpinnerColumn, TextColumn

    _Call = _call_column()
    return (
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        _Call(bar.counts, "progress.download"),
        _Call(lambda: hms(bar.clock() - bar.started), "progress.elapsed"),
        _Call(bar.remaining, "progress.remaining"),
    )


@contextmanager
def progress_bar(
    console: Console | None, description: str, total: int | None, unit: str = ""
) -> Iterator[Bar]:
    """Yield a :class:`Bar` (call it as ``update(done, total)``); on a terminal it shows at
    once, ``preparing`` until the first update, and disappears when the block ends
    (``console`` None: the caller knows it is not a terminal)."""
    from . import STARTED  # when the command started (the CLI records it first thing)

    bar = Bar(description, total, unit, started=STARTED)
    if console is None or not console.is_terminal:
        yield bar
        return
    from rich.progress import Progress

    with Progress(*bar_columns(bar), console=console, transient=True) as shown:
        bar.show(shown)
        yield bar


def run_sweep_shown(
    err: Console,
    title: str,
    n: int,
    target: object,
    sweep: Callable[..., tuple],
    *,
    say: Console | None = None,
    resume: str = "run the same command again to resume",
    rows: bool = True,
) -> tuple:
    """Run a resumable sweep with the progress bar: ``sweep(on_start=, on_done=)`` returns
    ``(summary, rows)`` (:func:`coschedlab.sweeps.runner.run_tasks`' summary). Prints
    (on ``say``, default ``err``) the runs and what is already stored, and every failed run;
    an interrupted sweep says how to resume (``resume``) and exits 130; with ``rows``, no
    finished run at all is an input error."""
    from rich.markup import escape

    from ..errors import InputError

    say = say or err
    say.print(escape(f"{title}: {n:,} runs -> {target}/"))
    with progress_bar(err, "runs", n, unit="runs") as bar:

        def started(todo: int, total: int) -> None:
            if todo < total:
                say.print(f"{total - todo:,} of {total:,} runs already stored; {todo:,} to do")
            bar(total - todo, total)

        def finished(outcome: object) -> None:
            if outcome.error:  # type: ignore[attr-defined]
                err.print(f"[red]{escape(f'{outcome.key}: {outcome.error}')}[/red]", soft_wrap=True)  # type: ignore[attr-defined]
            bar(bar.done + 1)

        summary, done = sweep(on_start=started, on_done=finished)
    if summary.interrupted:
        err.print(
            f"interrupted: {summary.stored} of {summary.total} runs are stored in {target}/; "
            + resume,
            soft_wrap=True,
        )
        raise SystemExit(130)  # said how to resume: main() adds nothing
    if rows and not done:
        raise InputError("no run finished", str(target))
    return summary, done


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
