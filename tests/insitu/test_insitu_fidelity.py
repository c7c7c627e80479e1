"""Agreement with the authors' in situ simulator (Analytics4MD/insitu-ensemble-simulator).

Known-answer stage timelines computed by hand for tiny ensembles, the two engines agreeing within
1% on every scenario, the authors' allocation rules (their solver/scheduler.py) on hand-checked
cases, and the authors' published runs (docs/insitu_reproduction/authors/) as data.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.insitu.allocation import authors_allocation, pool_order
from coschedlab.insitu.authors import (
    authors_runs,
    leave_one_out,
    poisson_binomial,
    replication_band,
)
from coschedlab.insitu.mapping import SCENARIOS, scenario_mapping
from coschedlab.insitu.plan import make_plan
from coschedlab.insitu.rounding import threshold_round
from coschedlab.insitu.simulate import (
    AUTHORS_STAGES,
    LV08_LONE_FLOW,
    check_dependencies,
    read_flows,
    simulate,
)
from coschedlab.insitu.spec import ensemble_from_dict, generate_ensemble


def tiny(pool_nodes: int, steps: int = 3) -> object:
    """One simulation S (8 GFLOP, 1 GB per step) with A1 beside it and A2 in the pool, on
    1 + ``pool_nodes`` nodes of 4 cores at 1 GFLOP/s, B = 1 GB/s."""
    return ensemble_from_dict(
        {
            "platform": {"nodes": 1 + pool_nodes, "cores": 4, "core_speed": 1.0, "bandwidth": 1.0},
            "n_steps": steps,
            "simulations": [{"name": "S", "work": 8.0, "data": 1.0}],
            "analyses": [
                {"name": "A1", "simulation": "S", "work": 4.0},
                {"name": "A2", "simulation": "S", "work": 4.0 * pool_nodes},
            ],
            "mapping": {"A2": "pool"},
            "allocation": {
                "S": {"nodes": 1, "cores": {"S": 2, "A1": 2}},
                "pool": {"nodes": pool_nodes, "cores": {"A2": 4}},
            },
        }
    )


def hand_timeline(
    a2_disk: float, steps: int = 3
) -> dict[tuple[str, int, str], tuple[float, float]]:
    """The stage timeline of :func:`tiny` worked out by hand.

    Store and forward (the authors' storage service with a full buffer): W = loopback then disk
    = 1 GB / (1000 GB/s x 0.97) + 1 GB / 100 GB/s. After W(k), node 0's disk serves two
    reads at once: A1's local 1 GB (then the loopback) and the 1 GB A2 reads from node 0 (then
    the link: 1 GB at B x 0.97/1.05, n' flows of V/n' ending together). 2 GB at 100 GB/s end
    at 0.02 s; A2's part ends at ``a2_disk`` (0.02 s, or earlier when its n' pieces share the
    disk flow by flow). S = 8/2 = 4 s, A1 = 4/2 = 2 s, A2 = 1 s. W(k) waits for S(k) and R(k-1)
    of both analyses; R(k) for W(k) and its own A(k-1); S(k+1) for W(k) only."""
    loop = 0.001 / 0.97  # LV08: no reverse cross-traffic on a host's route to itself
    w = 0.01 + loop
    r_local = 0.02 + loop
    r_remote = a2_disk + 1.0 / LV08_LONE_FLOW
    out: dict[tuple[str, int, str], tuple[float, float]] = {}
    w_end = 0.0
    a_end = {"A1": 0.0, "A2": 0.0}
    r_end = {"A1": 0.0, "A2": 0.0}
    for k in range(1, steps + 1):
        s0 = w_end
        out[("S", k, "S")] = (s0, s0 + 4.0)
        w0 = max(s0 + 4.0, *r_end.values())
        w_end = w0 + w
        out[("S", k, "W")] = (w0, w_end)
        for a, rd, comp in (("A1", r_local, 2.0), ("A2", r_remote, 1.0)):
            r0 = max(w_end, a_end[a])
            r_end[a] = r0 + rd
            a_end[a] = r_end[a] + comp
            out[(a, k, "R")] = (r0, r_end[a])
            out[(a, k, "A")] = (r_end[a], a_end[a])
    return out


@pytest.mark.parametrize("engine", ["ptask", "activities"])
@pytest.mark.parametrize("pool_nodes", [1, 2])
def test_known_answer_stage_timeline(engine, pool_nodes):
    plan = make_plan(tiny(pool_nodes))
    # without the job manager's messages (microseconds on this 1 GB/s link)
    res = simulate(plan, "paper", engine, control=False if engine == "activities" else None)
    # ptask shares the disk task by task (A2's reads are one task): 0.02 s; activities flow by
    # flow: n' + 1 equal shares, A2's n' pieces of 0.5 GB end at 3 x 0.5 / 100 = 0.015 s
    a2_disk = 0.015 if (engine == "activities" and pool_nodes == 2) else 0.02
    want = hand_timeline(a2_disk)
    got = {(c, k, s): (a, b) for c, k, s, a, b in res.records}
    assert set(got) == set(want)
    for key, (a, b) in want.items():
        assert got[key][0] == pytest.approx(a, abs=1e-6), key
        assert got[key][1] == pytest.approx(b, abs=1e-6), key
    assert res.makespan == pytest.approx(max(b for _, b in want.values()), abs=1e-6)
    # the pool analysis ends last: after 3 steps of S + W and its R + A
    w = 0.01 + 0.001 / 0.97
    assert res.makespan == pytest.approx(12 + 3 * w + a2_disk + 1 / LV08_LONE_FLOW + 1, abs=1e-6)


def test_authors_stage_names_and_job_names():
    assert AUTHORS_STAGES == {
        "S": "compute",
        "W": "data_write",
        "R": "data_read",
        "A": "analysis",
    }
    res = simulate(make_plan(tiny(2, steps=2)), "paper", "activities")
    rows = res.timeline(make_plan(tiny(2, steps=2)))
    names = {r["job"] for r in rows}
    assert "member_S_compute_job_step_1_node_0" in names
    assert "member_S_A2_data_read_job_step_2_node_2" in names
    assert {r["stage"] for r in rows} == set(AUTHORS_STAGES.values())
    # per-node rows: the simulation on node 0, A2 on nodes 1 and 2
    assert {r["node"] for r in rows if r["analysis"] == "A2"} == {1, 2}


def test_remote_reads_go_from_every_simulation_node_to_every_analysis_node():
    # the authors' Controller (the version behind their published runs): each analysis node
    # reads V/(n n') from each simulation node, so every simulation node serves V/n, even when
    # n' is not a multiple of n (the round robin of their first version loaded 4 and 5 unevenly)
    flows = read_flows([4, 5, 6], [7, 8], 12.0)
    assert sorted((s, d) for s, d, _ in flows) == [(s, d) for s in (4, 5, 6) for d in (7, 8)]
    assert {b for _, _, b in flows} == {2.0}
    served = {s: sum(b for x, _, b in flows if x == s) for s in (4, 5, 6)}
    assert served == {4: 4.0, 5: 4.0, 6: 4.0}
    assert read_flows([9], [1, 2, 3], 3.0) == [(9, 1, 1.0), (9, 2, 1.0), (9, 3, 1.0)]


@settings(max_examples=8, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 4),
    st.integers(0, 6),
    st.sampled_from(SCENARIOS),
    st.sampled_from([("co", "co"), ("ev", "co"), ("co", "ev"), ("ev", "ev")]),
    st.integers(0, 1000),
)
def test_engines_agree_within_one_percent(s, a, extra, scenario, pair, seed):
    # mixed node counts (co node heuristic gives unequal groups): both engines move each
    # analysis node's share V/n' in one flow from one simulation node, as the authors do;
    # with fluid I/O every piece of a component sees the same conditions, so the parallel
    # tasks of `ptask` are exact
    ens = generate_ensemble(s, a, 4.0, s + 1 + extra, seed=seed, steps=5)
    plan = make_plan(ens, scenario, *pair)
    fast = simulate(plan, "paper", "ptask", io="fluid")
    slow = simulate(plan, "paper", "activities", io="fluid", control=False)
    assert fast.makespan == pytest.approx(slow.makespan, rel=0.01)
    assert check_dependencies(slow, plan) == [] and check_dependencies(fast, plan) == []


@pytest.mark.parametrize("scenario", ["ideal", "in-transit"])
@pytest.mark.parametrize("nodes", [8, 16])
def test_engines_agree_store_and_forward_with_even_reads(scenario, nodes):
    # store and forward with every simulation node serving the same reads: IDEAL (none) and
    # IN-TRANSIT with one node per simulation; uneven round robins let per-node pieces drift
    # apart in `activities` (as WRENCH's per-node jobs do), which `ptask` only approximates
    ens = generate_ensemble(4, 4, 4.0, nodes, seed=1, steps=8)
    plan = make_plan(ens, scenario)
    fast = simulate(plan, "paper", "ptask").makespan
    slow = simulate(plan, "paper", "activities", control=False).makespan
    assert fast == pytest.approx(slow, rel=0.01)


def test_engines_agree_on_increasing_25_with_mixed_node_counts():
    # the case that differed by 22% when the literal engine sent n x n' flows per analysis
    ens = generate_ensemble(4, 4, 4.0, 16, seed=1, steps=8)
    plan = make_plan(ens, "increasing-25")
    assert len({b.nodes for b in plan.allocation.blocks}) > 1
    fast = simulate(plan, "paper", "ptask", io="fluid").makespan
    slow = simulate(plan, "paper", "activities", io="fluid", control=False).makespan
    assert fast == pytest.approx(slow, rel=0.01)


# --- the authors' allocation rules (solver/scheduler.py, allocate) -------------------------


def test_threshold_round_known_answers():
    # floors [2, 2, 1, 1], 2 units left: k = 4 - 2 = 2 smallest priorities rounded down
    assert threshold_round([2.2, 2.1, 1.9, 1.8], 8, [4, 3, 2, 1]) == [3, 3, 1, 1]
    # ties: a stable ascending sort rounds the EARLIER item down
    assert threshold_round([1.5, 1.5], 3, [1, 1]) == [1, 2]
    # a value below 1 goes up without counting; the largest item gives the unit back
    assert threshold_round([0.5, 1.5, 2.0], 4, [1, 2, 3]) == [1, 1, 2]
    # their last scheduler rejects this (two values below 1 go up: one unit too many); their
    # published runs hold such cases, so the unit comes back from the largest item
    assert threshold_round([0.4, 0.6, 3.0], 4, [1, 2, 3]) == [1, 1, 2]
    assert threshold_round([0.41] * 3 + [2.77], 4, [1, 1, 1, 5]) == [1, 1, 1, 1]
    with pytest.raises(InputError, match="at least 1"):
        threshold_round([0.5, 0.5, 0.5], 2, [1, 2, 3])


def _ens(nodes, sims, pool_works=(), cores=128, bandwidth=6.0):
    """Simulations (work per simulation, co-scheduled analysis works) and pool analyses."""
    simulations, analyses, mapping = [], [], {}
    for i, (w, anas) in enumerate(sims, 1):
        simulations.append({"name": f"s{i}", "work": w, "data": 4.0})
        for j, aw in enumerate(anas, 1):
            analyses.append({"name": f"s{i}a{j}", "simulation": f"s{i}", "work": aw})
    for j, (sim, aw) in enumerate(pool_works, 1):
        analyses.append({"name": f"p{j}", "simulation": sim, "work": aw})
        mapping[f"p{j}"] = "pool"
    return ensemble_from_dict(
        {
            "platform": {"nodes": nodes, "cores": cores, "core_speed": 1.0, "bandwidth": bandwidth},
            "n_steps": 1,
            "simulations": simulations,
            "analyses": analyses,
            "mapping": mapping,
        }
    )


def test_authors_pool_rounding_compares_floor_and_ceiling():
    # equal data: U = C V = 512; T_NC = 100, T_SC = 300, B = 6:
    # n_NC = 16 (600 + 512) / (2400 + 512) = 6.107 -> ceil 7 gives max(300/9, 1112/42) = 33.3,
    # floor 6 gives max(300/10, 1112/36) = 30.9 -> floor
    ens = _ens(16, [(300.0, [])], [("s1", 100.0)])
    m = scenario_mapping(ens, "in-transit")
    alloc = authors_allocation(ens, m, 6.0)
    assert alloc.block("pool").nodes == 6 and alloc.block("s1").nodes == 10
    # ev: pool = N - floor(N / (S + 1)) S = 16 - 8 = 8
    ev = authors_allocation(ens, m, 6.0, "ev", "ev")
    assert ev.block("pool").nodes == 8 and ev.block("s1").nodes == 8


def test_authors_rounding_keeps_one_node_per_simulation():
    # n_NC = 10 (600 + 512)/(660 + 512) = 9.49 > N - 1 -> floor 9 -> clamp to N - S = 8
    ens = _ens(10, [(5.0, []), (5.0, [])], [("s1", 50.0), ("s2", 50.0)])
    alloc = authors_allocation(ens, scenario_mapping(ens, "in-transit"), 6.0)
    assert [b.nodes for b in alloc.blocks] == [1, 1, 8]


def test_authors_even_split_gives_remainders_to_the_last():
    # 3 simulations on 11 nodes, no pool (IDEAL): floor(11/3) = 3, the LAST two get 4
    ens = _ens(11, [(100.0, [10.0, 20.0]), (100.0, [10.0]), (100.0, [10.0])])
    alloc = authors_allocation(ens, scenario_mapping(ens, "ideal"), 6.0, "ev", "ev")
    assert [b.nodes for b in alloc.blocks] == [3, 4, 4]
    # cores: 128 over 3 components: the simulation keeps floor 42, the analyses 43 each
    assert dict(alloc.block("s1").cores) == {"s1": 42, "s1a1": 43, "s1a2": 43}
    # 128 over 2 components: 64 each
    assert dict(alloc.block("s2").cores) == {"s2": 64, "s2a1": 64}


def test_authors_pool_order_follows_the_scenario_pick_order():
    ens = generate_ensemble(2, 3, 4.0, 8, seed=3)
    for scenario, sign in (("increasing-50", 1), ("decreasing-50", -1)):
        m = scenario_mapping(ens, scenario)
        order = pool_order(ens, m)
        assert set(order) == set(m.pool())
        work = {a.name: a.work for a in ens.analyses}
        sims = [next(a.simulation for a in ens.analyses if a.name == x) for x in order]
        assert sims == sorted(sims)  # by simulation first
        for s in set(sims):
            mine = [work[x] for x, y in zip(order, sims, strict=True) if y == s]
            assert mine == sorted(mine, reverse=sign < 0)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 6),
    st.integers(0, 40),
    st.floats(0.5, 16.0),
    st.sampled_from(SCENARIOS),
    st.sampled_from([("co", "co"), ("ev", "co"), ("co", "ev"), ("ev", "ev")]),
    st.sampled_from(["B", "B3"]),
    st.integers(0, 10_000),
)
def test_authors_allocation_sums_or_refuses(s, a, extra, v, scenario, pair, bw, seed):
    ens = generate_ensemble(s, a, v, s + 1 + extra, seed=seed)
    try:
        plan = make_plan(ens, scenario, *pair, alloc_bandwidth=bw)
    except InputError as exc:
        assert "cannot" in exc.what
        return
    alloc = plan.allocation
    assert sum(b.nodes for b in alloc.blocks) == ens.platform.nodes
    for b in alloc.blocks:
        assert b.nodes >= 1 and sum(k for _, k in b.cores) == ens.platform.cores
        assert all(k >= 1 for _, k in b.cores)


# --- the authors' published runs -----------------------------------------------------------


def test_published_reference_points_are_the_authors_fig4_means():
    # REFERENCE.md's points (S=4, A=4, V=4; CO/CO; 5 trials) are the means of data_new.csv
    df = authors_runs("fig4")
    co = df[(df.S == 4) & (df.A == 4) & (df.V == 4) & (df.node == "co") & (df.core == "co")]
    means = co.groupby(["scenario", "N"]).simulated.mean().round(1)
    assert means["ideal"].to_dict() == {8: 510.0, 16: 180.4, 32: 81.4, 64: 36.3, 128: 18.3}
    assert means["in-transit"].to_dict() == {
        8: 1168.5,
        16: 1164.0,
        32: 1164.4,
        64: 1161.7,
        128: 1166.0,
    }
    assert len(df) == 3200 and df.groupby(["S", "A", "V", "N"]).trial.max().eq(5).all()


def test_authors_table2_data_is_consistent():
    df = authors_runs("table2")
    ok = df.dropna(subset=["simulated", "model_B", "model_B3"])
    assert len(ok) > 2000
    # IDEAL: every bandwidth model gives the same makespan (no remote transfer)
    ideal = ok[ok.scenario == "ideal"]
    assert (ideal.model_B == ideal.model_B3).all()
    ratio = ideal.simulated / ideal.model_B
    assert ratio.min() >= 1.0 and ratio.max() <= 1.2


def test_comparison_of_the_authors_with_themselves_is_exact():
    from coschedlab.insitu.authors import compare, comparison_markdown

    runs = authors_runs("fig4")
    ours = runs.rename(columns={"simulated": "simulated_makespan"}).assign(
        key=lambda d: d.index.astype(str)
    )
    cmp = compare(ours, "fig4")
    assert len(cmp) == 20 * 8 * 4
    assert cmp["deviation_pct"].abs().max() < 1e-9
    assert cmp["ratio_deviation_pct"].abs().max() < 1e-9
    text = comparison_markdown(cmp)
    assert "| 4 | 4 | 4 | 16 | in-transit | 1164.0±3.8 / 1164.0±3.8 (+0.0%)" in text
    with pytest.raises(InputError, match="unknown data set"):
        authors_runs("fig9")


# --- the authors' WRENCH simulator run on our plans (tests/insitu/data/) -------------------

GOLDEN = Path(__file__).parent / "data" / "authors_simulator_runs.csv"


#: the default engine against the authors' WRENCH binary, on every golden plan
AUTHORS_TOLERANCE = 0.005


def _golden_rows() -> list[dict[str, str]]:
    with GOLDEN.open() as f:
        return list(csv.DictReader(f))


def _golden_plan(row: dict[str, str]) -> object:
    ens = generate_ensemble(
        int(row["S"]),
        int(row["A"]),
        float(row["V"]),
        int(row["N"]),
        seed=int(row["seed"]),
        steps=int(row["steps"]),
    )
    return make_plan(ens, row["scenario"], row["node"], row["core"])


@pytest.mark.parametrize("row", _golden_rows(), ids=lambda r: "-".join(list(r.values())[:9]))
def test_default_engine_matches_the_authors_wrench_simulator_on_the_same_plan(row):
    # their simulator (WRENCH 2.1, SimGrid 3.32) built outside the repository and run by
    # tests/insitu/data/run_authors_simulator.py on our plan: every analysis node reads
    # V/(n n') from every simulation node, the shared link is shared flow by flow, and their
    # job manager's 1 kB messages stagger the reads of a pool analysis's nodes (EV pool of 4
    # nodes, 100 steps: theirs 77.81 s, ptask 104.04, the default 77.54); within 0.36%
    plan = _golden_plan(row)
    ours = simulate(plan).makespan  # the defaults: activities engine, paper layout
    assert ours == pytest.approx(float(row["ours_activities"]), rel=1e-5)  # stored to 4 decimals
    assert ours == pytest.approx(float(row["authors_wrench"]), rel=AUTHORS_TOLERANCE)


@pytest.mark.parametrize(
    "row",
    [r for r in _golden_rows() if int(r["steps"]) <= 30 and int(r["A"]) == 1],
    ids=lambda r: "-".join(list(r.values())[:9]),
)
def test_ptask_keeps_the_pool_nodes_in_lockstep(row):
    # the ptask engine runs a component's nodes as one parallel task: on an EV pool analysis
    # whose reads their simulator staggers it is 6% (10 steps) to 23% (30 steps) long
    plan = _golden_plan(row)
    ours = simulate(plan, "paper", "ptask").makespan
    assert ours == pytest.approx(float(row["ours_ptask"]), rel=1e-5)
    if row["node"] == "ev":
        assert ours > 1.03 * float(row["authors_wrench"])


@pytest.mark.parametrize(
    "row",
    [r for r in _golden_rows() if int(r["steps"]) <= 30 and int(r["A"]) == 1],
    ids=lambda r: "-".join(list(r.values())[:9]),
)
def test_the_job_manager_staggers_the_pool_reads(row):
    # their job manager (on UserHost, behind the shared link) submits one job at a time with
    # 1 kB messages: the 4 pool nodes of an EV analysis start their reads microseconds apart,
    # the first reads with fewer flows on the link, ends first and starts earlier still, until
    # the reads run staggered (30 steps: theirs 25.60 s, ours 25.56; without the messages 31.47)
    plan = _golden_plan(row)
    ours = simulate(plan).makespan
    assert ours == pytest.approx(float(row["authors_wrench"]), rel=AUTHORS_TOLERANCE)
    unsync = simulate(plan, control=False).makespan
    if row["node"] == "ev" and row["steps"] == "30":  # without the messages: never staggered
        assert unsync > 1.15 * float(row["authors_wrench"])
    if row["node"] == "ev":  # the pool's nodes start their reads at different times
        res = simulate(plan)
        pool = plan.mapping.pool()
        starts = {q: t for c, k, st, t, _e, q in res.pieces if c in pool and k == 5 and st == "R"}
        assert len(set(starts.values())) == len(starts) > 1


@pytest.mark.parametrize(
    "row",
    [r for r in _golden_rows() if int(r["A"]) == 1 and int(r["steps"]) == 10],
    ids=lambda r: "-".join(list(r.values())[:9]),
)
def test_compiled_engine_follows_the_python_oracle(row):
    # the oracle (tests/insitu/activities_oracle.py: the Python engine, the shared link and
    # every message SimGrid's own comms) against the compiled engine (the shared link as a
    # processor-sharing server): the same timelines up to the solvers' rounding, with and
    # without the job manager's messages
    from activities_oracle import run_in_child

    plan = _golden_plan(row)
    literal = run_in_child(plan).makespan
    assert literal == pytest.approx(float(row["ours_activities_comms"]), rel=1e-5)
    assert simulate(plan).makespan == pytest.approx(literal, rel=2e-5)
    a, b = (
        {(c, k, st, q): (t0, t1) for c, k, st, t0, t1, q in r.pieces}
        for r in (run_in_child(plan, control=False), simulate(plan, control=False))
    )
    assert a.keys() == b.keys()
    assert max(abs(a[key][i] - b[key][i]) for key in a for i in (0, 1)) < 1e-6


@settings(max_examples=5, deadline=None)
@given(
    st.integers(1, 3),
    st.integers(1, 3),
    st.floats(0.5, 8.0),
    st.integers(0, 4),
    st.sampled_from(["ideal", "increasing-50", "decreasing-25", "in-transit"]),
    st.sampled_from([("co", "co"), ("ev", "co"), ("co", "ev"), ("ev", "ev")]),
    st.integers(0, 1000),
)
def test_compiled_engine_follows_the_python_oracle_on_random_plans(
    s, a, v, extra, scenario, pair, seed
):
    # the compiled engine's shared link (a kernel timer that also runs the job manager) and
    # its gates (one release per step where the oracle releases one semaphore per piece)
    # against the oracle's SimGrid comms and semaphores: without the job manager the same
    # timelines piece by piece; with it the same makespan (the pieces' order at equal times
    # differs, which moves a staggered read by microseconds)
    from activities_oracle import run_in_child

    plan = make_plan(generate_ensemble(s, a, v, s + 1 + extra, seed=seed, steps=5), scenario, *pair)
    a_, b_ = (
        {(c, k, st_, q): (t0, t1) for c, k, st_, t0, t1, q in r.pieces}
        for r in (run_in_child(plan, control=False), simulate(plan, control=False))
    )
    assert a_.keys() == b_.keys()
    assert max(abs(a_[key][i] - b_[key][i]) for key in a_ for i in (0, 1)) < 1e-6
    literal = run_in_child(plan).makespan
    assert simulate(plan).makespan == pytest.approx(literal, rel=1e-5)


def test_the_golden_runs_cover_the_worst_points_and_agree_with_the_default():
    rows = _golden_rows()
    keys = {(r["S"], r["A"], r["V"], r["N"], r["scenario"], r["node"]) for r in rows}
    assert ("4", "4", "4", "16", "decreasing-25", "co") in keys
    assert ("2", "4", "4", "64", "decreasing-50", "co") in keys
    assert len(rows) == 22
    for r in rows:  # both job manager models agree with their simulator
        for col in ("ours_activities", "ours_activities_comms"):
            assert float(r[col]) == pytest.approx(float(r["authors_wrench"]), rel=0.005)


def test_decreasing_25_at_n16_is_no_longer_a_quarter_under_the_published_mean():
    # the point of the 140 that moved most (S=4, A=4, V=4, N=16, CO/CO, seed 1, 100 steps):
    # -26.5% from the authors' mean with round-robin reads, -10.9% now (their 5 trials spread
    # 396.8 +- 18.9 s; WRENCH on our plan agrees with ours within 1.3%)
    ens = generate_ensemble(4, 4, 4.0, 16, seed=1)
    ours = simulate(make_plan(ens, "decreasing-25"), "paper", "ptask").makespan
    df = authors_runs("fig4")
    theirs = df[
        (df.S == 4)
        & (df.A == 4)
        & (df.V == 4)
        & (df.N == 16)
        & (df.scenario == "decreasing-25")
        & (df.node == "co")
        & (df.core == "co")
    ].simulated.mean()
    assert abs(ours / theirs - 1) < 0.12


@pytest.mark.slow  # 140 SimGrid runs of 100 steps: 42 min on 2 loaded cores (ptask: ~5 min)
def test_bandwidth_bound_points_within_5_and_10_percent_of_the_published_means():
    import sys

    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    import insitu_fidelity as mod  # the worker runs must import it by name

    n, w5, w10 = mod.counts(mod.measure(seed=1, jobs=2))  # the default engine
    assert n == 140
    assert w5 >= 120 and w10 >= 128, (w5, w10)
    # and inside what an exact copy of the authors' simulator would reach with one run
    for got, tol in ((w5, 0.05), (w10, 0.10)):
        _, low, _ = replication_band(1, tol)
        assert got >= low, (got, tol, low)


def test_the_authors_own_trials_against_their_other_trials():
    # Each published trial against the mean of the other four, over the 140 bandwidth-bound
    # points: the authors' code on a fresh ensemble reaches 115-121 within 5% and 127-133
    # within 10%, never the 130 / 140 (docs/insitu.md); a change of the bundled data
    # or of the point selection moves these counts
    loo = leave_one_out()
    assert loo["trial"].tolist() == [1, 2, 3, 4, 5]
    assert set(loo["points"]) <= {139, 140}  # a run their simulator did not finish is NaN
    assert loo["within_5"].tolist() == [117, 121, 115, 119, 115]
    assert loo["within_10"].tolist() == [128, 131, 130, 133, 127]
    assert loo["within_5"].max() < 130 and loo["within_10"].max() < 140


def test_replication_band_of_one_run_and_of_five():
    # one run of an exact copy: about 121 within 5% (90%: 116-125), 130 within 10%; the mean
    # of 5 runs (the authors' own protocol): about 128 / 136
    e5, lo5, hi5 = replication_band(1, 0.05)
    e10, lo10, hi10 = replication_band(1, 0.10)
    m5, mlo5, mhi5 = replication_band(5, 0.05)
    assert lo5 <= e5 <= hi5 and lo10 <= e10 <= hi10 and mlo5 <= m5 <= mhi5
    assert 115 <= lo5 < e5 < hi5 <= 126 and hi5 < 130
    assert e5 < e10 and e5 < m5  # a wider tolerance or more runs: more points inside
    assert hi10 < 140
    with pytest.raises(InputError):
        replication_band(0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=0, max_size=40))
def test_poisson_binomial_is_a_distribution_with_the_right_mean(probs):
    import numpy as np

    d = poisson_binomial(probs)
    assert len(d) == len(probs) + 1 and (d >= -1e-12).all()
    assert d.sum() == pytest.approx(1.0)
    assert float(np.arange(len(d)) @ d) == pytest.approx(sum(probs), abs=1e-9)


@given(st.integers(1, 30), st.floats(0.0, 1.0))
def test_poisson_binomial_of_equal_probabilities_is_the_binomial(n, p):
    from scipy.stats import binom

    assert poisson_binomial([p] * n) == pytest.approx(binom.pmf(range(n + 1), n, p), abs=1e-9)
