"""``python -m coschedlab``: the ``coschedlab`` command (as ``python -m coschedlab.cli``)."""

from .cli.main import main

main()
