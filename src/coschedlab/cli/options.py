"""Options shared by several commands (declared once): the sweep commands' (``compare``,
``NAME compare``, ``insitu reproduce``, ``study reproduce``, ``elise run``) and others."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

JobsOpt = Annotated[
    int | None,
    typer.Option("--jobs", "-j", help="worker processes (default: all CPUs; 1 = in-process)"),
]
ExecutorOpt = Annotated[
    str | None,
    typer.Option(
        "--executor",
        help="where the runs execute: local (default), dask:tcp://HOST:8786 or "
        "dask:SCHEDULER_FILE, dask-local:N, slurm:cores=N,memory=SIZE (and more keys) or pbs:...; "
        "default: the spec's 'executor', else local",
    ),
]
ForceOpt = Annotated[
    bool,
    typer.Option("--force", help="replace outputs that exist (--out or the command's other "
                 "output options; a folder only when coschedlab wrote it)"),
]  # fmt: skip
JsonOpt = Annotated[bool, typer.Option("--json", help="print one JSON object")]
FreshOpt = Annotated[
    bool, typer.Option("--fresh", help="discard the runs already stored in the output")
]
#: the help of the watchdog's options (``--pass-timeout``, ``--wake-limit``: :mod:`.watchdog`),
#: the same in every command that runs a policy
WATCHDOG_HELP = {
    "pass_timeout": "stop with an error when one scheduling pass takes longer (seconds)",
    "wake_limit": "stop with an error after this many passes in a row that only the policy's "
    "wake-ups bring, starting nothing, under 1 ms apart on average (a livelock; 0: no limit)",
}


def a_path(text: str) -> Path:
    """A path option's or argument's value; an empty one is refused (``Path("")`` is
    ``.``: ``--out ''`` wrote into the current directory, ``compare ''`` read it as a
    spec)."""
    if isinstance(text, Path):  # a default
        return text
    if not text:
        raise typer.BadParameter("the path is empty")
    return Path(text)


SweepOutOpt = Annotated[
    Path | None,
    typer.Option("--out", "-o", parser=a_path,
                 help="output directory (default: the spec's 'output')"),
]  # fmt: skip


def csv_items(text: str | None) -> list[str] | None:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``; None for an empty or missing option."""
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


def executor_of(jobs: int | None, executor: str | None) -> Any:
    """A sweep command's ``--executor`` parsed (None: the spec's, else local), its ``--jobs``
    checked first."""
    from ..errors import check_counts
    from ..sweeps.executors import parse_executor

    check_counts(must="at least 1", jobs=jobs)
    where = parse_executor(executor) if executor is not None else None
    jobs_apply(jobs, where, "--executor")
    return where


def jobs_apply(jobs: int | None, where: Any, named: str) -> None:
    """Refuse ``--jobs`` beside a distributed executor ``where`` (``named``: the option or
    the spec's key that gave it), whose workers are its own: ``-j`` was silently ignored."""
    from ..errors import InputError

    if jobs is None or not getattr(where, "distributed", False):
        return
    fix = (f"give --executor dask-local:{jobs}" if where.kind == "dask-local"
           else "drop --jobs")  # fmt: skip
    raise InputError(
        f"--jobs {jobs} is for the local executor; {named} {where} has workers of its own: "
        f"{fix}, or --executor local to run here"
    )


def takes(shared: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: the command's CLI parameters are SHARED's (declared once), then its own;
    its ``**kwargs`` receives SHARED's."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        own, common = (inspect.signature(f, eval_str=True).parameters for f in (command, shared))
        both = [*common.values(), *(p for p in own.values() if p.kind != p.VAR_KEYWORD)]
        # keyword-only, in any order of defaults (typer passes every value by name)
        made = [p.replace(kind=p.KEYWORD_ONLY) for p in both]
        command.__signature__ = inspect.Signature(made)  # type: ignore
        command.__annotations__ = {**shared.__annotations__, **command.__annotations__}
        return command

    return decorate


def passes(
    func: Callable[..., Any], **helps: str
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: the command's CLI parameters are options of ``func``'s parameters named in
    ``helps`` (type and default read from ``func``, where they are declared once; the flag
    from the name: ``--target-wait`` for ``target_wait``), each with its help, then its own;
    its ``**kwargs`` receives them, for ``func``."""
    params = inspect.signature(func, eval_str=True).parameters

    def option(name: str, text: str) -> inspect.Parameter:
        p, flag = params[name], "--" + name.replace("_", "-")
        if p.default is True:  # (a flag on by default can be turned off)
            flag += f"/--no-{flag[2:]}"
        flag = typer.Option(flag, help=text)
        return p.replace(annotation=Annotated[p.annotation, flag])

    def shared() -> None: ...

    made = [option(name, text) for name, text in helps.items()]
    shared.__signature__ = inspect.Signature(made)  # type: ignore[attr-defined]
    shared.__annotations__ = {p.name: p.annotation for p in made}
    return takes(shared)
