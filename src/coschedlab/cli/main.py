"""Entry point: the top-level typer app and the error handling shared by all commands."""

from __future__ import annotations

import sys

import typer
from typer.exceptions import TyperException

from ..errors import InputError
from . import coloc, compare, core, insitu, validate

app = typer.Typer(
    name="coschedlab",
    help="Design, simulate and plan co-scheduling on HPC systems.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command()(core.simulate)
app.command()(core.schedulers)
app.command()(validate.validate)
app.command()(core.demo)
app.command()(coloc.generate)
app.command()(coloc.report)
app.command()(compare.compare)
app.add_typer(insitu.app, name="insitu")


def main() -> None:
    """Run the CLI; user errors print one line and exit with code 2."""
    try:
        code = app(standalone_mode=False)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        print(f"error: {exc.filename}: {exc.strerror}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(1)
    except TyperException as exc:  # usage errors: bad option, missing argument
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            print(f"error: {exc.format_message()}", file=sys.stderr)
        sys.exit(exc.exit_code if exc.exit_code else 2)
    sys.exit(code if isinstance(code, int) else 0)
