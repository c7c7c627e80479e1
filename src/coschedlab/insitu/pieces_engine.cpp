// See pieces_engine.hpp. The stage model and the job manager are documented in
// coschedlab/insitu/simulate.py (_run); this file is its per-piece engine, statement for
// statement in the order the actors issue their activities (SimGrid is deterministic: the same
// order gives the same timeline).
#include "pieces_engine.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>
#include <simgrid/simix.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <utility>

namespace sg4 = simgrid::s4u;

// SimGrid's own default: raw contexts where it has them (x86), else ucontext
#if defined(__x86_64__) || defined(__i386__)
#define CONTEXT_FACTORY "raw"
#else
#define CONTEXT_FACTORY "ucontext"
#endif

namespace coschedlab_insitu {

namespace {

// The shared link of the paper layout as a processor-sharing server. Every flow that crosses it
// (a remote read between two nodes, a job manager message) crosses nothing else, and LV08
// gives every such flow the same share: rate_one / m each when m flows are on it (rate_one =
// B x 0.97 / 1.05: the bandwidth factor and the 5% reverse cross-traffic on the same link).
// A flow ends when the bytes served per flow since it started (the virtual time) reach its
// size. SimGrid's LMM re-solves the link's m sharing variables at every start and end (m in
// the hundreds when a pool's reads are staggered); this costs O(log m) per event. The authors'
// job manager, whose messages are flows on this link, runs inside it (submit()).
class SharedLink {
 public:
  SharedLink(double rate_one, double control_bytes)
      : rate_one_(rate_one), control_bytes_(control_bytes) {}

  // start a flow of `bytes` now and release `done` when it ends (with `left`: when it is the
  // last of `*left` flows to end); returns `done`
  sg4::SemaphorePtr start(double bytes, sg4::SemaphorePtr done, int* left = nullptr) {
    advance();
    flows_.push({vt_ + bytes, seq_++, done, NORMAL, left});
    rearm();
    return done;
  }

  // the authors' WRENCH job manager, served by this link: one job submission at a time, a
  // request to the node's compute service (the job starts when it arrives: `go` is released)
  // and its answer, each a message of `control_bytes` over the link
  void submit(sg4::SemaphorePtr go) {
    jobs_.push_back(std::move(go));
    if (!jm_busy_) {
      advance();
      start_jm(REQUEST);
      rearm();
    }
  }

 private:
  // The server is a kernel timer, not an actor: its callback runs in SimGrid's maestro when
  // the first flow's bytes are served, ends the flows whose bytes are served (releasing their
  // waiters directly, without a simcall) and sets the timer of the next end; a start moves the
  // timer (every flow's share changes). An actor would cost a context switch and a simcall per
  // start and per end.
  void fire() {
    timer_ = nullptr;
    advance();
    bool stalled = stalled_;  // the timer was set at the current date: its flow ends now
    while (!flows_.empty() && (remaining_time(flows_.top()) <= 1e-12 || stalled)) {
      Flow f = flows_.top();
      flows_.pop();
      stalled = false;  // a remainder below the clock's resolution: ended now
      if (f.kind == NORMAL) {
        if (f.left == nullptr || --*f.left == 0)
          f.done->release();
      } else if (f.kind == REQUEST) {  // the job starts; the answer goes back
        auto go = std::move(jobs_.front());
        jobs_.pop_front();
        go->release();
        start_jm(ANSWER);
      } else if (!jobs_.empty()) {  // answered: the next submission
        start_jm(REQUEST);
      } else {
        jm_busy_ = false;
      }
    }
    rearm();
  }

  void rearm() {
    if (timer_ != nullptr) {
      timer_->remove();
      timer_ = nullptr;
    }
    if (flows_.empty())
      return;
    double now = sg4::Engine::get_clock();
    // SimGrid's own timeout (a sleep) lasts at least surf/precision: the same here
    double date = now + std::max(remaining_time(flows_.top()), min_wait_);
    stalled_ = date == now;
    timer_ = simgrid::kernel::timer::Timer::set(date, [this] { fire(); });
  }

  enum Kind { NORMAL, REQUEST, ANSWER };
  struct Flow {
    double end_vt;
    long seq;  // first started, first ended among equal ends
    sg4::SemaphorePtr done;
    Kind kind;
    int* left;  // the flows of its read still running, or none
    bool operator>(const Flow& o) const {
      return end_vt > o.end_vt || (end_vt == o.end_vt && seq > o.seq);
    }
  };

  void start_jm(Kind kind) {
    jm_busy_ = true;
    flows_.push({vt_ + control_bytes_, seq_++, nullptr, kind, nullptr});
  }

  double remaining_time(const Flow& f) const {
    return (f.end_vt - vt_) * static_cast<double>(flows_.size()) / rate_one_;
  }

  void advance() {
    double now = sg4::Engine::get_clock();
    if (!flows_.empty())
      vt_ += (now - last_) * rate_one_ / static_cast<double>(flows_.size());
    last_ = now;
  }

  double rate_one_;
  double control_bytes_;
  simgrid::kernel::timer::Timer* timer_ = nullptr;
  bool stalled_ = false;
  double min_wait_ = simgrid::config::get_value<double>("surf/precision");
  std::priority_queue<Flow, std::vector<Flow>, std::greater<Flow>> flows_;
  double vt_ = 0.0;
  double last_ = 0.0;
  long seq_ = 0;
  std::deque<sg4::SemaphorePtr> jobs_;  // the job manager's submissions, first come first served
  bool jm_busy_ = false;
};

struct State {
  const PieceConfig* cfg;
  const std::vector<PieceComponent>* comps;
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::Disk*> disks;
  bool shared_lo = false;
  // A piece's wait for the other component's pieces: an analysis piece's R(k) for the W(k) of
  // every piece of its simulation, a simulation piece's W(k) for the R(k-1) of every piece of
  // every coupled analysis. `need` passes per step open it (release its semaphore once).
  struct Gate {
    int need = 0;
    int count = 0;
    sg4::SemaphorePtr sem = sg4::Semaphore::create(0);
    void pass() {  // in maestro (see pass_all)
      if (++count == need) {
        count = 0;
        sem->release();
      }
    }
    void wait() {
      if (need > 0)
        sem->acquire();
    }
  };
  std::vector<std::vector<Gate>> gate;  // per (component, piece)

  // pass the gates of `pieces` ((component, piece) pairs flattened, or the pieces 0..n-1 of
  // component `c` when `c` >= 0) in one simcall: the releases run in maestro, in order, where
  // one simcall per release cost a context switch each (n x n' per step and analysis)
  void pass_all(const std::vector<int>* pieces, int c, size_t n) {
    if (n == 0)
      return;
    simgrid::kernel::actor::simcall_answered([this, pieces, c, n] {
      for (size_t r = 0; r < n; r++) {
        if (c >= 0)
          gate[c][r].pass();
        else
          gate[(*pieces)[2 * r]][(*pieces)[2 * r + 1]].pass();
      }
    });
  }
  std::vector<PieceRecord> records;
  std::unique_ptr<SharedLink> link;  // the paper layout's shared link (else SimGrid's links)

  double now() const { return sg4::Engine::get_clock(); }

  void record(int c, int k, int stage, double a, double b, int p) {
    records.push_back(PieceRecord{c, k, stage, p, a, b});
  }

  // one control message over the shared link (UserHost's route to every node)
  void message(const sg4::SemaphorePtr& me) { link->start(cfg->control_bytes, me)->acquire(); }

  // one piece's compute: a single-core execution of `flops`. The pieces on a node never ask
  // for more cores than it has (each component holds at least one core of every node it runs
  // on; one execution per piece), so it lasts flops / speed whatever else runs there: a wait,
  // which SimGrid handles at a fraction of an Exec's cost (an Exec's completion scans a list
  // as long as the executions running on the platform)
  void compute(double flops) { sg4::this_actor::sleep_for(flops / cfg->speed); }

  // wait for the job manager to submit this piece's next job (its parents are done)
  void submit(const sg4::SemaphorePtr& me) {
    if (!cfg->control)
      return;
    link->submit(me);
    me->acquire();
  }

  // the job's completion notice to the job manager, which then submits its children
  void done(const sg4::SemaphorePtr& me) {
    if (cfg->control)
      message(me);
  }

  void local_io(int host, uint64_t nbytes, bool write) {
    if (cfg->store_forward) {
      if (write) {
        sg4::Comm::sendto(hosts[host], hosts[host], nbytes);
        disks[host]->write(nbytes);
      } else {
        disks[host]->read(nbytes);
        sg4::Comm::sendto(hosts[host], hosts[host], nbytes);
      }
      return;
    }
    if (!shared_lo) {
      if (write)
        disks[host]->write(nbytes);
      else
        disks[host]->read(nbytes);
      return;
    }
    auto io = write ? disks[host]->write_async(nbytes) : disks[host]->read_async(nbytes);
    sg4::Comm::sendto(hosts[host], hosts[host], nbytes);
    io->wait();
  }


  // the `n` remote transfers of one read: on the shared link (one wake-up when the last
  // ends), or SimGrid comms (per-node layout)
  struct Transfers {
    explicit Transfers(size_t n) : left(static_cast<int>(n)) {}
    std::vector<sg4::CommPtr> comms;
    int left;
    sg4::SemaphorePtr done = sg4::Semaphore::create(0);
    bool on_link = false;
    void wait() {
      sg4::Comm::wait_all(comms);
      if (on_link)
        done->acquire();
    }
  };

  void remote(Transfers& tr, int src, int dst, uint64_t amount) {
    if (link) {
      tr.on_link = true;
      link->start(static_cast<double>(amount), tr.done, &tr.left);
    } else {
      tr.comms.push_back(sg4::Comm::sendto_async(hosts[src], hosts[dst], amount));
    }
  }

  void sim_piece(int c, int p) {
    const auto& comp = (*comps)[c];
    int host = comp.hosts[p];
    auto wbytes = static_cast<uint64_t>(comp.bytes);
    size_t n_readers = comp.readers.size() / 2;
    auto me = sg4::Semaphore::create(0);  // its job starts, its messages arrive
    for (int k = 1; k <= cfg->steps; k++) {
      submit(me);
      double t0 = now();
      compute(comp.flops);
      record(c, k, 0, t0, now(), p);
      done(me);
      if (k > 1)
        gate[c][p].wait();
      submit(me);
      double t2 = now();
      local_io(host, wbytes, true);
      record(c, k, 1, t2, now(), p);
      done(me);
      pass_all(&comp.readers, -1, n_readers);
    }
  }

  void ana_piece(int c, int q) {
    const auto& comp = (*comps)[c];
    const auto& sim = (*comps)[comp.sim];
    int host = comp.hosts[q];
    auto amount = static_cast<uint64_t>(comp.bytes);
    auto me = sg4::Semaphore::create(0);  // its job starts, its messages arrive
    for (int k = 1; k <= cfg->steps; k++) {
      gate[c][q].wait();
      submit(me);
      double t0 = now();
      if (comp.colocated) {
        local_io(host, amount, false);
      } else if (cfg->store_forward) {  // each read: the source's disk, then the link
        std::vector<sg4::IoPtr> ios;
        std::vector<int> srcs;
        for (int src : sim.hosts) {
          ios.push_back(disks[src]->read_async(amount));
          srcs.push_back(src);
        }
        Transfers tr(sim.hosts.size());
        while (!ios.empty()) {
          auto j = static_cast<size_t>(sg4::Io::wait_any(ios));
          ios.erase(ios.begin() + j);
          int src = srcs[j];
          srcs.erase(srcs.begin() + j);
          remote(tr, src, host, amount);
        }
        tr.wait();
      } else {
        Transfers tr(sim.hosts.size());
        for (int src : sim.hosts)
          remote(tr, src, host, amount);
        tr.wait();
      }
      record(c, k, 2, t0, now(), q);
      done(me);
      pass_all(nullptr, comp.sim, sim.hosts.size());
      submit(me);
      double t1 = now();
      compute(comp.flops);
      record(c, k, 3, t1, now(), q);
      done(me);
    }
  }
};

}  // namespace

std::vector<PieceRecord> run_pieces(const PieceConfig& cfg,
                                    const std::vector<PieceComponent>& comps) {
  std::vector<std::string> args = {"coschedlab", "--log=root.thres:critical",
                                   "--log=xbt_cfg.thres:critical",
                                   // explicit: a parent process that imported SimGrid's Python
                                   // bindings set it to `thread` for its life, and a child it
                                   // forks inherits that (runs ~6-20x slower)
                                   "--cfg=contexts/factory:" CONTEXT_FACTORY};
  if (!cfg.paper) {
    args.emplace_back("--cfg=network/model:CM02");
    args.emplace_back("--cfg=network/crosstraffic:0");
  }
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  // never destroyed: tearing the platform and the actors down took 5% of a run, and the
  // process runs one Engine in its life (SimGrid allows one per process)
  auto* e = new sg4::Engine(&argc, argv.data());

  State st;
  st.cfg = &cfg;
  st.comps = &comps;
  auto* zone = sg4::create_full_zone("cluster");
  for (int i = 0; i < cfg.n_hosts; i++) {
    auto* h = zone->create_host("node-" + std::to_string(i), cfg.speed);
    h->set_core_count(cfg.cores);
    st.hosts.push_back(h);
  }
  sg4::Link* shared_lo = nullptr;
  if (cfg.shared_loopback_bw > 0) {
    shared_lo = zone->create_link("loopback", cfg.shared_loopback_bw)->set_latency(0);
    shared_lo->seal();
    st.shared_lo = true;
  }
  for (int i = 0; i < cfg.n_hosts; i++) {
    auto* h = st.hosts[i];
    st.disks.push_back(
        h->create_disk("disk-" + std::to_string(i), cfg.disk_bw, cfg.disk_bw)->seal());
    sg4::Link* local = shared_lo;
    if (local == nullptr) {
      local = zone->create_link("loopback-" + std::to_string(i), cfg.loopback_bw);
      local->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
      local->set_latency(0)->seal();
    }
    zone->add_route(h->get_netpoint(), h->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(local)}, false);
  }
  // paper layout: the shared link is SharedLink (its routes would carry nothing)
  if (!cfg.paper) {
    std::vector<sg4::Link*> own;
    for (int i = 0; i < cfg.n_hosts; i++) {
      auto* l = zone->create_link("link-" + std::to_string(i), cfg.bandwidth)
                    ->set_latency(cfg.latency / 2);
      l->seal();
      own.push_back(l);
    }
    for (int i = 0; i < cfg.n_hosts; i++)
      for (int j = i + 1; j < cfg.n_hosts; j++)
        zone->add_route(st.hosts[i]->get_netpoint(), st.hosts[j]->get_netpoint(), nullptr,
                        nullptr, {sg4::LinkInRoute(own[i]), sg4::LinkInRoute(own[j])}, true);
  }
  zone->seal();

  st.gate.resize(comps.size());
  for (size_t c = 0; c < comps.size(); c++) {
    const auto& comp = comps[c];
    int need = static_cast<int>(comp.is_sim ? comp.readers.size() / 2
                                            : comps[comp.sim].hosts.size());
    st.gate[c].resize(comp.hosts.size());
    for (auto& g : st.gate[c])
      g.need = need;
  }
  State* s = &st;
  for (int pass = 0; pass < 2; pass++)  // the simulations' pieces first, then the analyses'
    for (size_t c = 0; c < comps.size(); c++) {
      if (comps[c].is_sim != (pass == 0))
        continue;
      for (size_t p = 0; p < comps[c].hosts.size(); p++) {
        int ci = static_cast<int>(c);
        int pi = static_cast<int>(p);
        std::string name = std::string(pass == 0 ? "sim-" : "ana-") + std::to_string(c) + "-" +
                           std::to_string(p);
        if (pass == 0)
          sg4::Actor::create(name, st.hosts[comps[c].hosts[p]], [s, ci, pi] { s->sim_piece(ci, pi); });
        else
          sg4::Actor::create(name, st.hosts[comps[c].hosts[p]], [s, ci, pi] { s->ana_piece(ci, pi); });
      }
    }
  if (cfg.paper) {  // the shared link's server, on a host of its own (it uses no resource)
    st.link = std::make_unique<SharedLink>(cfg.shared_flow_rate, cfg.control_bytes);
  }
  e->run();
  return std::move(st.records);
}

std::string context_factory() {
  return simgrid::config::get_value<std::string>("contexts/factory");
}

}  // namespace coschedlab_insitu
