"""A site's slurm.conf as options of the ``slurm`` scheduler (``slurm:conf=FILE``)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import coschedlab.bundled
from coschedlab.errors import InputError
from coschedlab.schedulers import Slurm, get_scheduler
from coschedlab.schedulers import slurm_conf as sc

SITE = Path(__file__).resolve().parent / "data" / "slurm" / "site.conf"


@pytest.fixture(autouse=True)
def _fresh_notes(monkeypatch):
    """Each test starts with no note said yet."""
    monkeypatch.setattr(sc, "_SAID", set())


def _conf(tmp_path: Path, text: str, name: str = "slurm.conf") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _listed(note: str) -> set[str]:
    """The names a note lists (each entry's key, without its value or reason)."""
    names = set()
    for part in note.split(": ", 1)[1].split("; "):
        _, _, items = part.partition(": ")
        for item in _split_items(items):
            names.add(item.split(" (")[0].split("=")[0])
    return names


def _split_items(text: str) -> list[str]:
    """``a, b (x, y), c`` -> ``a``, ``b (x, y)``, ``c``: commas inside parentheses stay."""
    out, depth, cur = [], 0, ""
    for c in text:
        depth += (c == "(") - (c == ")")
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    return [*out, cur.strip()] if cur.strip() else out


def test_a_sites_conf_gives_its_slurm_options():
    """The fixture: a typical site's conf (multifactor weights, several SchedulerParameters,
    time strings in two formats, NodeName and PartitionName lines)."""
    conf = sc.read_conf(SITE)
    assert conf.options == {
        "priority": "multifactor",
        "priority_weight_age": 10000,  # AccountingStorageType is slurmdbd: honoured
        "priority_weight_job_size": 100000,
        "priority_max_age": 14 * 86400,  # 14-0
        "priority_favor_small": True,
        "small_relative_to_time": True,
        "priority_calc_period": 600,  # 00:10:00
        "backfill": True,
        "bf_interval": 60,
        "bf_max_job_test": 1000,
        "bf_resolution": 300,
        "bf_window": 4320,  # minutes, as Slurm keeps it
        "bf_job_part_count_reserve": None,
    }
    s = get_scheduler(f"slurm:conf={SITE}")
    assert isinstance(s, Slurm)
    for key, value in conf.options.items():
        assert getattr(s, key) == value, key
    assert s.conf == str(SITE)


def test_the_note_lists_exactly_the_keys_not_modelled():
    note = sc.read_conf(SITE).note()
    assert note is not None and note.startswith(f"{SITE}: not modelled: ")
    assert "\n" not in note
    assert _listed(note) == {
        # scheduling
        "bf_continue", "default_queue_depth", "max_rpc_cnt", "NodeName", "PartitionName",
        "PreemptType", "PriorityDecayHalfLife",
        # daemons, paths, logs
        "ClusterName", "SlurmctldHost", "SlurmUser", "AuthType", "StateSaveLocation",
        "SlurmctldLogFile", "ProctrackType", "TaskPlugin", "MpiDefault", "ReturnToService",
        "AccountingStorageHost", "JobAcctGatherType",
    }  # fmt: skip
    assert "(100 nodes" in note and "(2 partitions" in note  # DEFAULT lines are not nodes


def test_explicit_options_override_the_file():
    s = get_scheduler(f"slurm:conf={SITE},bf_interval=5,priority=fifo")
    assert (s.bf_interval, s.priority) == (5, "fifo")
    assert (s.bf_window, s.priority_max_age) == (4320, 14 * 86400)  # the rest from the file
    s = Slurm(conf=str(SITE), bf_max_job_test=50)  # the Python API, likewise
    assert (s.bf_max_job_test, s.bf_resolution) == (50, 300)
    # the spec it describes recreates it
    again = get_scheduler(s.describe())
    assert all(getattr(again, k) == getattr(s, k) for k in sc.SLURM_DEFAULTS)


def test_keys_the_file_does_not_set_take_slurms_defaults(tmp_path):
    """slurm.conf(5) of 22.05: priority/basic, sched/backfill, bf_interval 30 s,
    bf_max_job_test 500, bf_resolution 60 s, bf_window 1440 min, PriorityMaxAge 7-0,
    PriorityCalcPeriod 5 min, weights 0, PriorityFavorSmall NO; not the WoAS defaults."""
    s = Slurm(conf=str(_conf(tmp_path, "# nothing but a comment\n")))
    got = {k: getattr(s, k) for k in sc.SLURM_DEFAULTS}
    assert got == {
        "priority": "fifo",
        "priority_weight_age": 0,
        "priority_weight_job_size": 0,
        "priority_max_age": 7 * 86400,
        "priority_favor_small": False,
        "small_relative_to_time": False,
        "priority_calc_period": 300,
        "backfill": True,
        "bf_interval": 30,
        "bf_max_job_test": 500,
        "bf_resolution": 60,
        "bf_window": 1440,
        "bf_job_part_count_reserve": None,
    }
    assert Slurm().bf_max_job_test != s.bf_max_job_test  # the WoAS defaults differ
    assert sc.read_conf(tmp_path / "slurm.conf").note() is None


def test_the_age_weight_needs_slurmdbd_as_slurmctld_says(tmp_path):
    plain = _conf(tmp_path, "PriorityType=priority/multifactor\nPriorityWeightAge=1000\n")
    conf = sc.read_conf(plain)
    assert conf.options["priority_weight_age"] == 0
    assert "PriorityWeightAge=1000 (ignored without AccountingStorageType=" in conf.note()
    dbd = _conf(tmp_path, plain.read_text() + "AccountingStorageType=accounting_storage/slurmdbd\n",
                "dbd.conf")  # fmt: skip
    conf = sc.read_conf(dbd)
    assert conf.options["priority_weight_age"] == 1000 and conf.note() is None


def test_weights_of_factors_we_do_not_model_are_said_when_not_zero(tmp_path):
    conf = sc.read_conf(_conf(tmp_path, "PriorityWeightFairshare=10000 PriorityWeightQOS=0\n"
                                        "PriorityWeightTRES=CPU=1000,Mem=2000\n"))  # fmt: skip
    note = conf.note()
    assert "not honoured: PriorityWeightFairshare=10000 (no fair-share)" in note
    assert "PriorityWeightTRES=CPU=1000,Mem=2000" in note
    assert "PriorityWeightQOS" not in note  # 0 is what we model


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("5", 300), ("90", 5400), ("1:30", 120),  # minutes:seconds, rounded up to minutes
        ("2:00:00", 7200), ("00:10:00", 600), ("7-0", 7 * 86400), ("1-2", 26 * 3600),
        ("1-2:30", 26 * 3600 + 1800), ("1-2:30:15", 26 * 3600 + 1860), ("0", 0),
        ("UNLIMITED", math.inf), ("infinite", math.inf), ("-1", math.inf),
    ],
)  # fmt: skip
def test_slurm_time_strings(text, seconds):
    assert sc.time_seconds(text) == seconds


@pytest.mark.parametrize("text", ["7d", "1-", ":5", "", "1:2:3:4", "1.5", "2-1:"])
def test_bad_time_strings(text):
    with pytest.raises(ValueError):
        sc.time_seconds(text)


def test_slurm_conf_syntax(tmp_path):
    """Case-insensitive keys, comments (``\\#`` is a ``#``), continued lines, several pairs a
    line, quoted values, a later setting replacing an earlier one, Include relative to the
    including file with %c for the ClusterName."""
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "prio_alpha.conf").write_text(
        "prioritytype=PRIORITY/MULTIFACTOR   # case does not matter\n"
        'PRIORITYWEIGHTJOBSIZE=5000 PriorityFavorSmall="yes"\n'
    )
    main = _conf(
        tmp_path,
        "ClusterName=alpha\n"
        "SchedulerParameters=bf_interval=10,\\\n"
        "bf_window=60\n"
        "SchedulerParameters=bf_interval=20,bf_window=120,bf_job_part_count_reserve=1\n"
        "include etc/prio_%c.conf\n"
        "PriorityFlags=small_relative_to_time,ACCRUE_ALWAYS\n"
        "SlurmctldLogFile=/var/log/slurm\\#1.log\n",
    )
    conf = sc.read_conf(main)
    o = conf.options
    assert (o["bf_interval"], o["bf_window"], o["bf_job_part_count_reserve"]) == (20, 120, 1)
    assert (o["priority"], o["priority_weight_job_size"]) == ("multifactor", 5000)
    assert o["priority_favor_small"] and o["small_relative_to_time"]
    assert _listed(conf.note()) == {"PriorityFlags", "ClusterName", "SlurmctldLogFile"}
    assert "PriorityFlags=ACCRUE_ALWAYS" in conf.note()
    assert [e.value for e in sc.entries(main) if e.key == "SlurmctldLogFile"] == [
        "/var/log/slurm#1.log"
    ]


def test_scheduler_values_that_switch_backfill_off_or_reserve_for_all(tmp_path):
    assert not sc.read_conf(_conf(tmp_path, "SchedulerType=sched/builtin\n")).options["backfill"]
    off = _conf(tmp_path, "SchedulerParameters=bf_interval=-1\n", "off.conf")
    assert not sc.read_conf(off).options["backfill"]  # Slurm: -1 disables the backfill loop
    zero = _conf(tmp_path, "SchedulerParameters=bf_job_part_count_reserve=0\n", "zero.conf")
    assert sc.read_conf(zero).options["bf_job_part_count_reserve"] is None
    cons = _conf(tmp_path, "SelectType=select/cons_tres\n", "cons.conf")
    assert "SelectType=select/cons_tres (we allocate whole nodes)" in sc.read_conf(cons).note()


def test_sched_interval_is_not_our_clock(tmp_path):
    """Slurm's sched_interval is its full-queue pass; jobs still start at event-triggered
    passes, so it must not put our main pass on a 60-s clock."""
    conf = sc.read_conf(_conf(tmp_path, "SchedulerParameters=sched_interval=60\n"))
    assert "sched_interval" not in conf.options
    assert Slurm(conf=str(tmp_path / "slurm.conf")).sched_interval is None
    assert "sched_interval=60 (Slurm's full-queue pass" in conf.note()


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("ClusterName=x\nthis is not a setting\n", 2, "malformed line: 'this' is not Key=Value"),
        ("SelectType=select/\"linear\n", 1, "malformed line"),
        ("A=1\nSchedulerParameters=bf_interval=often\n", 2, "bf_interval='often' is not a whole"),
        ("SchedulerParameters=bf_window=99999\n", 1, "out of Slurm's range 1 to 43,200"),
        ("SchedulerParameters=bf_max_job_test\n", 1, "bf_max_job_test needs a value"),
        ("PriorityMaxAge=2weeks\n", 1, "PriorityMaxAge='2weeks' is not a time"),
        ("PriorityCalcPeriod=0\n", 1, "PriorityCalcPeriod must be a finite time over 0"),
        ("PriorityMaxAge=UNLIMITED\n", 1, "PriorityMaxAge must be a finite time over 0"),
        ("PriorityType=priority/fair\n", 1, "must be one of priority/basic, priority/multifactor"),
        ("SchedulerType=sched/gang\n", 1, "must be one of sched/backfill, sched/builtin"),
        ("PriorityFavorSmall=maybe\n", 1, "PriorityFavorSmall must be one of yes"),
        ("PriorityWeightJobSize=1e6\n", 1, "PriorityWeightJobSize='1e6' is not a whole number"),
        ("PriorityWeightAge=-5\n", 1, "PriorityWeightAge=-5 is out of Slurm's range"),
        ("\n\nSelectType=select/\\\nlinear2\n", 3, "SelectType must be one of select/linear"),
    ],
)  # fmt: skip
def test_bad_input_names_file_and_line(tmp_path, text, line, says):
    path = _conf(tmp_path, text)
    with pytest.raises(InputError, match="^") as err:
        get_scheduler(f"slurm:conf={path}")
    assert err.value.where == f"{path}:{line}"
    assert says in str(err.value)


def test_include_loops_and_missing_includes_are_refused(tmp_path):
    _conf(tmp_path, "ClusterName=x\nInclude b.conf\n", "a.conf")
    _conf(tmp_path, "Include a.conf\n", "b.conf")
    with pytest.raises(InputError, match="makes a loop") as err:
        sc.read_conf(tmp_path / "a.conf")
    assert err.value.where == f"{tmp_path / 'b.conf'}:1"
    for k in range(70):  # a chain of distinct files, too deep to be a site's
        _conf(tmp_path, f"Include d{k + 1}.conf\n", f"d{k}.conf")
    with pytest.raises(InputError, match="nested more than 64 deep"):
        sc.read_conf(tmp_path / "d0.conf")
    _conf(tmp_path, "Include gone.conf\n", "c.conf")
    with pytest.raises(InputError, match="Include gone.conf: no such file") as err:
        sc.read_conf(tmp_path / "c.conf")
    assert err.value.where == f"{tmp_path / 'c.conf'}:1"


def test_missing_unreadable_or_binary_files_are_refused(tmp_path):
    for path, says in ((tmp_path / "none.conf", "no such file"), (tmp_path, "is a directory")):
        with pytest.raises(InputError, match=says):
            Slurm(conf=str(path))
    (tmp_path / "bin.conf").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="not a text file"):
        Slurm(conf=str(tmp_path / "bin.conf"))
    with pytest.raises(InputError, match="option conf must be a slurm.conf file"):
        get_scheduler("slurm:conf=true")


def test_a_bundled_name_goes_through_local_path(monkeypatch):
    """``conf=coschedlab:NAME`` keeps its colon in a spec and is a bundled file."""
    with pytest.raises(InputError, match="no bundled data file 'nosuch.conf'"):
        get_scheduler("slurm:conf=coschedlab:nosuch.conf,bf_interval=5")
    monkeypatch.setattr(coschedlab.bundled, "bundled", lambda name: SITE)
    s = get_scheduler("slurm:conf=coschedlab:site.conf,bf_interval=5")
    assert (s.conf, s.bf_interval, s.bf_window) == ("coschedlab:site.conf", 5, 4320)


def test_the_note_is_printed_once(capsys):
    for _ in range(3):
        get_scheduler(f"slurm:conf={SITE}")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"note: {SITE}: not modelled: ")


def test_a_conf_run_uses_its_settings(tmp_path):
    """sched/builtin from a file: the run has no backfill pass; sched/backfill's has."""
    from coschedlab import Cluster, Workload, simulate

    rows = [(i + 1, 10 * i, 100, 200, 1 + i % 4) for i in range(20)]
    counts = []
    for kind in ("builtin", "backfill"):
        s = Slurm(conf=str(_conf(tmp_path, f"SchedulerType=sched/{kind}\n", f"{kind}.conf")))
        simulate(Workload.from_records(rows), Cluster(4), s)
        counts.append(s.backfill_passes)
    assert counts[0] == 0 < counts[1]
