"""``python -m coschedlab.cli``."""

from . import main

main()
