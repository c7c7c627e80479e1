# distutils: language = c++
# distutils: sources = src/coschedlab/insitu/pieces_engine.cpp
# distutils: libraries = simgrid
# distutils: extra_compile_args = -O2 -std=c++17
"""The per-node piece engine (``activities``) compiled against SimGrid's C++ API.

:func:`run` takes the platform and the components as plain numbers (built by
:func:`coschedlab.insitu.simulate._run`) and returns the per-piece stage records. Import it
only in a process that runs no other SimGrid Engine (SimGrid allows one per process)."""

from libcpp cimport bool as cbool
from libcpp.string cimport string
from libcpp.vector cimport vector


cdef extern from "pieces_engine.hpp" namespace "coschedlab_insitu":
    cdef cppclass PieceComponent:
        cbool is_sim
        int sim
        vector[int] hosts
        double flops
        double bytes
        cbool colocated
        vector[int] readers

    cdef cppclass PieceConfig:
        int n_hosts
        double speed
        int cores
        double bandwidth
        double latency
        double disk_bw
        double loopback_bw
        double shared_loopback_bw
        cbool paper
        cbool store_forward
        cbool control
        double control_bytes
        double shared_flow_rate
        int steps

    cdef cppclass PieceRecord:
        int component, step, stage, piece
        double start, end

    vector[PieceRecord] run_pieces(const PieceConfig& cfg,
                                   const vector[PieceComponent]& comps) except + nogil
    string c_context_factory "coschedlab_insitu::context_factory"() except +


def run(dict cfg, list comps):
    """Run SimGrid once. ``cfg``: the :class:`PieceConfig` fields by name; ``comps``: one dict
    per component (simulations first) with the :class:`PieceComponent` fields. Returns
    (component, step, stage 0-3 = S W R A, start, end, piece) tuples."""
    cdef PieceConfig c
    cdef PieceComponent pc
    cdef vector[PieceComponent] cv
    cdef vector[PieceRecord] out
    c.n_hosts = cfg["n_hosts"]
    c.speed = cfg["speed"]
    c.cores = cfg["cores"]
    c.bandwidth = cfg["bandwidth"]
    c.latency = cfg["latency"]
    c.disk_bw = cfg["disk_bw"]
    c.loopback_bw = cfg["loopback_bw"]
    c.shared_loopback_bw = cfg["shared_loopback_bw"]
    c.paper = cfg["paper"]
    c.store_forward = cfg["store_forward"]
    c.control = cfg["control"]
    c.control_bytes = cfg["control_bytes"]
    c.shared_flow_rate = cfg["shared_flow_rate"]
    c.steps = cfg["steps"]
    for d in comps:
        pc.is_sim = d["is_sim"]
        pc.sim = d["sim"]
        pc.hosts = d["hosts"]
        pc.flops = d["flops"]
        pc.bytes = d["bytes"]
        pc.colocated = d["colocated"]
        pc.readers = d["readers"]
        cv.push_back(pc)
    with nogil:
        out = run_pieces(c, cv)
    return [(r.component, r.step, r.stage, r.start, r.end, r.piece) for r in out]


def context_factory() -> str:
    """The context factory in SimGrid's configuration now (after :func:`run`: the one it
    used). Runs set it themselves: a process that imported SimGrid's Python bindings holds
    ``thread``, which made every run ~6-20x slower."""
    return c_context_factory().decode()
