"""Start the dashboard from Python on a workspace of your own (what `coschedlab gui` does).

    .venv/bin/python examples/dashboard.py [PORT]    # then open the address it prints

As `coschedlab gui`, it asks every request for a token (the address it prints carries it):
other users of this machine reach 127.0.0.1 too, and the dashboard runs simulations and
reads the workspace. Every comparison it runs is stored under out/dashboard/ like
`coschedlab compare` stores it: `coschedlab compare out/dashboard/specs/NAME.yaml --out
out/dashboard/NAME` resumes or re-analyses one from the command line.
"""

import logging
import sys

from coschedlab.gui import Context, Workspace, make_app
from coschedlab.gui.guard import new_token

if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8050
    workspace = Workspace.at("out/dashboard")
    token = new_token()
    app = make_app(Context(workspace, jobs=2), token=token)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no banner, no line per request
    app.logger.setLevel(logging.WARNING)  # not Dash's address line
    print(f"dashboard: http://127.0.0.1:{port}/?token={token}", flush=True)
    print(f"(workspace {workspace.root}; Ctrl-C stops it)", flush=True)
    app.run(host="127.0.0.1", port=port, debug=False)
