"""``python -m coschedlab.cli``."""

from . import main

if __name__ == "__main__":  # (imported, as documentation tools do: nothing runs)
    main()
