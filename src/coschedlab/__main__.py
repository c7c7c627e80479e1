"""``python -m coschedlab``: the ``coschedlab`` program (as ``python -m coschedlab.cli``)."""

from .cli import main

if __name__ == "__main__":  # (imported, as documentation tools do: nothing runs)
    main()
