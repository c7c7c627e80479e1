"""The sweep commands generated from the capability registry, one per registered capability
(:mod:`coschedlab.sweeps.capability`; ``coschedlab NAME compare SPEC`` unless it declares
other words and options): read the spec, check ``--out``, run (or resume) the sweep with the
progress bar, write its report, print its table, list the failed runs.

(No ``from __future__ import annotations``: a command's annotations name its capability and
are evaluated when the command is made.)
"""

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from .options import ExecutorOpt, FreshOpt, JobsOpt, SweepOutOpt, a_path, executor_of, jobs_apply

__all__ = [
    "add_sweep_commands", "compare_command", "print_table", "run_capability",
]  # fmt: skip


def print_table(
    title: str,
    columns: list[str],
    rows: list[list[str]],
    caption: str | None = None,
    left: set[str] | None = None,
    **options: Any,
) -> None:
    """A table on stdout (``options``: rich's Table's; ``width``: the console's, 80 unless
    given): the columns ``left`` names to the left, the others right (``left`` None: text
    columns to the left, numbers right)."""
    from rich.table import Table

    from .progress import text_console

    def numeric(cell: str) -> bool:
        text = cell.strip().rstrip("%").replace(",", "").lstrip("+-")
        return text.replace(".", "", 1).isdigit() or text in ("", "nan", "inf")

    width = options.pop("width", 80)
    t = Table(title=title, caption=caption, **options)
    for i, col in enumerate(columns):
        text = col in left if left is not None else any(not numeric(r[i]) for r in rows)
        t.add_column(col, justify="left" if text else "right")
    for row in rows:
        t.add_row(*row)
    text_console(width=width).print(t)


def run_capability(cap: Any, spec: Path | None = None, jobs: int | None = None,
                   out: Path | None = None, executor: str | None = None, fresh: bool = False,
                   **options: Any) -> None:  # fmt: skip
    """A capability's sweep command: read the spec (a file or ``coschedlab:NAME``, with the
    command's own ``options``), check ``--out`` (default: the spec's ``output``; ``fresh``:
    its runs removed first), say the spec's ``notes``, run the sweep with the progress bar,
    write the report and say what was written, print the table; failed runs are listed and
    exit ``failed_exit``."""
    import shlex

    import typer
    from rich.markup import escape

    from ..bundled import bundled, is_bundled
    from ..errors import InputError
    from ..sweeps.sweep import check_kind
    from .progress import report_step, run_sweep_shown, text_console

    where = executor_of(jobs, executor)
    path = bundled(str(spec)) if spec is not None and is_bundled(str(spec)) else spec
    s: Any = read_spec(cap, path, **options)
    if where is None:  # the spec's executor, unless --executor replaces it
        jobs_apply(jobs, getattr(s, "executor", None), "the spec's 'executor'")
    target = Path(out if out is not None else s.output)
    sweep = cap.the_sweep()
    try:
        if fresh:  # never another kind's sweep (study reproduce --force deleted a comparison)
            check_kind(target, sweep.what)
            sweep.clear(target, s)
        sweep.check_output(target, s)
    except InputError as exc:  # a folder the user did not name: say where it came from
        if out is not None:
            raise
        said = f"{exc.what} (the spec's 'output' named it)"
        raise InputError(said, exc.where) from None
    tasks = sweep.tasks(s)
    err = text_console(stderr=True)
    for note in getattr(s, "notes", ()):  # what the spec's reader noticed
        err.print(escape(f"note: {note}"), soft_wrap=True)
    say = text_console() if cap.stdout else err
    resume = "resume with: " + shlex.join(_resume_args(cap, spec, jobs, out, executor, options))
    summary, rows = run_sweep_shown(
        err, getattr(s, "title", s.name), len(tasks), target,
        lambda **cb: sweep.run(s, target, tasks=tasks, jobs=jobs, executor=where,
                               on_info=lambda text: err.print(text, soft_wrap=True), **cb),
        say=say, resume=resume, rows=not sweep.layout.directory,
    )  # fmt: skip
    with report_step(err, target):
        written = cap.write_report(s, target, rows)
        shown = cap.show(s, target, say.width)
    if isinstance(shown, tuple):
        print_table(*shown)
    elif shown is not None:
        text_console().print(shown)
    say.print(escape("wrote " + ", ".join(str(p) for p in written)), highlight=False)
    if summary.failed:
        store = sweep.store(target)
        err.print(f"[red]{len(summary.failed)} run(s) failed:[/red]")
        for key, error in sorted(summary.failed.items()):
            where_ = store.layout.error_path(store.folder, key)
            err.print(escape(f"  {key}: {error} (see {where_})"), soft_wrap=True)
        err.print(escape(f"fix the cause and {resume}"), soft_wrap=True)
        raise typer.Exit(cap.failed_exit)


#: the commands that read a spec file and are no registered sweep: their words and reader
#: (``module:function``, imported only when a spec is refused: :func:`read_as`)
SPEC_COMMANDS = (
    ("study run", "coschedlab.studies.sweep:load_study"),
    ("insitu plan", "coschedlab.insitu.spec:load_ensemble"),
)


def _spec_readers() -> Iterator[tuple[str, Callable[..., Any]]]:
    """Each command that reads a spec file, as ``(words, reader)``: the registered sweeps
    whose SPEC is a file, then :data:`SPEC_COMMANDS`."""
    from importlib import import_module

    from ..sweeps.capability import capabilities

    for cap in capabilities():
        spec = next((o for o in cap.options if o.name == "spec"), None)
        if cap.load_spec is None or (spec is not None and (spec.flags or spec.type is None)):
            continue  # (a command whose SPEC is no file: its options)
        yield " ".join(cap.words), cap.read
    for words, name in SPEC_COMMANDS:
        module, attr = name.split(":")
        yield words, getattr(import_module(module), attr)


def read_as(words: str, read: Callable[..., Any], path: Path | None, **options: Any) -> Any:
    """``read(path, **options)``: the spec of ``coschedlab WORDS``; a spec of another command
    (an unknown key here, read cleanly by another command's reader) is refused in one line
    naming the command that reads it."""
    from ..errors import InputError

    try:
        return read(path, **options)
    except InputError as exc:
        if path is None or not exc.what.startswith("unknown key"):
            raise
        for other, other_read in _spec_readers():
            if other == words:
                continue
            try:
                other_read(path)
            except Exception:  # (not this one's either: the next)
                continue
            raise InputError(
                f"{exc.what}: this is a spec of `coschedlab {other}`, not of `coschedlab {words}`",
                exc.where,
            ) from None
        raise


def read_spec(cap: Any, path: Path | None, **options: Any) -> Any:
    """``cap``'s spec ``path`` (:meth:`~coschedlab.sweeps.capability.Capability.read`), a
    spec of another command named (:func:`read_as`)."""
    return read_as(" ".join(cap.words), cap.read, path, **options)


def _resume_args(cap: Any, spec: Path | None, jobs: int | None, out: Path | None,
                 executor: str | None, options: dict[str, Any]) -> list[str]:  # fmt: skip
    """The command line resuming this sweep: the same spec and options (``--fresh`` left
    out)."""
    args = ["coschedlab", *cap.command_args(None if spec is None else str(spec),
                                            None if out is None else str(out))]  # fmt: skip
    given = [("--jobs", jobs), ("--executor", executor)]
    given += [(o.flags[0], options[o.name]) for o in cap.options
              if o.name in options and options[o.name] != o.default]  # fmt: skip
    for flag, value in given:
        if value is True:
            args.append(flag)
        elif value is not None and value is not False:
            args += [flag, str(value)]
    return args


def compare_command(cap: Any) -> Callable[..., None]:
    """The command of ``cap``: the common parameters (``SPEC``, ``--jobs``, ``--out``,
    ``--executor``; ``--fresh`` when its sweep can clear its runs) with its own
    :attr:`~coschedlab.sweeps.capability.Capability.options`, its help the capability's."""
    import inspect

    params = {
        "spec": Annotated[Path, typer.Argument(
            parser=a_path, help=f"sweep spec (YAML, see docs/{cap.name}.md)")],  # fmt: skip
        "jobs": JobsOpt, "out": SweepOutOpt, "executor": ExecutorOpt,
    }  # fmt: skip
    defaults: dict[str, Any] = {"jobs": None, "out": None, "executor": None}
    if cap.the_sweep().clear is not None:
        params["fresh"], defaults["fresh"] = FreshOpt, False
    for o in cap.options:  # in the place of the common one it replaces
        defaults.pop(o.name, None)
        if o.type is None:
            params.pop(o.name, None)
            continue
        path = {"parser": a_path} if o.type in (Path, Path | None) else {}  # '' is not '.'
        info = (typer.Option(*o.flags, help=o.help, **path) if o.flags
                else typer.Argument(help=o.help, **path))  # fmt: skip
        params[o.name] = Annotated[o.type, info]
        if o.default is not ...:
            defaults[o.name] = o.default

    def command(*args: Any, **values: Any) -> None:
        run_capability(cap, *args, **values)

    kind = inspect.Parameter.KEYWORD_ONLY
    command.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(k, kind, annotation=a, default=defaults.get(k, inspect.Parameter.empty))
        for k, a in params.items()
    ])  # fmt: skip
    command.__doc__ = cap.help
    command.__name__ = cap.words[-1]
    return command


def __getattr__(name: str) -> Callable[..., None]:
    """The top-level command ``name`` of a capability (``compare``: the comparison's)."""
    from ..sweeps.capability import capabilities

    for cap in capabilities():
        if cap.words == [name]:
            return compare_command(cap)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def add_sweep_commands(
    app: typer.Typer, groups: dict[str, typer.Typer], only: str | None = None
) -> None:
    """Add the command of every registered capability (or of those whose command starts
    with ``only``) to ``app``: a top-level one unless ``app`` has it (:data:`~.main.
    COMMANDS`), the others in their group of ``groups`` when it has one, else in a new
    group."""
    from ..sweeps.capability import capabilities
    from .main import COMMANDS

    for cap in capabilities():
        *group_words, word = cap.words
        if only not in (None, cap.words[0]):
            continue
        if not group_words:
            if word not in COMMANDS:
                app.command(word, help=cap.help)(compare_command(cap))
            continue
        group = groups.get(group_words[0])
        if group is None:
            group = typer.Typer(help=cap.help, no_args_is_help=True)
            app.add_typer(group, name=group_words[0])
        if any(c.name == word for c in group.registered_commands):
            continue  # already added (the app is built once per process)
        group.command(word, help=cap.help)(compare_command(cap))
