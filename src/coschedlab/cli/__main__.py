"""``python -m coschedlab.cli``."""

from .main import main

main()
