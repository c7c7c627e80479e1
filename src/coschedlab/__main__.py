"""``python -m coschedlab``: the ``coschedlab`` program (as ``python -m coschedlab.cli``)."""

from .cli import main

main()
