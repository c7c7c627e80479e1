"""Entry point: the top-level typer app and the error handling shared by all commands."""

from __future__ import annotations

import sys

import typer
from typer.exceptions import TyperException

from ..errors import InputError, OutputError
from . import coloc, compare, core, coupled, data, elise, gui, insitu, study, validate, workflows
from .sweeps import add_sweep_commands

#: the command groups (a capability's generated ``compare`` joins its group, or makes one)
GROUPS = {"insitu": insitu.app, "workflows": workflows.app, "coupled": coupled.app,
          "study": study.app, "elise": elise.app}  # fmt: skip


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"coschedlab {version('coschedlab')}")
        raise typer.Exit(0)


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="print the version and exit"
    ),
) -> None:
    """Design, simulate and plan co-scheduling on HPC systems."""


def make_app() -> typer.Typer:
    """The command line: its own commands and groups, and the sweep commands of every
    registered capability (:func:`~.sweeps.add_sweep_commands`)."""
    app = typer.Typer(
        name="coschedlab",
        help="Design, simulate and plan co-scheduling on HPC systems.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode="markdown",
    )
    app.callback()(_root)
    for command in (core.simulate, core.schedulers, validate.validate, core.demo, data.data,
                    coloc.generate, coloc.report, compare.compare, gui.gui):  # fmt: skip
        app.command()(command)
    for name, group in GROUPS.items():
        app.add_typer(group, name=name)
    add_sweep_commands(app, GROUPS)
    return app


app = make_app()


def main() -> None:
    """Run the CLI; user errors print one line and exit with code 2."""
    try:
        code = app(standalone_mode=False, prog_name="coschedlab")
    except InputError as exc:
        _fail(f"error: {exc}", 2, exc)
    except OutputError as exc:  # the machine failed (full disk): exit 1
        _fail(f"error: {exc}", 1, exc)
    except OSError as exc:
        from ..outputs import os_error

        err = os_error(exc)
        _fail(f"error: {err}", 1 if isinstance(err, OutputError) else 2, exc)
    except KeyboardInterrupt:
        _fail(INTERRUPTED, 130, None)
    except ImportError as exc:
        unbuilt = _unbuilt(exc)
        if unbuilt is None:
            raise
        _fail(
            f"error: the compiled core is not built ({unbuilt} is missing or does not load: "
            f"{exc}); run scripts/setup.sh (or make run) to build it",
            1,
            exc,
        )
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(1)
    except TyperException as exc:  # usage errors: bad option, missing argument
        show = getattr(exc, "show", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and show is not None:
            show()  # a command given nothing prints its help
        else:  # one line, as every other error: what, and where to read more
            ctx = getattr(exc, "ctx", None)
            path = getattr(ctx, "command_path", None)
            hint = f" (see {path} --help)" if path else ""
            message = " ".join(exc.format_message().split())
            print(f"error: {message}{hint}", file=sys.stderr)
        sys.exit(exc.exit_code if exc.exit_code else 2)
    except Exception as exc:  # a bug: one line, the traceback on request
        where = _where(exc)
        _fail(
            f"internal error: {type(exc).__name__}: {exc} ({where}); please report it "
            "(COSCHEDLAB_TRACEBACK=1 shows the traceback)",
            3,
            exc,
        )
    if code == 130:  # Ctrl-C: typer turns it into a return code, without a word
        _fail(INTERRUPTED, 130, None)
    sys.exit(code if isinstance(code, int) else 0)


INTERRUPTED = (
    "interrupted; no partial result was written (earlier results are intact; sweeps resume)"
)


def _unbuilt(exc: ImportError) -> str | None:
    """The compiled module (one of coschedlab's ``.pyx``) that ``exc`` failed to import, or
    None when the import error is about something else."""
    from pathlib import Path

    name = exc.name or ""
    if not name.startswith("coschedlab."):
        return None
    root = Path(__file__).resolve().parent.parent
    source = root.joinpath(*name.split(".")[1:]).with_suffix(".pyx")
    return name if source.is_file() else None


def _where(exc: BaseException) -> str:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"


def _fail(message: str, code: int, exc: BaseException | None) -> None:
    """Print one line (and the traceback when COSCHEDLAB_TRACEBACK is set), exit ``code``."""
    import os

    if exc is not None and os.environ.get("COSCHEDLAB_TRACEBACK"):
        import traceback

        traceback.print_exception(exc)
    from ..bundled import in_words

    print(in_words(message), file=sys.stderr)  # bundled files named coschedlab:NAME
    sys.exit(code)
