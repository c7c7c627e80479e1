"""A site's own slurm.conf as options of the ``slurm`` scheduler (``-s slurm:conf=FILE``).

The file is read as Slurm 22.05 reads it (slurm.conf(5)): ``Key=Value`` pairs with
case-insensitive keys, several on a line (``NodeName=...  CPUs=24``), ``#`` comments (``\\#``
is a literal ``#``), a ``\\`` at the end of a line joining the next, double-quoted values, and
``Include FILE`` lines (relative to the including file, ``%c`` the ClusterName; a loop is an
error). A conf file means "this site's Slurm": every modelled key the file does not set takes
Slurm's own default (:data:`SLURM_DEFAULTS`), not the WoAS defaults of
:class:`~coschedlab.schedulers.slurm.Slurm`; options given on the spec override the file.

Modelled: SchedulerType, SchedulerParameters' ``bf_interval``, ``bf_max_job_test``,
``bf_resolution``, ``bf_window`` and ``bf_job_part_count_reserve``, PriorityType,
PriorityWeightAge (only with ``AccountingStorageType=accounting_storage/slurmdbd``, as
slurmctld: "PriorityWeightAge can only be used with SlurmDBD, ignoring"), PriorityWeightJobSize,
PriorityMaxAge, PriorityFavorSmall, PriorityCalcPeriod, PriorityFlags' SMALL_RELATIVE_TO_TIME
and SelectType (whole nodes, as select/linear allocates). Every other key, and every value we
cannot honour, is named in one note (:meth:`SlurmConf.note`), printed once per file.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bundled import local_path, read_bytes
from ..errors import InputError

__all__ = ["SLURM_DEFAULTS", "SlurmConf", "conf_option", "read_conf", "time_seconds"]

#: Slurm 22.05's defaults of what we model (slurm.conf(5)), as ``Slurm`` options (seconds,
#: except bf_window in minutes as Slurm keeps it)
SLURM_DEFAULTS: dict[str, Any] = {
    "priority": "fifo",  # PriorityType=priority/basic
    "priority_weight_age": 0,
    "priority_weight_job_size": 0,
    "priority_max_age": 7 * 86400,  # 7-0
    "priority_favor_small": False,
    "small_relative_to_time": False,
    "priority_calc_period": 300,  # 5 minutes
    "backfill": True,  # SchedulerType=sched/backfill
    "bf_interval": 30,
    "bf_max_job_test": 500,
    "bf_resolution": 60,
    "bf_window": 1440,
    "bf_job_part_count_reserve": None,  # 0: every tested job reserves
}

#: SchedulerParameters we model: (option, Slurm's minimum, maximum)
_SCHED_PARAMS: dict[str, tuple[str, int, int]] = {
    "bf_interval": ("bf_interval", 1, 10800),
    "bf_max_job_test": ("bf_max_job_test", 1, 1_000_000),
    "bf_resolution": ("bf_resolution", 1, 3600),
    "bf_window": ("bf_window", 1, 43200),
    "bf_job_part_count_reserve": ("bf_job_part_count_reserve", 0, 100_000),
}

#: priority weights that take a factor we do not model: honoured only at 0
_OTHER_WEIGHTS = {
    "priorityweightassoc": ("PriorityWeightAssoc", "no associations"),
    "priorityweightfairshare": ("PriorityWeightFairshare", "no fair-share"),
    "priorityweightpartition": ("PriorityWeightPartition", "one partition"),
    "priorityweightqos": ("PriorityWeightQOS", "no QOS"),
    "priorityweighttres": ("PriorityWeightTRES", "no TRES factor"),
}

_MODELLED = {
    "schedulertype",
    "schedulerparameters",
    "prioritytype",
    "priorityweightage",
    "priorityweightjobsize",
    "prioritymaxage",
    "priorityfavorsmall",
    "prioritycalcperiod",
    "priorityflags",
    "selecttype",
    "accountingstoragetype",
    "nodename",
    "partitionname",
    *_OTHER_WEIGHTS,
}

#: keys that change nothing of when jobs start (daemons, hosts, paths, logs, plug-ins of the
#: nodes): listed apart in the note, after the scheduling keys we leave out
_INERT = {
    k.lower()
    for k in (
        "ClusterName", "SlurmctldHost", "ControlMachine", "ControlAddr", "BackupController",
        "BackupAddr", "SlurmUser", "SlurmdUser", "AuthType", "AuthAltTypes", "AuthInfo", "CredType",
        "CryptoType", "StateSaveLocation", "SlurmdSpoolDir", "SlurmctldLogFile", "SlurmdLogFile",
        "SlurmSchedLogFile", "SlurmctldPidFile", "SlurmdPidFile", "SlurmctldPort", "SlurmdPort",
        "SlurmctldDebug", "SlurmdDebug", "SlurmctldSyslogDebug", "SlurmdSyslogDebug", "DebugFlags",
        "LogTimeFormat", "PluginDir", "PlugStackConfig", "ProctrackType", "TaskPlugin",
        "TaskPluginParam", "MpiDefault", "MpiParams", "SwitchType", "JobAcctGatherType",
        "JobAcctGatherFrequency", "JobAcctGatherParams", "AcctGatherNodeFreq",
        "AccountingStorageHost", "AccountingStoragePort", "AccountingStorageUser",
        "AccountingStoragePass", "AccountingStorageBackupHost", "AccountingStorageLoc",
        "JobCompType",
        "JobCompLoc", "JobCompHost", "JobCompPort", "JobCompUser", "JobCompPass", "MailProg",
        "MailDomain", "ReturnToService", "SlurmctldTimeout", "SlurmdTimeout", "MessageTimeout",
        "TCPTimeout", "InactiveLimit", "MinJobAge", "Prolog", "Epilog", "PrologFlags", "TmpFS",
        "GresTypes", "HealthCheckProgram", "HealthCheckInterval", "TopologyPlugin", "MaxJobCount",
        "FirstJobId",
    )
}  # fmt: skip

_TRUE = ("yes", "true", "up", "1")
_FALSE = ("no", "false", "down", "0")


@dataclass(frozen=True)
class Entry:
    """One ``Key=Value`` of a line: the key as written, its value, and ``file:line``; the
    other pairs of a NodeName or PartitionName line in ``rest``."""

    key: str
    value: str
    where: str
    rest: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class SlurmConf:
    """What a slurm.conf means to the ``slurm`` scheduler: its options (Slurm's defaults
    where the file is silent) and what it sets that we do not model or cannot honour."""

    path: str
    options: dict[str, Any]
    #: every key (or value) the model leaves out, each with the reason when one helps
    unmodelled: tuple[str, ...] = ()
    #: modelled keys whose value we cannot honour, with why
    not_honoured: tuple[str, ...] = field(default=())
    #: keys that change nothing of when jobs start (daemons, paths, logs)
    inert: tuple[str, ...] = ()

    def note(self) -> str | None:
        """The one line naming what the file sets that the model leaves out; None if nothing."""
        parts = []
        if self.unmodelled:
            parts.append("not modelled: " + ", ".join(self.unmodelled))
        if self.not_honoured:
            parts.append("not honoured: " + ", ".join(self.not_honoured))
        if self.inert:
            parts.append("not modelled, no effect on job starts: " + ", ".join(self.inert))
        return f"{self.path}: " + "; ".join(parts) if parts else None


# -- reading -------------------------------------------------------------------------------------
def _lines(path: Path, shown: str, stack: tuple[Path, ...], cluster: str) -> list[tuple[str, str]]:
    """``(text, file:line)`` of every logical line of ``path`` and the files it includes,
    comments removed and continuations joined."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not a text file (slurm.conf expected)", where=shown) from None
    out: list[tuple[str, str]] = []
    pending, start = "", 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        if not pending:
            start = n
        if line.endswith("\\"):
            pending += line[:-1]
            continue
        line, pending = pending + line, ""
        where = f"{shown}:{start}"
        if not line.strip():
            continue
        m = re.match(r"\s*include\s+(.+?)\s*$", line, re.IGNORECASE)
        if m and "=" not in m.group(1).split()[0]:
            name = _unquote(m.group(1), where).replace("%c", cluster)
            inc = Path(name) if Path(name).is_absolute() else path.parent / name
            if len(stack) >= 64:
                raise InputError(f"Include {name}: includes nested more than 64 deep", where)
            if inc.resolve() in stack:
                raise InputError(f"Include {name} makes a loop ({inc} is being read)", where)
            if not inc.is_file():
                why = "is not a file" if inc.exists() else "no such file"
                raise InputError(f"Include {name}: {why}" + f" ({inc})" * (str(inc) != name), where)
            out += _lines(inc, str(inc), (*stack, inc.resolve()), cluster)
            continue
        out.append((line, where))
        m = re.match(r"\s*clustername\s*=\s*(\S+)", line, re.IGNORECASE)
        if m:
            cluster = m.group(1).strip('"')
    if pending:
        out.append((pending, f"{shown}:{start}"))
    return out


def _strip_comment(line: str) -> str:
    """``line`` up to its first ``#`` not escaped as ``\\#`` (which stands for ``#``)."""
    out, k = [], 0
    while k < len(line):
        c = line[k]
        if c == "\\" and line[k + 1 : k + 2] == "#":
            out.append("#")
            k += 2
            continue
        if c == "#":
            break
        out.append(c)
        k += 1
    return "".join(out).rstrip()


def _unquote(value: str, where: str) -> str:
    value = value.strip()
    if value.startswith('"'):
        if len(value) < 2 or not value.endswith('"'):
            raise InputError(f"unterminated quoted value {value!r}", where)
        return value[1:-1]
    return value


_PAIR = re.compile(r'\s*([^\s=]+)\s*=\s*("[^"]*"|[^\s"]*)(?=\s|$)')


def _pairs(line: str, where: str) -> list[tuple[str, str]]:
    """The ``Key=Value`` pairs of one logical line; anything else is malformed."""
    out, k = [], 0
    while k < len(line):
        if not line[k:].strip():
            break
        m = _PAIR.match(line, k)
        if m is None:
            bad = line[k:].strip().split()[0]
            raise InputError(f"malformed line: {bad!r} is not Key=Value", where)
        out.append((m.group(1), _unquote(m.group(2), where)))
        k = m.end()
    return out


def entries(path: str | Path) -> list[Entry]:
    """Every setting of a slurm.conf (``coschedlab:NAME`` allowed) and the files it
    includes, in file order."""
    file = local_path(path)
    shown = str(path)
    found = []
    for line, where in _lines(file, shown, (file.resolve(),), "%c"):
        pairs = _pairs(line, where)
        key, value = pairs[0]
        if key.lower() in ("nodename", "partitionname"):
            found.append(Entry(key, value, where, tuple(pairs[1:])))
        else:
            found += [Entry(k, v, where) for k, v in pairs]
    return found


# -- values --------------------------------------------------------------------------------------
_TIME = re.compile(r"^(?:(\d+)-(\d+)(?::(\d+)(?::(\d+))?)?|(\d+)(?::(\d+)(?::(\d+))?)?)$")


def time_seconds(text: str) -> float:
    """A slurm.conf time (``minutes``, ``minutes:seconds``, ``hours:minutes:seconds``,
    ``days-hours``, ``days-hours:minutes``, ``days-hours:minutes:seconds``) in seconds, rounded
    up to whole minutes as Slurm's ``time_str2mins`` does; ``UNLIMITED``, ``INFINITE`` and -1
    are infinite. ValueError for anything else."""
    t = text.strip()
    if t.lower() in ("unlimited", "infinite", "-1"):
        return math.inf
    m = _TIME.match(t)
    if m is None:
        raise ValueError(t)
    d, h, mi, s, a, b, c = (int(x) if x else 0 for x in m.groups())
    if m.group(1) is not None:
        secs = ((d * 24 + h) * 60 + mi) * 60 + s
    elif m.group(7) is not None:  # hours:minutes:seconds
        secs = (a * 60 + b) * 60 + c
    else:  # minutes[:seconds]
        secs = a * 60 + b
    return math.ceil(secs / 60) * 60.0


def _minutes_key(e: Entry, name: str) -> float:
    try:
        secs = time_seconds(e.value)
    except ValueError:
        raise InputError(
            f"{e.key}={e.value!r} is not a time (minutes, minutes:seconds, hours:minutes:seconds,"
            " days-hours, days-hours:minutes or days-hours:minutes:seconds)",
            e.where,
        ) from None
    if not 0 < secs < math.inf:
        raise InputError(f"{e.key}={e.value!r}: {name} must be a finite time over 0", e.where)
    return secs


def _int(e: Entry, key: str, value: str, lo: int, hi: int) -> int:
    if not re.fullmatch(r"[+-]?\d+", value.strip()):
        raise InputError(f"{key}={value!r} is not a whole number", e.where)
    v = int(value)
    if not lo <= v <= hi:
        raise InputError(f"{key}={v} is out of Slurm's range {lo} to {hi:,}", e.where)
    return v


def _node_count(names: str) -> int:
    """How many nodes a hostlist names (``n[01-16],gpu[1-2,5]``: 19)."""
    total = 0
    for item in re.findall(r"[^,\[]*(?:\[[^\]]*\][^,\[]*)*", names):
        if not item:
            continue
        count = 1
        for group in re.findall(r"\[([^\]]*)\]", item):
            n = 0
            for part in group.split(","):
                lo, _, hi = part.partition("-")
                if lo.isdigit() and (not hi or hi.isdigit()):
                    n += int(hi) - int(lo) + 1 if hi else 1
            count *= max(n, 1)
        total += count
    return total


# -- meaning -------------------------------------------------------------------------------------
def _interpret(path: str, found: list[Entry]) -> SlurmConf:
    latest: dict[str, Entry] = {}
    nodes: list[Entry] = []
    parts: list[Entry] = []
    for e in found:
        low = e.key.lower()
        if low == "nodename":
            if e.value.lower() != "default":
                nodes.append(e)
        elif low == "partitionname":
            if e.value.lower() != "default":
                parts.append(e)
        else:
            latest[low] = e  # a later setting replaces an earlier one
    opts = dict(SLURM_DEFAULTS)
    left_out: list[str] = []
    unhonoured: list[str] = []

    def pick(e: Entry, name: str, choices: dict[str, Any]) -> Any:
        value = e.value.strip().lower()
        if value not in choices:
            raise InputError(
                f"{e.key}={e.value!r}: {name} must be one of {', '.join(choices)}", e.where
            )
        return choices[value]

    if e := latest.get("schedulertype"):
        opts["backfill"] = pick(
            e, "SchedulerType", {"sched/backfill": True, "sched/builtin": False}
        )
    if e := latest.get("prioritytype"):
        kinds = {"priority/basic": "fifo", "priority/multifactor": "multifactor"}
        opts["priority"] = pick(e, "PriorityType", kinds)
    if e := latest.get("selecttype"):
        kinds = ("select/linear", "select/cons_tres", "select/cons_res", "select/cray_aries")
        if pick(e, "SelectType", {k: k for k in kinds}) != "select/linear":
            left_out.append(f"SelectType={e.value.strip()} (we allocate whole nodes)")
    if e := latest.get("priorityweightjobsize"):
        opts["priority_weight_job_size"] = _int(e, e.key, e.value, 0, 2**32 - 1)
    dbd = latest.get("accountingstoragetype")
    with_dbd = dbd is not None and dbd.value.strip().lower() == "accounting_storage/slurmdbd"
    if e := latest.get("priorityweightage"):
        weight = _int(e, e.key, e.value, 0, 2**32 - 1)
        if weight and not with_dbd:
            unhonoured.append(
                f"PriorityWeightAge={weight} (ignored without AccountingStorageType="
                "accounting_storage/slurmdbd, as slurmctld does)"
            )
            weight = 0
        opts["priority_weight_age"] = weight
    for low, (name, why) in _OTHER_WEIGHTS.items():
        if e := latest.get(low):
            if low == "priorityweighttres":
                if e.value.strip():
                    unhonoured.append(f"{name}={e.value.strip()} ({why})")
            elif _int(e, e.key, e.value, 0, 2**32 - 1):
                unhonoured.append(f"{name}={int(e.value)} ({why})")
    if e := latest.get("prioritymaxage"):
        opts["priority_max_age"] = _minutes_key(e, "PriorityMaxAge")
    if e := latest.get("prioritycalcperiod"):
        opts["priority_calc_period"] = _minutes_key(e, "PriorityCalcPeriod")
    if e := latest.get("priorityfavorsmall"):
        opts["priority_favor_small"] = pick(e, "PriorityFavorSmall", _bools())
    if e := latest.get("priorityflags"):
        for flag in filter(None, (f.strip() for f in e.value.split(","))):
            if flag.upper() == "SMALL_RELATIVE_TO_TIME":
                opts["small_relative_to_time"] = True
            else:
                left_out.append(f"PriorityFlags={flag.upper()}")
    if e := latest.get("schedulerparameters"):
        for item in filter(None, (i.strip() for i in e.value.split(","))):
            key, sep, value = item.partition("=")
            low = key.strip().lower()
            if low in _SCHED_PARAMS:
                name, lo, hi = _SCHED_PARAMS[low]
                if not sep:
                    raise InputError(f"SchedulerParameters: {key} needs a value", e.where)
                if low == "bf_interval" and value.strip() == "-1":
                    opts["backfill"] = False  # Slurm: -1 disables the backfill loop
                    continue
                v = _int(e, f"SchedulerParameters {low}", value, lo, hi)
                opts[name] = None if (low == "bf_job_part_count_reserve" and v == 0) else v
            elif low == "sched_interval":
                left_out.append(
                    f"sched_interval={value.strip()} (Slurm's full-queue pass; our main pass "
                    "runs at every event, as Slurm's event-triggered one does; the option "
                    "sched_interval puts it on a clock)"
                )
            else:
                left_out.append(item)
    if nodes:
        count = sum(_node_count(e.value) for e in nodes)
        left_out.append(f"NodeName ({count:,} nodes: the machine is the trace's or --nodes)")
    if parts:
        left_out.append(
            f"PartitionName ({len(parts)} partition{'s' * (len(parts) > 1)}: one queue over "
            "the whole machine)"
        )
    others = [e.key for low, e in latest.items() if low not in _MODELLED]
    left_out += [k for k in others if k.lower() not in _INERT]
    inert = tuple(k for k in others if k.lower() in _INERT)
    return SlurmConf(path, opts, tuple(left_out), tuple(unhonoured), inert)


def _bools() -> dict[str, bool]:
    return {**dict.fromkeys(_TRUE, True), **dict.fromkeys(_FALSE, False)}


def read_conf(path: str | Path) -> SlurmConf:
    """A slurm.conf (``coschedlab:NAME`` allowed) as ``slurm`` options; a missing or
    unreadable file, a malformed line or a bad value of a modelled key is an
    :class:`InputError` (``file:line``)."""
    return _interpret(str(path), entries(path))


# -- the hook in Slurm.__init__ -------------------------------------------------------------------
_SAID: set[str] = set()


def say_once(note: str | None) -> None:
    """Print ``note`` on stderr (``note: ...``) the first time this process meets it; worker
    processes of a sweep stay quiet (the parent said it when it checked the spec)."""
    if note is None or note in _SAID:
        return
    # a worker of a sweep was started by multiprocessing, which it has imported; a process
    # without it is not one (and does not pay for importing it on every command)
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.parent_process() is not None:
        return
    _SAID.add(note)
    print(f"note: {note}", file=sys.stderr)


def conf_option(init: Callable[..., None]) -> Callable[..., None]:
    """Decorate ``Slurm.__init__``: with ``conf=FILE`` the file's options (Slurm's defaults
    where it is silent) fill in every option not given explicitly."""
    sig = inspect.signature(init)

    @functools.wraps(init)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> None:
        given = sig.bind_partial(self, *args, **kwargs).arguments
        given = {k: v for k, v in given.items() if k != "self"}
        conf = given.get("conf")
        if conf is not None:
            if isinstance(conf, bool) or not isinstance(conf, str | Path):
                raise InputError(f"option conf must be a slurm.conf file, got {conf!r}")
            site = read_conf(conf)
            say_once(site.note())
            given = {**site.options, **given}
        init(self, **given)
        if conf is not None:
            self.file_options = site.options

    return wrapper
