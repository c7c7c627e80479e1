"""The whole-node accounting's allocation texts (compiled in :meth:`.wholenodes.WholeNodes.
alloc_texts`) against :func:`coschedlab.intervals.format_intervals` of each allocation."""

from __future__ import annotations

from conftest import workloads
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab import Cluster
from coschedlab.engine.kernel import Simulation
from coschedlab.intervals import format_intervals
from coschedlab.schedulers import get_scheduler


@settings(max_examples=100, deadline=None)
@given(w=workloads(max_jobs=40, max_procs=12), nodes=st.integers(12, 16), stop=st.booleans())
def test_alloc_texts_are_the_formatted_intervals(w, nodes, stop):
    # fragmented machines give jobs several intervals; a stopped run leaves jobs unstarted
    sim = Simulation(
        w, Cluster(nodes, 1, 1), get_scheduler("firstfit"), until=60.0 if stop else None
    )
    sim.run()
    acct = sim.acct
    texts = acct.alloc_texts(sim.n)
    want = [format_intervals(acct.allocation(j)) for j in range(sim.n)]
    assert texts == want
