"""The workflow model: the seed's Tables 1 and 2, validation errors, importers, coarsening."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import workflow_dags
from hypothesis import given
from hypothesis import strategies as st

from coschedlab.errors import InputError
from coschedlab.workflows import Task, Workflow, builtin, coarsen, group, load_workflow

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "workflows"
needs_shared = pytest.mark.skipif(
    not SHARED.is_dir(), reason="needs ../shared/data beside the repo"
)


# -- the seed's Table 2 (hours, cores, core-hours) ---------------------------------------------
@pytest.mark.parametrize(
    "name, jobs, hours, cores, usage, waste",
    [
        ("montage", 5, 7.6, 960, 375, 6920),
        ("cybershake", 5, 4.5, 721, 1145, 2077),
        ("floodplain", 7, 32.5, 512, 5624, 11016),
    ],
)
def test_table2_real_workflows(name, jobs, hours, cores, usage, waste):
    wf = builtin(name)
    assert len(wf.tasks) == jobs
    assert round(wf.critical_path / 3600, 1) == hours
    assert wf.max_cores == cores
    # the table's usage/waste agree within 1% (its rounding of the run times)
    assert wf.usage / 3600 == pytest.approx(usage, rel=0.01)
    assert wf.potential_waste / 3600 == pytest.approx(waste, rel=0.01)


@pytest.mark.parametrize("name", ["longwide", "widelong"])
def test_table2_synthetic_uses_limits(name):
    """Their row (672 / 1728 core-h) needs the 5-h critical path of the time limits: the
    table's "3h" is a typo (REFERENCE.md section 4)."""
    wf = builtin(name)
    assert wf.max_cores == 480 and wf.critical_path_limit == 5 * 3600
    assert wf.usage_limit / 3600 == 672
    assert wf.potential_waste_limit / 3600 == 1728


def test_sipht_is_the_authors_manifest():
    wf = builtin("sipht")
    assert len(wf.tasks) == 12 and {t.cores for t in wf.tasks} == {96}
    assert wf.max_cores == 480
    assert round(wf.critical_path / 3600, 2) == 1.14


@pytest.mark.parametrize("n", [1, 2, 4, 8, 16, 32])
def test_table1_groups(n):
    a, b = group("A", n), group("B", n)
    assert len(a.tasks) == n and a.max_cores == 240
    assert a.usage_limit / 3600 == 240 * n and a.potential_waste_limit == 0
    assert b.max_cores == 240 * n and b.critical_path_limit == 2 * 3600
    assert b.usage_limit / 3600 == 240 + n * 240
    assert b.potential_waste_limit / 3600 == (n - 1) * 240
    if n <= 8:
        c = group("C", n)
        assert c.max_cores == 240 * n and c.critical_path_limit == 2 * n * 3600
        assert c.usage_limit / 3600 == 240 + n * (2 * n - 1) * 240
        # Table 1 prints n(n - 1) x 240 for C's waste, which its own geometry (240n cores for
        # 2n h, 240 + n(2n - 1) x 240 used) contradicts: only the first hour idles 240(n - 1)
        assert c.potential_waste_limit / 3600 == (n - 1) * 240
    # the authors' manifests run each task 100 s under its limit
    assert all(t.limit - t.runtime == 100 for t in a.tasks)


def test_cybershake_pilot_profile_is_figure_1():
    """Figure 1b: the pilot holds 721 cores; during S0 (about 3.2 h) 601 of them idle."""
    wf = builtin("cybershake")
    prof = wf.profile()
    assert prof[0] == (0.0, 120)
    assert max(c for _, c in prof) == 721
    assert wf.critical_tasks == ("S0", "S1", "S2", "S4")


# -- validation -----------------------------------------------------------------------------------
def _wf(*rows, source="w.json"):
    return Workflow("w", tuple(Task(*r) for r in rows), source)


@pytest.mark.parametrize(
    "rows, message",
    [
        ((("a", 1, 1.0, 2.0, ("b",)),), "task a depends on unknown task 'b'"),
        ((("a", 1, 1.0, 2.0, ("b",)), ("b", 1, 1.0, 2.0, ("a",))), "form a dependency cycle"),
        ((("a", 1, 1.0, 2.0, ("a",)),), "task a depends on itself"),
        ((("a", 1, 1.0, 2.0), ("a", 1, 1.0, 2.0)), "task a is defined twice"),
        ((("a", 0, 1.0, 2.0),), "task a has cores 0"),
        ((("a", 1, 5.0, 2.0),), "longer than its time limit"),
        ((("a", 1, -1.0, 2.0),), "negative runtime"),
        ((("a", 1, float("nan"), 2.0),), "has runtime nan"),
    ],
)
def test_bad_workflows_say_what_and_where(rows, message):
    with pytest.raises(InputError, match=message) as e:
        _wf(*rows)
    assert e.value.where == "w.json"


def test_cycle_is_named():
    with pytest.raises(InputError) as e:
        _wf(("a", 1, 1, 2, ("c",)), ("b", 1, 1, 2, ("a",)), ("c", 1, 1, 2, ("b",)), ("d", 1, 1, 2))
    assert (
        "a -> b -> c -> a" in str(e.value)
        or "b -> c -> a -> b" in str(e.value)
        or ("c -> a -> b -> c" in str(e.value))
    )


def test_the_cycle_named_is_reached_from_the_first_stuck_task_by_its_first_stuck_parent():
    # x waits for two cycles (a-b and c-f-d); its first stuck parent c (e is not stuck) leads
    # into c -> f -> d -> c (each task a parent of the next), named from where it was entered
    with pytest.raises(InputError, match=r"tasks c -> f -> d -> c form a dependency cycle"):
        _wf(("x", 1, 1, 2, ("e", "c", "a")), ("a", 1, 1, 2, ("b",)), ("b", 1, 1, 2, ("a",)),
            ("c", 1, 1, 2, ("e", "d")), ("e", 1, 1, 2), ("d", 1, 1, 2, ("f",)),
            ("f", 1, 1, 2, ("c",)))  # fmt: skip


def test_task_larger_than_the_machine_is_refused():
    from coschedlab.platform import Cluster
    from coschedlab.workflows import generate

    with pytest.raises(InputError, match="task S1 or its pilot job needs 960 cores"):
        generate(
            builtin("montage"),
            cluster=Cluster.from_cores(20, 24),
            share=0.1,
            window=3600,
            warmup=0,
            target_wait=0,
        )


# -- schedules ----------------------------------------------------------------------------------
@given(workflow_dags(), st.integers(0, 40))
def test_pilot_never_exceeds_its_cores_and_respects_dependencies(wf, extra):
    cores = max(t.cores for t in wf.tasks) + extra
    times = wf.within(cores)
    events = sorted({*times.start.values(), *times.end.values()})
    for t in events:
        used = sum(x.cores for x in wf.tasks if times.start[x.id] <= t < times.end[x.id])
        assert used <= cores
    for x in wf.tasks:
        for d in x.deps:
            assert times.start[x.id] >= times.end[d]
    # with max_cores the pilot is the as-soon-as-possible schedule
    asap = wf.asap()
    assert wf.within(max(wf.max_cores, cores)).end == asap.end
    assert wf.critical_path == asap.makespan
    assert wf.potential_waste >= -1e-6


# -- importers ------------------------------------------------------------------------------------
def test_manifest_of_figure_4(tmp_path):
    """The seed's Fig. 4 manifest (deps written as {"SLong"}), with a dot_dag fallback."""
    p = tmp_path / "lw.json"
    p.write_text(
        json.dumps(
            {
                "tasks": [
                    {"id": "SLong", "cmd": "./SLong.py", "cores": 48, "runtime": 14400.0},
                    {
                        "id": "SWide",
                        "cmd": "./SWide.py",
                        "cores": 480,
                        "runtime": 3600.0,
                        "deps": [{"SLong": None}],
                    },
                ]
            }
        )
    )
    wf = load_workflow(p)
    assert wf.task("SWide").deps == ("SLong",) and wf.task("SLong").limit == 14460
    q = tmp_path / "scsf.json"
    q.write_text(
        json.dumps(
            {
                "tasks": [
                    {
                        "id": "S0",
                        "number_of_cores": 240,
                        "runtime_limit": 3600.0,
                        "runtime_sim": 3500.0,
                    },
                    {
                        "id": "S1",
                        "number_of_cores": 960,
                        "runtime_limit": 10800.0,
                        "runtime_sim": 10700.0,
                    },
                ],
                "dot_dag": "strict digraph  {\n\tS0->S1;\n}\n",
            }
        )
    )
    wf = load_workflow(q)
    assert wf.task("S1").deps == ("S0",) and wf.critical_path == 14200


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "not valid JSON"),
        ('{"tasks": 3}', 'a JSON object with a "tasks" list'),
        ('{"tasks": [{"id": "a", "runtime": 1}]}', 'task a has no "cores"'),
        ('{"tasks": [{"id": "a", "cores": 1, "runtime": "x"}]}', "task a runtime is 'x'"),
        ('{"tasks": [{"id": "a", "cores": 1, "runtime": 1, "colour": 2}]}', "unknown key"),
        ('{"tasks": [{"id": "a", "cores": 1, "runtime": 1, "deps": ["z"]}]}', "unknown task 'z'"),
    ],
)
def test_bad_manifest_names_the_file(tmp_path, text, message):
    p = tmp_path / "bad.json"
    p.write_text(text)
    with pytest.raises(InputError, match=message) as e:
        load_workflow(p)
    assert str(p) in str(e.value)


def test_dax_errors(tmp_path):
    p = tmp_path / "x.xml"
    p.write_text("<adag><job id='a' name='n'/></adag>")
    with pytest.raises(InputError, match="job a has no runtime"):
        load_workflow(p)
    p.write_text(
        "<adag><job id='a' name='n' runtime='1'/><child ref='b'><parent ref='a'/></child></adag>"
    )
    with pytest.raises(InputError, match="names no job"):
        load_workflow(p)
    p.write_text("<adag><job id='a'")
    with pytest.raises(InputError, match="not valid XML"):
        load_workflow(p)
    with pytest.raises(InputError, match="unknown workflow 'nothing'"):
        load_workflow("nothing")


def test_coarsen_fuses_stages_and_chains():
    rows = [
        ("p1", 1, 10.0, 70.0, ()),
        ("p2", 1, 12.0, 72.0, ()),
        ("c", 1, 5.0, 65.0, ("p1", "p2")),
        ("z", 1, 3.0, 63.0, ("c",)),
    ]
    tasks = tuple(Task(i, c, r, lim, d, stage=i[0]) for i, c, r, lim, d in rows)
    wf = Workflow("w", tasks)
    co = coarsen(wf)
    # p1+p2 -> one stage of 2 cores, 12 s; c and z (1 core each, a chain) fuse into one task
    assert [(t.id, t.cores, t.runtime) for t in co.tasks] == [("S0", 2, 12.0), ("S1", 1, 8.0)]
    assert co.task("S1").deps == ("S0",) and co.task("S1").limit == 68.0
    capped = coarsen(wf, max_cores=1, fuse_chains=False)
    assert capped.task("S0").cores == 1 and capped.task("S0").runtime == 22.0


def test_coarsen_refuses_a_stage_on_two_levels():
    tasks = (
        Task("a1", 1, 1, 2, (), "a"),
        Task("b", 1, 1, 2, ("a1",), "b"),
        Task("a2", 1, 1, 2, ("b",), "a"),
    )
    with pytest.raises(InputError, match="fusing stage.*a.*creates a cycle"):
        coarsen(Workflow("w", tasks))
    kept = coarsen(Workflow("w", tasks), ["b"], fuse_chains=False)
    assert [t.stage for t in kept.tasks] == ["a", "b", "a"]
    assert len(coarsen(Workflow("w", tasks), ["b"]).tasks) == 1  # a 1-core chain: one task


@needs_shared
def test_pegasus_and_wfformat_files():
    cs = load_workflow(SHARED / "pegasus-dax/workflowsim/CyberShake_30.xml.gz", coarse=True)
    assert [t.stage for t in cs.tasks][:2] == ["ExtractSGT", "SeismogramSynthesis"]
    fine = load_workflow(SHARED / "pegasus-dax/workflowsim/CyberShake_30.xml.gz")
    assert len(fine.tasks) == 30 and cs.usage == pytest.approx(
        sum(t.cores * t.runtime for t in fine.tasks) + 0.0, rel=0.6
    )
    fp = load_workflow(SHARED / "pegasus-dax/workflowsim/floodplain.xml.gz")
    assert fp.critical_path == builtin("floodplain").critical_path and fp.max_cores == 512
    sipht = load_workflow(SHARED / "pegasus-dax/other/sipht-d1344-n1920-clean.xml.gz")
    assert sipht.task("ID00001").runtime == pytest.approx(1.3283)  # decimal comma
    raw = json.loads(
        gzip.decompress(
            (SHARED / "wfinstances/montage/montage-chameleon-2mass-005d-001.json.gz").read_bytes()
        )
    )
    m = load_workflow(SHARED / "wfinstances/montage/montage-chameleon-2mass-005d-001.json.gz")
    assert len(m.tasks) == len(raw["workflow"]["specification"]["tasks"])
    assert (
        load_workflow(
            SHARED / "wfinstances/montage/montage-chameleon-2mass-005d-001.json.gz", coarse=True
        )
        .task("S0")
        .stage
        == "mProject"
    )
