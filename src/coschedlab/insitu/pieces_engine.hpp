// The `activities` engine of coschedlab.insitu.simulate in C++ (SimGrid s4u): one actor per
// per-node piece, one Exec / disk Io / transfer per piece and stage, the authors' job manager
// and its messages; the paper layout's shared link as a processor-sharing server (a SimGrid
// kernel timer, which also runs the job manager). Compiled so that SimGrid switches between
// actors with its raw contexts (the Python bindings force one thread per actor: ~40 us per
// switch, 7-40x slower). Wrapped by pieces.pyx.
#pragma once

#include <string>
#include <vector>

namespace coschedlab_insitu {

struct PieceComponent {
  bool is_sim;                // a simulation (S, W), else an analysis (R, A)
  int sim;                    // analysis: index of its simulation in the component list
  std::vector<int> hosts;     // the component's nodes, in order
  double flops;               // compute of one piece (flop)
  double bytes;               // sim: W per piece; analysis: local R per piece or one remote flow
  bool colocated;             // analysis: on its simulation's nodes
  std::vector<int> readers;   // sim: (component, piece) pairs flattened, of every coupled analysis
};

struct PieceConfig {
  int n_hosts;
  double speed;        // flop/s per core
  int cores;
  double bandwidth;    // bytes/s of each node link (per-node)
  double latency;      // s per route (per-node; the paper layout's shared link has none)
  double disk_bw;      // bytes/s
  double loopback_bw;  // bytes/s of each node's own loopback
  double shared_loopback_bw;  // > 0: one loopback link shared by every node, of this bandwidth
  bool paper;          // one shared link between any two nodes (else one link per node, CM02)
  bool store_forward;  // disk then network (else both at once)
  bool control;        // the job manager and its messages (paper layout)
  double control_bytes;  // bytes per message
  double shared_flow_rate;  // paper layout: bytes/s of a lone flow on the shared link
  int steps;
};

struct PieceRecord {
  int component, step, stage, piece;  // stage: 0 S, 1 W, 2 R, 3 A
  double start, end;
};

std::vector<PieceRecord> run_pieces(const PieceConfig& cfg,
                                    const std::vector<PieceComponent>& comps);

// the context factory SimGrid's configuration holds now (after a run: the one it used)
std::string context_factory();

}  // namespace coschedlab_insitu
