"""``python -m coschedlab.gui.tether ARGS``: the command line's ``coschedlab ARGS``, ended with
the dashboard that started it.

A sweep the dashboard starts runs in a session of its own (Cancel stops its process group as
Ctrl-C would), so nothing ends it when the dashboard itself is killed (SIGKILL, an ended
login session): it would go on computing, with its workers, for nobody. Started through this
module, the command watches the dashboard's process (:data:`PARENT`, its pid) with the
sweep runner's own parent watch and exits within a second once it is gone; its workers then
exit as they do when the command dies.
"""

from __future__ import annotations

import os
import sys
import threading

__all__ = ["PARENT", "command", "main"]

#: the environment variable naming the dashboard's pid
PARENT = "COSCHEDLAB_GUI_PID"


def command(args: list[str]) -> list[str]:
    """The process to start for ``coschedlab ARGS`` (:data:`PARENT` set in its environment)."""
    return [sys.executable, "-m", __name__, *args]


def main() -> None:
    """Watch the dashboard (exit when it is gone), then run the command line on the
    arguments."""
    from ..sweeps.pool import exit_with

    parent = int(os.environ.get(PARENT) or os.getppid())
    threading.Thread(target=exit_with, args=(parent,), name="dashboard-watch",
                     daemon=True).start()  # fmt: skip
    from ..cli.main import main as cli

    sys.argv[0] = "coschedlab"
    cli()


if __name__ == "__main__":
    main()
