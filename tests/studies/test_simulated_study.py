"""The study manager and the simulated executor: invariants over random studies, the seed's
known facts (36 -> 24 runs, 34.3-minute runs, one run per reuse class first), the preemption
rule, the result store's nearest-in-class query against a brute force."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.studies import DesignSpace, parse_scaling
from coschedlab.studies.manager import CONFIGS, Config, beneficial
from coschedlab.studies.model import WorkModel, unit_coords
from coschedlab.studies.reproduce import table5
from coschedlab.studies.result import load_result
from coschedlab.studies.simulate import simulate_study
from coschedlab.studies.spec import load_spec
from coschedlab.studies.store import ResultStore, StoredRun

SEED_TABLE = parse_scaling("4:1.95,8:1.14,16:0.80,32:0.60,64:1.82")
HELIUM = DesignSpace.of(
    {"prandtl": [0.2, 0.3, 0.4, 0.5, 0.6, 0.7], "velocity": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]}
)
SCALE = 34.3 * 60 / (2900 * 0.60)


def helium(**kw) -> WorkModel:
    return WorkModel(HELIUM, SEED_TABLE, time_scale=SCALE, targets=((0, 0.2), (0.5, 0.8)), **kw)


def run(model, config, procs=32, per_run=32, **kw):
    return simulate_study(model, CONFIGS[config] if isinstance(config, str) else config, procs,
                          per_run, reuse=("velocity",), **kw)  # fmt: skip


def check_invariants(result, model, procs, config, reuse_axes=(1,)):
    """What every simulated study keeps."""
    # no worker serves two runs at once; workers exist
    by_worker = defaultdict(list)
    for s in result.segments:
        assert 0 <= s.worker < procs
        assert s.end >= s.start
        by_worker[s.worker].append((s.start, s.end))
    for bars in by_worker.values():
        bars.sort()
        for (_, e1), (s2, _) in itertools.pairwise(bars):
            assert s2 >= e1 - 1e-9, "a worker served two runs at once"
    # every design once; each run ends after it starts
    designs = [tuple(r["design"]) for r in result.records]
    assert len(designs) == len(set(designs))
    ends = {tuple(r["design"]): r["end"] for r in result.records}
    for r in result.records:
        assert r["end"] > r["start"]
        if r["source"] is None:
            continue
        # reuse only within the class, of a run that had finished
        assert config.reuse
        src = tuple(r["source"])
        assert all(src[a] == r["design"][a] for a in reuse_axes)
        assert ends[src] <= r["start"] + 1e-9
    # timesteps: from scratch or from a checkpoint, as the model says
    for r in result.records:
        assert r["steps"] == model.steps(tuple(r["design"]), r["source"] is not None)
    # every preemption obeyed alpha < 1 - sigma and grew the group
    for r in result.records:
        for _, old, new, sigma, alpha in r["moves"]:
            assert new > old and alpha < 1 - sigma
            assert 0 <= sigma < 1
    # a preempted run claims only workers of the idle-process database: each had served a
    # run that finished (a worker leaves a run only when it ends) and none since
    runs = {r["run"]: r for r in result.records}
    bars_of = defaultdict(list)
    for seg in result.segments:
        bars_of[seg.run].append(seg)
    for r in result.records:
        for t, *_ in r["moves"]:
            before = {s.worker for s in bars_of[r["run"]] if s.end == t}
            after = {s.worker for s in bars_of[r["run"]] if s.start == t}
            assert before < after
            for w in after - before:
                prior = [s for s in result.segments if s.worker == w and s.end <= t + 1e-9]
                assert prior, f"worker {w} joined run {r['run']} without having served a run"
                last = max(prior, key=lambda s: s.end)
                assert last.run != r["run"] and runs[last.run]["end"] == last.end
    m = result.metrics
    assert 0 < m["utilization"] <= 1 + 1e-9


@settings(max_examples=60, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 6), st.integers(1, 6)),
    procs=st.sampled_from([4, 8, 12, 32, 40, 64]),
    config=st.sampled_from(list("OABCDE")),
    spread=st.floats(0, 1),
    seed=st.integers(0, 2**16),
    every=st.integers(1, 400),
    restart=st.floats(0, 300),
)
def test_random_studies_keep_every_invariant(shape, procs, config, spread, seed, every, restart):
    space = DesignSpace.of({"a": list(range(shape[0])), "b": list(range(shape[1]))})
    model = WorkModel(space, SEED_TABLE, spread=spread, seed=seed,
                      targets=((0.1, 0.9), (0.8, 0.3)))  # fmt: skip
    per_run = SEED_TABLE.group(1, procs)
    cfg = CONFIGS[config]
    r = simulate_study(model, cfg, procs, per_run, reuse=("b",), checkpoint_every=every,
                       restart=restart)  # fmt: skip
    check_invariants(r, model, procs, cfg)
    if cfg.sampler == "grid":
        assert len(r.records) == shape[0] * shape[1]
    again = simulate_study(model, cfg, procs, per_run, reuse=("b",), checkpoint_every=every,
                           restart=restart)  # fmt: skip
    assert again.records == r.records and again.segments == r.segments  # deterministic


def test_the_active_sampler_runs_24_of_the_36_helium_designs():
    assert len(run(helium(), "O").records) == 36
    assert len(run(helium(), "A").records) == 24


def test_configuration_o_is_36_runs_of_34_3_minutes_on_32_workers():
    r = run(helium(), "O")
    m = r.metrics
    assert m["mean_run_time"] / 60 == pytest.approx(34.3, rel=1e-3)
    assert m["total_time"] == pytest.approx(36 * 34.3 * 60, rel=1e-3)  # 20 h 35 min
    assert m["utilization"] == pytest.approx(1.0)


def test_on_64_workers_o_runs_two_at_a_time():
    r = run(helium(), "O", procs=64)
    starts = sorted(rec["start"] for rec in r.records)
    assert starts[0] == starts[1] == 0.0
    assert r.metrics["total_time"] < 0.55 * run(helium(), "O").metrics["total_time"]


def test_reuse_needs_a_finished_run_of_the_same_class():
    r = run(helium(), "B")
    classes_started = set()
    for rec in sorted(r.records, key=lambda x: x["start"]):
        v = rec["design"][1]
        # one at a time on 32 workers: the first run of each class starts from scratch
        assert (rec["source"] is None) == (v not in classes_started)
        classes_started.add(v)
    assert r.metrics["mean_run_time"] < run(helium(), "A").metrics["mean_run_time"]


def test_reuse_class_first_batches_one_run_per_class():
    r = run(helium(), "D")
    first_batch = [rec for rec in r.records if rec["batch"] == 1]
    classes = [rec["design"][1] for rec in first_batch]
    assert len(classes) == len(set(classes)) >= 2
    assert all(rec["source"] is None for rec in first_batch)
    # afterwards no run of a class that has finished starts from scratch
    done_classes = {}
    for rec in r.records:
        done_classes.setdefault(rec["design"][1], rec["end"])
    for rec in r.records:
        if rec["start"] >= done_classes[rec["design"][1]]:
            assert rec["source"] is not None


def test_batching_follows_the_optimal_split():
    # 9 coarse designs on 32 processors: the optimal split issues 1 run on 32, then 8 on 4
    r = run(helium(), "C")
    first = [rec for rec in r.records if rec["batch"] == 1]
    second = [rec for rec in r.records if rec["batch"] == 2]
    assert [rec["first_procs"] for rec in first] == [32]
    assert len(second) == 8 and {rec["first_procs"] for rec in second} == {4}
    # a batch starts only when the previous one has finished
    assert min(rec["start"] for rec in second) == pytest.approx(first[0]["end"])


def test_each_configuration_improves_on_32_workers():
    df = table5(load_spec(_bundled()), workers=(32,))
    totals = list(df.total_min)
    assert all(a > b for a, b in itertools.pairwise(totals)), totals
    # our model of the seed's study lands within 25% of every published total
    err = (df.total_min - df.paper_total_min).abs() / df.paper_total_min
    assert err.max() < 0.25, df[["config", "total_min", "paper_total_min"]]


def test_preemption_fills_holes():
    d = run(helium(), "D").metrics
    e = run(helium(), "E").metrics
    assert e["preemptions"] > 0 and e["utilization"] > d["utilization"]
    assert e["total_time"] < d["total_time"]


@pytest.mark.parametrize(
    ("alpha", "sigma", "move"),
    [(0.5, 0.0, True), (0.5, 0.49, True), (0.5, 0.5, False), (0.5, 0.6, False),
     (0.99, 0.0, True), (1.0, 0.0, False), (0.7, 0.3 - 1e-9, True)],
)  # fmt: skip
def test_the_preemption_rule_is_alpha_below_one_minus_sigma(alpha, sigma, move):
    assert beneficial(alpha, sigma) is move


def test_a_run_moves_only_when_the_rule_holds_then_at_its_next_checkpoint():
    # one run of 1000 steps on 4 of 8 processors (a batch of 2 designs gets 4 each; the
    # other design is short): when the short one ends, sigma decides.
    table = parse_scaling("4:1.0,8:0.6")
    space = DesignSpace.of({"a": [0, 1]})
    cfg = Config("x", "grid", batching=True, preempt=True)
    for every, restart in ((100, 0.0), (300, 0.0), (100, 50.0)):
        model = WorkModel(space, table, spread=0.9, seed=3, targets=((0.0,), (1.0,)))
        r = simulate_study(model, cfg, 8, 8, checkpoint_every=every, restart=restart)
        long, short = sorted(r.records, key=lambda x: -x["steps"])
        assert long["first_procs"] == 4 and len(long["moves"]) == 1
        t, old, new, sigma, alpha = long["moves"][0]
        assert (old, new, alpha) == (4, 8, pytest.approx(0.6))
        done = short["end"]  # the long run had done `done` steps at 1 s each
        expected_sigma = (done % every) / every
        if expected_sigma < 0.4:  # moves at once
            assert t == pytest.approx(done) and sigma == pytest.approx(expected_sigma)
        else:  # waits for its next checkpoint
            assert t == pytest.approx(math.ceil(done / every) * every) and sigma == pytest.approx(0)
        lost = long["lost_steps"]
        assert lost == pytest.approx(sigma * every)
        # the run ends when the steps left after the checkpoint run at 0.6 s, plus restart
        ckpt = math.floor(t / every + 1e-9) * every
        assert long["end"] == pytest.approx(t + restart + (long["steps"] - ckpt) * 0.6)


def test_workers_no_run_has_used_are_not_claimed():
    # two designs in one batch on 4 of 12 processors each: 4 workers no run uses. The paper's
    # idle-process database holds only "a process group [that] finishes its simulation and
    # is not assigned a new one" (Section 4.4): the long run moves only when the short one
    # ends, and onto its workers only (all 8 free ones would give it 12).
    table = parse_scaling("4:1.0,8:0.6,12:0.5")
    space = DesignSpace.of({"a": [0, 1]})
    cfg = Config("x", "grid", batching=True, preempt=True)
    model = WorkModel(space, table, spread=0.9, seed=3, targets=((0.0,), (1.0,)))
    r = simulate_study(model, cfg, 12, 8)
    long, short = sorted(r.records, key=lambda x: -x["steps"])
    assert long["first_procs"] == 4 and long["last_procs"] == 8
    assert long["moves"][0][0] >= short["end"]
    assert {s.worker for s in r.segments} == set(range(8))  # 8-11 never served a run
    check_invariants(r, model, 12, cfg, reuse_axes=())


@pytest.mark.parametrize(("alpha", "moves"), [("scaling", False), ("perfect-scaling", True)])
def test_alpha_by_the_table_or_assuming_perfect_scaling(alpha, moves):
    # a batch of 2 on 32 of 64 processors each; the short run ends and its 32 workers enter
    # the idle database. Table 4 makes 64 processors 3x slower than 32 (alpha 3.03: stay);
    # the paper's "assuming perfect scaling, alpha = original / expanded group size" is 0.5.
    space = DesignSpace.of({"a": [0, 1]})
    cfg = Config("x", "grid", batching=True, preempt=True)
    model = WorkModel(space, SEED_TABLE, spread=0.9, seed=3, targets=((0.0,), (1.0,)))
    r = simulate_study(model, cfg, 64, 32, alpha=alpha)
    long, short = sorted(r.records, key=lambda x: -x["steps"])
    assert long["first_procs"] == 32
    assert bool(long["moves"]) is moves
    if moves:
        (t, old, new, sigma, a), *_ = long["moves"]
        assert (old, new, a) == (32, 64, 0.5) and t >= short["end"]
        assert long["end"] > short["end"] + (long["steps"] - short["end"] / 0.6) * 0.6


def test_an_unknown_alpha_is_refused():
    with pytest.raises(InputError, match="alpha must be one of scaling, perfect-scaling"):
        simulate_study(helium(), CONFIGS["E"], 32, 32, alpha="ideal")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(0, 4)), min_size=1,
             max_size=25, unique_by=lambda t: t),
    st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(0, 4)),
)  # fmt: skip
def test_nearest_in_class_equals_brute_force(done, query):
    space = DesignSpace.of({"x": range(5), "c": range(4), "y": range(5)})
    store = ResultStore(space, reuse=("c",))
    for d in done:
        store.add(StoredRun(d, (0.0,), 1, None, {}))
    same = [d for d in done if d[1] == query[1]]
    got = store.nearest(query)
    if not same:
        assert got is None
        return
    dist = [float(np.sum((unit_coords(space, d) - unit_coords(space, query)) ** 2)) for d in same]
    best = min(dist)
    assert got == same[dist.index(best)]  # the nearest, the first stored on a tie
    assert got[1] == query[1]


def test_the_store_persists_and_reopens(tmp_path):
    path = tmp_path / "s.sqlite"
    store = ResultStore(HELIUM, reuse=("velocity",), path=path)
    store.add(StoredRun((0, 1), (1.0, 2.0), 10, "ck.npz", {"run": 0}))
    store.close()
    again = ResultStore(HELIUM, reuse=("velocity",), path=path)
    assert (0, 1) in again and again.get((0, 1)).checkpoint == "ck.npz"
    assert again.nearest((3, 1)) == (0, 1) and again.nearest((3, 2)) is None
    (tmp_path / "bad.sqlite").write_text("not a database at all" * 100)
    with pytest.raises(InputError, match="not a study result store"):
        ResultStore(HELIUM, path=tmp_path / "bad.sqlite")


def test_a_result_saves_and_loads(tmp_path):
    r = run(helium(), "E")
    r.save(tmp_path / "e")
    back = load_result(tmp_path / "e")
    assert back.metrics["total_time"] == pytest.approx(r.metrics["total_time"])
    assert back.metrics["utilization"] == pytest.approx(r.metrics["utilization"])
    assert len(back.segments) == len(r.segments)
    with pytest.raises(Exception, match="already holds a result"):
        r.save(tmp_path / "e")


def _bundled():
    from importlib.resources import files

    return str(files("coschedlab") / "data" / "helium_study.yaml")


@settings(max_examples=40, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 8), st.integers(1, 8)),
    procs=st.sampled_from([4, 8, 32, 40, 64, 100]),
    seed=st.integers(0, 2**16),
)
def test_configuration_o_equals_textbook_list_scheduling(shape, procs, seed):
    """An independent oracle: every design in grid order on the first free group of
    per_run processors (a heap of group end times)."""
    import heapq

    space = DesignSpace.of({"a": list(range(shape[0])), "b": list(range(shape[1]))})
    model = WorkModel(space, SEED_TABLE, spread=0.5, seed=seed, targets=((0, 0), (1, 1)))
    per_run = SEED_TABLE.group(1, procs)
    groups = [0.0] * (procs // per_run)
    end = 0.0
    for d in space.designs():
        start = heapq.heappop(groups)
        finish = start + model.steps(d, False) * model.step_time(per_run)
        end = max(end, finish)
        heapq.heappush(groups, finish)
    r = simulate_study(model, CONFIGS["O"], procs, per_run)
    assert r.metrics["total_time"] == pytest.approx(end, rel=1e-12)


def test_a_scaling_model_becomes_a_table(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(
        "design: {a: [1, 2, 3], b: [1, 2]}\n"
        "objectives: [f, g]\n"
        "scaling: {amdahl: {seconds: 2.0, serial: 0.1, overhead: 0.01}, counts: [1, 2, 4, 8]}\n"
        "processors: 8\n"
        "model: {targets: [[0, 0], [1, 1]]}\n"
    )
    s = load_spec(spec)
    assert dict(s.scaling.seconds) == pytest.approx(
        {1: 2.0, 2: 2.0 * 0.55 + 0.01, 4: 2.0 * 0.325 + 0.02, 8: 2.0 * 0.2125 + 0.03}
    )
    assert s.per_run == 8  # the fastest count
    spec.write_text(spec.read_text().replace("serial: 0.1", "serial: 1.5"))
    with pytest.raises(InputError, match=r"s.yaml:3: 'scaling.amdahl.serial' must be"):
        load_spec(spec)
