"""Co-scheduling across coupled systems (Tang et al. 2011): paired jobs on different machines,
each with its own scheduler, start at the same instant by holding or yielding; :mod:`.sweep`
is the paper's study as a resumable sweep (``coschedlab coupled compare``)."""

from .mates import Pairs, make_pairs, pair_by_vicinity, pair_every, parse_pairing, read_pairs
from .system import SCHEMES, CoupledDeadlock, CoupledSimulation, Hold, System

__all__ = [
    "SCHEMES",
    "CoupledDeadlock",
    "CoupledSimulation",
    "Hold",
    "Pairs",
    "System",
    "make_pairs",
    "pair_by_vicinity",
    "pair_every",
    "parse_pairing",
    "read_pairs",
]
