"""Start the dashboard from Python on a workspace of your own (what `coschedlab gui` does).

    .venv/bin/python examples/dashboard.py          # then open http://127.0.0.1:8050/

Every comparison it runs is stored under out/dashboard/ like `coschedlab compare` stores it:
`coschedlab compare out/dashboard/specs/NAME.yaml --out out/dashboard/NAME` resumes or
re-analyses one from the command line.
"""

from coschedlab.gui import Context, Workspace, make_app

if __name__ == "__main__":
    workspace = Workspace.at("out/dashboard")
    app = make_app(Context(workspace, jobs=2))
    print(f"dashboard: http://127.0.0.1:8050/ (workspace {workspace.root}); Ctrl-C stops it")
    app.run(host="127.0.0.1", port=8050, debug=False)
