"""The sweep commands generated from the capability registry: ``coschedlab NAME compare SPEC``
for every registered capability (:mod:`coschedlab.sweeps.capability`) whose command is
generated: read the spec, check ``--out``, run (or resume) the sweep with the progress bar,
write its report and print its table.

(No ``from __future__ import annotations``: a command's annotations name its capability and
are evaluated when the command is made.)
"""

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from .options import ExecutorOpt, JobsOpt, SweepOutOpt, executor_of

__all__ = [
    "add_sweep_commands", "compare_command", "print_table", "run_capability", "run_shown",
]  # fmt: skip


def print_table(
    title: str, columns: list[str], rows: list[list[str]], caption: str | None = None
) -> None:
    """A table on stdout at 80 columns: text columns to the left, numbers right."""
    from rich.table import Table

    from .progress import text_console

    def numeric(cell: str) -> bool:
        text = cell.strip().rstrip("%").replace(",", "").lstrip("+-")
        return text.replace(".", "", 1).isdigit() or text in ("", "nan", "inf")

    t = Table(title=title, caption=caption)
    for i, col in enumerate(columns):
        text = any(not numeric(r[i]) for r in rows)
        t.add_column(col, justify="left" if text else "right")
    for row in rows:
        t.add_row(*row)
    text_console(width=80).print(t)


def run_shown(sweep: Any, s: Any, target: Path, title: str, n: int, jobs: int | None,
              where: Any, **more: Any) -> tuple[Any, list[Any]]:  # fmt: skip
    """Run (or resume) ``sweep`` of the spec ``s`` into ``target`` with the progress bar
    (``title``, ``n`` runs; its notes on stderr; ``more``: :meth:`~coschedlab.sweeps.sweep.
    Sweep.run`'s ``tasks``): the runner's summary and the finished runs' records."""
    from .progress import run_sweep_shown, text_console

    err = text_console(stderr=True)

    def info(text: str) -> None:
        err.print(text, soft_wrap=True)

    return run_sweep_shown(
        err, title, n, target,
        lambda **cb: sweep.run(s, target, jobs=jobs, executor=where, on_info=info, **more, **cb),
    )  # fmt: skip


def run_capability(cap: Any, spec: Path, jobs: int | None, out: Path | None,
                   executor: str | None) -> None:  # fmt: skip
    """A capability's sweep command: read the spec (a file or ``coschedlab:NAME``), check
    ``--out`` (default: the spec's ``output``), run the sweep with the progress bar, write the
    report and say what was written, print the table; failed runs exit 2."""
    from ..bundled import bundled, is_bundled
    from ..errors import InputError
    from .progress import report_step, text_console

    where = executor_of(jobs, executor)
    s: Any = cap.read(bundled(str(spec)) if is_bundled(str(spec)) else spec)
    target = Path(out if out is not None else s.output)
    sweep = cap.the_sweep()
    sweep.check_output(target, s)
    summary, rows = run_shown(sweep, s, target, s.name, len(s.configs()), jobs, where)
    err = text_console(stderr=True)
    with report_step(err, target):
        written = cap.write_report(s, target, rows)
        shown = cap.table(target)
    if shown is not None:
        print_table(*shown)
    err.print("wrote " + ", ".join(str(p) for p in written), soft_wrap=True)
    if summary.failed:
        raise InputError(f"{len(summary.failed)} runs failed (see {target}/runs/*.error.txt)")


def compare_command(cap: Any) -> Callable[..., None]:
    """The ``compare`` command of ``cap``, its help the capability's."""

    def compare(
        spec: Annotated[Path, typer.Argument(help=f"sweep spec (YAML, see docs/{cap.name}.md)")],
        jobs: JobsOpt = None,
        out: SweepOutOpt = None,
        executor: ExecutorOpt = None,
    ) -> None:
        run_capability(cap, spec, jobs, out, executor)

    compare.__doc__ = cap.help
    return compare


def add_sweep_commands(
    app: typer.Typer, groups: dict[str, typer.Typer], only: str | None = None
) -> None:
    """Add ``NAME compare`` to ``app`` for every registered capability whose command is
    generated (or for capability ``only``): in its group of ``groups`` when it has one, else
    in a new group ``NAME``."""
    from ..sweeps.capability import capabilities

    for cap in capabilities():
        if not cap.generated or only not in (None, cap.name):
            continue
        group = groups.get(cap.name)
        if group is None:
            group = typer.Typer(help=cap.help, no_args_is_help=True)
            app.add_typer(group, name=cap.name)
        if any(c.name == "compare" for c in group.registered_commands):
            continue  # already added (the app is built once per process)
        group.command("compare", help=cap.help)(compare_command(cap))
