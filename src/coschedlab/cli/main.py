"""Entry point: the top-level typer app and the error handling shared by all commands.

A plain ``simulate`` command line (:func:`plain_simulate`) is run without typer, which is
imported, and the app built, for every other one (``--help``, a usage error, any other command
or option form): same values, same messages and exit codes."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._build import StaleBuild, check_built
from ..errors import InputError, OutputError

#: the top-level commands (name -> the module of ``cli`` that defines the function of that
#: name) and the sub-command groups (name -> the module whose ``app`` they are), in the order
#: of ``--help``
COMMANDS: dict[str, str] = {
    "simulate": "core", "schedulers": "core", "validate": "validate", "demo": "core",
    "data": "data", "generate": "coloc", "report": "coloc", "compare": "sweeps", "gui": "gui",
}  # fmt: skip
GROUPS: dict[str, str] = {
    "insitu": "insitu", "workflows": "workflows", "coupled": "coupled", "study": "study",
    "elise": "elise",
}  # fmt: skip

if TYPE_CHECKING:  # pragma: no cover (typer is imported when the app is built)
    import typer


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        import typer

        print(f"coschedlab {version('coschedlab')}")
        raise typer.Exit(0)


def _root_callback() -> Any:
    """The app's callback (``--version``); its function's docstring is the app's help."""
    import typer

    def _root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="print the version and exit"
        ),
    ) -> None:
        """Design, simulate and plan co-scheduling on HPC systems."""

    return _root


def build_app(command: str | None = None) -> typer.Typer:
    """The typer app with every command, or with ``command`` alone (what one invocation
    needs: the other commands' modules, and what they import, are not loaded)."""
    from importlib import import_module

    import typer

    from . import helpstyle, plainparams

    plainparams.install()  # plain option values without pydantic
    helpstyle.install()  # no <bool> after a flag, TRACE (not {trace}) in the usage line
    the_app = typer.Typer(
        name="coschedlab",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode="markdown",
    )
    the_app.callback()(_root_callback())
    for name, module in COMMANDS.items():
        if command in (None, name):
            the_app.command()(getattr(import_module(f".{module}", __package__), name))
    groups = {}
    for name, module in GROUPS.items():
        if command in (None, name):
            groups[name] = import_module(f".{module}", __package__).app
            the_app.add_typer(groups[name], name=name)
    if command not in COMMANDS:  # the registered capabilities' sweep commands
        from .sweeps import add_sweep_commands

        add_sweep_commands(the_app, groups, only=command)
    return the_app


def __getattr__(name: str) -> typer.Typer:
    """``app``: the whole app, made on first use (PEP 562)."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    app = globals()["app"] = build_app()
    return app


def _app_for(argv: list[str]) -> typer.Typer:
    """The app one command line needs: its command alone when it names one, else the whole
    app (``--help``, ``--version``, a mistyped command)."""
    if "app" in globals():  # made already (and perhaps extended): use it
        return globals()["app"]
    first = argv[0] if argv else None
    return build_app(first if first in COMMANDS or first in GROUPS else None)


#: ``simulate``'s options that :func:`plain_simulate` takes (option -> (parameter, kind));
#: any other option, or another form of these (``--out=DIR``, ``-sNAME``), goes to typer
_SIMULATE_OPTIONS: dict[str, tuple[str, str]] = {
    "-s": ("scheduler", "list[str]"), "--scheduler": ("scheduler", "list[str]"),
    "--nodes": ("nodes", "int"), "--cores-per-node": ("cores_per_node", "int"),
    "--sockets": ("sockets", "int"), "--pool": ("pool", "path"), "--heatmap": ("heatmap", "path"),
    "--compact-times": ("compact_times", "path"), "--out": ("out", "path"),
    "--pass-timeout": ("pass_timeout", "float"), "--wake-limit": ("wake_limit", "int"),
    "--kill-at-walltime": ("kill_at_walltime", True), "--dependencies": ("dependencies", True),
    "--strict": ("strict", True), "--force": ("force", True),
    "--swf-integers": ("swf_integers", True), "--validate": ("validate", True),
    "--no-validate": ("validate", False),
}  # fmt: skip


def plain_simulate(argv: list[str]) -> dict[str, Any] | None:
    """The arguments of :func:`~coschedlab.cli.batch.run_simulate` for a plain ``simulate``
    command line (one trace; options of :data:`_SIMULATE_OPTIONS` each given once, ``-s``
    any number of times, as separate words; values that typer takes as they are), or None:
    typer parses that command line (help, usage errors, every other form), as it would
    this one, to the same values."""
    from .plainparams import NOT_PLAIN, plain_value

    if not argv or argv[0] != "simulate":
        return None
    args: dict[str, Any] = {}
    schedulers: list[str] = []
    k = 1
    while k < len(argv):
        word = argv[k]
        k += 1
        if not word.startswith("-"):
            if "trace" in args or not word:
                return None
            args["trace"] = word
            continue
        name, kind = _SIMULATE_OPTIONS.get(word, (None, None))
        if name is None or (name in args and name != "scheduler"):
            return None
        if isinstance(kind, bool):  # a flag
            if name in args:
                return None
            args[name] = kind
            continue
        if k == len(argv) or argv[k].startswith("-"):
            return None  # no value, or one typer reads its own way
        value = argv[k]
        k += 1
        if name == "scheduler":
            schedulers.append(value)
            continue
        got = plain_value("str" if kind == "path" else kind, value)
        if got is NOT_PLAIN or not value:
            return None
        args[name] = got
    if "trace" not in args:
        return None
    for name in ("trace", "pool", "heatmap", "compact_times", "out"):
        if name in args:
            if _unreadable(args[name]):
                return None  # typer's message
            if name != "trace":  # (the word "-" is standard input, "./-" a file: as typer's)
                args[name] = Path(args[name])
    args["scheduler"] = schedulers or ["easy"]
    return args


def _user_file(spec: str) -> bool:
    """Does scheduler ``spec`` name a Python file (user code, which may use BLAS)?"""
    name = spec.split(":", 1)[0]
    return name.endswith(".py") or "/" in name or os.sep in name


def _own_code(specs: list[str]) -> bool:
    """Are the schedulers ``specs`` all coschedlab's own? Not a user's file nor an installed
    plug-in: files such code leaves open are flushed by the interpreter's teardown only (a
    policy's log lost its lines when the process ended without it)."""
    from ..schedulers.registry import lookup

    for spec in specs:
        if _user_file(spec):
            return False
        try:
            cls = lookup(spec.split(":", 1)[0])
        except Exception:  # (a broken plug-in: the run said so)
            return False
        if cls is None or not cls.__module__.startswith(f"{__package__.split('.')[0]}."):
            return False
    return True


def _unreadable(path: str) -> bool:
    """Is ``path`` there but not readable (typer refuses it, with its own message)?"""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return not os.access(path, os.R_OK)


def main(exit_process: bool = False) -> None:
    """Run the CLI; user errors print one line and exit with code 2. Started by the
    dashboard (:data:`~coschedlab.sweeps.PARENT` set), it ends with the dashboard.
    ``exit_process`` (the ``coschedlab`` program): a plain ``simulate`` of coschedlab's own
    schedulers ends the process once its outputs are closed and its atexit handlers have
    run, without the interpreter's teardown (freeing every object one by one), and NumPy's
    BLAS on one thread unless a scheduler is a user's file or ``OPENBLAS_NUM_THREADS`` is
    set; with no cyclic garbage collection unless a scheduler is a user's file."""
    plain = plain_simulate(sys.argv[1:]) if "app" not in globals() else None
    if exit_process and plain is not None and not any(map(_user_file, plain["scheduler"])):
        # no BLAS in the command: OpenBLAS's threads, started (and spinning) when NumPy
        # loads, would only burn CPU (~0.04 s); a user's policy file keeps them
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        # and no cyclic garbage collector: its ~50 passes (over the imports' young objects,
        # ~10 ms of CPU) found only the imports' few cycles; the runs of the built-ins make
        # none that hold their arrays (simulate() breaks the kernel <-> view cycle itself)
        gc.disable()
    from ..sweeps import PARENT

    _printable_stdout()
    if os.environ.get(PARENT):
        from ..sweeps.pool import watch_parent

        watch_parent()
    _terminate_as_interrupt()
    if plain is None or not exit_process:
        _run(plain)
        return
    try:
        _run(plain)
    except SystemExit as exc:
        if _own_code(plain["scheduler"]):  # a user's code: its open files flushed at exit
            _end_process(exc)
        raise


def _terminate_as_interrupt() -> None:
    """SIGTERM (``timeout``, a batch system's time limit, ``kill``) stops the command as
    Ctrl-C does: the same cleanup (a sweep stops its workers and says how to resume), the
    same line and exit code 130; it killed a sweep without a word (a "leaked semaphore"
    warning, no resume line). The signal goes to the SIGINT handler in place (one that holds
    Ctrl-C for a moment holds it too), else raises KeyboardInterrupt (SIGINT ignored: a
    command started in the background)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread may set a handler (a command run from a thread)

    def on_term(signum: int, frame: Any) -> None:
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):  # (told it is SIGTERM: one holding Ctrl-C may tell them apart)
            handler(signum, frame)
        else:
            raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)


def _printable_stdout() -> None:
    """Let standard output write what its encoding cannot as escapes (``\\xe9``), as Python
    does on standard error: a trace named ``é.swf`` with ``PYTHONIOENCODING=ascii`` (or a
    Latin-1 terminal) was an internal error before anything ran. A standard stream closed
    when the program started (``>&-``: None) writes to os.devnull, as a closed one would:
    every writer may print (a writer of None was an internal error, exit 3)."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w"))  # noqa: SIM115 (open until the end)
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None and sys.stdout.errors == "strict":
        reconfigure(errors="backslashreplace")
    for name in ("stdout", "stderr"):  # the process's own streams (a test's are its own)
        if getattr(sys, name) is getattr(sys, f"__{name}__"):
            setattr(sys, name, _ReaderGone(getattr(sys, name)))


class _ReaderGone:
    """A standard stream that its reader's going away (``| head``, ``| true``: a closed
    pipe) does not stop: from then on what is printed goes to os.devnull, and the command
    goes on, writes its results and ends with its own exit code (a closed pipe stopped a
    ``simulate`` before it wrote its result, exit 2). A stream that cannot be written
    (``> /dev/full``, a log on a full disk: ``failed``) goes the same way, and the command
    ends saying so (:func:`_lost_output`): it stopped before writing its results, or after,
    saying "nothing was replaced" of a result it had just replaced."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.failed: OSError | None = None

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            self._gone(exc)
            return len(text)
        except ValueError as exc:
            self._closed(exc)
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            self._gone(exc)
            self._stream.flush()  # what was buffered, into os.devnull
        except ValueError as exc:
            self._closed(exc)

    def _closed(self, exc: ValueError) -> None:
        """The stream was closed under the command (a policy's ``sys.stdout.close()``: an
        internal error, exit 3, once its run was written): what follows goes to os.devnull."""
        if not self._stream.closed:
            raise exc  # (another ValueError: not a closed stream's)
        self._stream = open(os.devnull, "w")  # noqa: SIM115 (open until the end)

    def _gone(self, exc: OSError) -> None:
        """The reader is gone (``exc``: a closed pipe), or the stream failed (any other
        ``exc``, kept as ``failed``): its descriptor writes to os.devnull from now on."""
        if not isinstance(exc, BrokenPipeError) and self.failed is None:
            self.failed = exc
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _run(plain: dict[str, Any] | None) -> None:
    """Run the command line (``plain``: a plain ``simulate``'s arguments, run without
    typer); always ends with ``SystemExit``."""
    batch = sys.modules.get(f"{__package__}.batch")
    if batch is not None:  # (an earlier command in this process: not this one's result)
        batch.written = None
    try:
        check_built()
        if plain is not None:
            from .batch import run_simulate

            code = run_simulate(**plain)
        else:
            code = _app_for(sys.argv[1:])(standalone_mode=False, prog_name="coschedlab")
    except InputError as exc:
        _fail(f"error: {exc}", 2, exc)
    except (OutputError, StaleBuild) as exc:  # the machine failed (full disk), or a compiled
        _fail(f"error: {exc}", 1, exc)  # module older than its source: exit 1
    except OSError as exc:
        from ..outputs import os_error

        err = os_error(exc)
        _fail(f"error: {err}", 1 if isinstance(err, OutputError) else 2, exc)
    except KeyboardInterrupt:
        _fail(_interrupted(), 130, None)
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
    except Exception as exc:
        _typer_exit(exc)  # typer's exits and usage errors
        where = _where(exc)  # else a bug: one line, the traceback on request
        _fail(
            f"internal error: {type(exc).__name__}: {exc} ({where}); please report it "
            "(COSCHEDLAB_TRACEBACK=1 shows the traceback)",
            3,
            exc,
        )
    if code == 130:  # Ctrl-C: typer turns it into a return code, without a word
        _fail(_interrupted(), 130, None)
    code = code if isinstance(code, int) else 0
    _lost_output(code)
    sys.exit(code)


def _lost_output(code: int) -> None:
    """A command that ran to its end but could not print (:class:`_ReaderGone`'s ``failed``:
    standard output on a full disk, ``> /dev/full``) says so in one line and exits with
    code 1 (the machine failed), or its own code when that is not 0."""
    stream = sys.stdout
    if not isinstance(stream, _ReaderGone):
        return
    stream.flush()  # (what is still buffered may fail too)
    if stream.failed is not None:
        reason = stream.failed.strerror or str(stream.failed)
        _fail(
            f"error: standard output: {reason}; what the command printed is lost (it ran to "
            "its end: its files are written)",
            code or 1,
            stream.failed,
        )


def _typer_exit(exc: Exception) -> None:
    """Exit as typer's ``Exit``, ``Abort`` or usage error ``exc`` says; return when ``exc``
    is none of those (typer not imported: it is none of them)."""
    if "typer" not in sys.modules:
        return
    import typer
    from typer.exceptions import TyperException

    if isinstance(exc, typer.Exit):
        sys.exit(exc.exit_code)
    if isinstance(exc, typer.Abort):
        sys.exit(1)
    if isinstance(exc, TyperException):  # usage errors: bad option, missing argument
        show = getattr(exc, "show", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and show is not None:
            show()  # a command given nothing prints its help
        else:  # one line, as every other error: what, and where to read more
            ctx = getattr(exc, "ctx", None)
            path = getattr(ctx, "command_path", None)
            hint = f" (see {path} --help)" if path else ""
            message = " ".join(exc.format_message().split())
            message = _flag_value(ctx, message) or message
            print(f"error: {message}{hint}", file=sys.stderr)
        sys.exit(exc.exit_code if exc.exit_code else 2)


def _flag_value(ctx: Any, message: str) -> str | None:
    """A value given to a flag (``--kill-at-walltime true``: typer's ``message`` "Got
    unexpected extra argument(s) (true)"), said so: the flag and the value to leave out;
    None otherwise."""
    import re

    command = getattr(ctx, "command", None)
    got = re.search(r"unexpected extra argument\S* \((.+)\)$", message)
    if command is None or got is None:
        return None
    first = got.group(1).split()[0]
    flags = {o for p in command.params if getattr(p, "is_flag", False) for o in p.opts}
    argv = sys.argv[1:]
    for k in range(1, len(argv)):
        if argv[k] == first and argv[k - 1] in flags:
            return (
                f"{argv[k - 1]} is a flag: it takes no value (got {argv[k]!r}); give "
                f"{argv[k - 1]} alone, or leave it out"
            )
    return None


def _end_process(exc: SystemExit) -> None:
    """End the process with ``exc``'s exit status without the interpreter's teardown: the
    atexit handlers run and the standard streams are flushed first, as at a normal exit.
    Returns (the caller re-raises ``exc``: a normal exit) when another thread still runs or
    a stream cannot be flushed (a closed pipe: Python's own exit reports it)."""
    import atexit
    import threading

    if any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate()):
        return
    if exc.code is not None and not isinstance(exc.code, int):
        return  # a message to print: Python's exit prints it
    status = (exc.code or 0) & 0xFF
    try:
        _flush_streams()
    except (OSError, ValueError):
        return
    atexit._run_exitfuncs()  # (they are run once: Python's exit would find none left)
    try:
        _flush_streams()
    except (OSError, ValueError):
        status = 120  # as Python's exit when it cannot flush them
    os._exit(status)


def _flush_streams() -> None:
    """Flush standard output and error (either is None when the program was started with
    it closed, ``>&-``: nothing to flush, as at Python's own exit)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


INTERRUPTED = (
    "interrupted; no partial result was written (earlier results are intact; sweeps resume)"
)


def _interrupted() -> str:
    """What an interrupt left: :data:`INTERRUPTED`, or (a ``simulate`` whose result was in
    place when the interrupt came, :data:`~coschedlab.cli.batch.written`) where it is."""
    done = getattr(sys.modules.get(f"{__package__}.batch"), "written", None)
    if done is None:
        return INTERRUPTED
    return f"interrupted once the result was written whole: outputs in {done}/"


def _unbuilt(exc: ImportError) -> str | None:
    """The compiled module (one of coschedlab's ``.pyx``) that ``exc`` failed to import, or
    None when the import error is about something else."""
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


#: the control characters an error line shows escaped (all but the tab)
_ESCAPES = {c: repr(chr(c))[1:-1] for c in [*range(32), 127] if c != 9}


def _fail(message: str, code: int, exc: BaseException | None) -> None:
    """Print one line (and the traceback when COSCHEDLAB_TRACEBACK is set), exit ``code``."""
    if exc is not None and os.environ.get("COSCHEDLAB_TRACEBACK"):
        import traceback

        traceback.print_exception(exc)
    from ..bundled import in_words

    # bundled files named coschedlab:NAME; a line end or other control character in a name
    # (a file named "a<newline>b.swf") as an escape: the message stays one line
    print(in_words(message).translate(_ESCAPES), file=sys.stderr)
    sys.exit(code)
