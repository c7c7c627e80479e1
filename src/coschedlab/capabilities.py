"""The built-in capabilities, each registered as ONE :class:`~coschedlab.sweeps.capability.
Capability` object: the command line's sweep commands, the dashboard's sweep sections and
pages, the readers of uploaded specs and ``sweep_kind`` are generated from them.

Their parts are named ``"module:attribute"`` (imported when first used), so that the command
line starts without importing every capability. A new capability adds its object here.
"""

from __future__ import annotations

from pathlib import Path

from .sweeps.capability import Capability, Option, register

__all__ = ["COMPARISON", "COUPLED", "ELISE", "INSITU", "STUDY", "WORKFLOWS"]

#: ``coschedlab compare``: workloads x schedulers x repetitions (the dashboard's run and
#: results pages show it)
COMPARISON = register(Capability(
    "comparison", "coschedlab.experiments.comparison:SWEEP",
    load_spec="coschedlab.experiments.spec:load_spec",
    report="coschedlab.experiments.compare:report", shown="coschedlab.experiments.compare:shown",
    help="Run every workload x scheduler x repetition of SPEC (resuming: finished runs are "
    "kept), print the comparison table and write comparison.csv and the plots.",
    page=None, command="compare", failed_exit=1, stdout=True,
    options=(Option("spec", (), Path, help="comparison spec (YAML, see docs/experiments.md)"),),
))  # fmt: skip

#: ``coschedlab workflows compare``: workflow x share (or period) x seed x mode
WORKFLOWS = register(Capability(
    "workflows", "coschedlab.workflows.sweep:SWEEP",
    load_spec="coschedlab.workflows.sweep:load_workflow_spec",
    summary="coschedlab.workflows.sweep:summary",
    report="coschedlab.workflows.sweep:report",
    bundled=(("woas-small (bundled)", "coschedlab:sweeps/woas_small.yaml"),),
    title="Sweep: workflows x shares x modes (stored, resumable)",
    help="Run a workflow x share x seed x mode sweep (resuming: finished runs are kept), "
    "write summary.csv, the utilization-gain table and the figures, and print the summary.",
    upload="workflow-sweep", prefix="wf", default_out="sweeps/woas-small",
))  # fmt: skip

#: ``coschedlab coupled compare``: scheme x load and scheme x paired proportion, x seed
COUPLED = register(Capability(
    "coupled", "coschedlab.coupled.sweep:SWEEP",
    load_spec="coschedlab.coupled.sweep:load_coupled_spec",
    summary="coschedlab.coupled.sweep:summary",
    report="coschedlab.coupled.sweep:report",
    bundled=(("coupled-small (bundled)", "coschedlab:sweeps/coupled_small.yaml"),),
    title="Sweep: schemes x loads x pairing (stored, resumable)",
    help="Run the scheme x load and scheme x paired-proportion sweep (resuming: finished runs "
    "are kept); write summary.csv and the figures (like the paper's Figs 3-10); print the "
    "table.",
    upload="coupled-sweep", prefix="cp", default_out="sweeps/coupled-small",
))  # fmt: skip

#: ``coschedlab study reproduce``: configurations O, A-E on 32 and 64 workers (SimX Table 5)
STUDY = register(Capability(
    "study", "coschedlab.studies.sweep:SWEEP",
    load_spec="coschedlab.studies.sweep:load_reproduction",
    summary="coschedlab.studies.sweep:summary", report="coschedlab.studies.sweep:report",
    shown="coschedlab.studies.sweep:shown",
    bundled=(("helium (bundled)", "coschedlab:helium_study.yaml"),),
    title="Sweep: reproduce Table 5 (O, A-E on 32 and 64 workers; stored, resumable)",
    upload="study", prefix="st", default_out="sweeps/helium-table5", page="studies",
    check="coschedlab.studies.sweep:check_command", command="study reproduce",
    help="The seed's Table 5: configurations O, A-E on 32 and 64 workers, simulated, beside "
    "the published figures (table5.csv, table5.png, a scheduling graph per run of the spec's "
    "seed). The runs are a sweep (OUT/runs, one file each) on the local pool or a Dask "
    "cluster: an interrupted reproduction resumes, and more --seeds extend a finished one.",
    options=(
        Option("out", ("--out",), Path, help="output directory"),
        Option("spec", ("--spec",), str, "helium", "the study (default: helium)"),
        Option("seeds", ("--seeds",), int, 1, "average over the work model drawn with seeds "
               "0..N-1 (default: the spec's seed only)"),
        Option("fresh", ("--fresh", "--force"), bool, False,
               "discard the runs already stored in the output (as compare's --fresh)"),
    ),
))  # fmt: skip

#: ``coschedlab insitu reproduce``: the paper's sweeps x scenarios x heuristic pairs x trials,
#: from the command's options (the insitu page has its own forms)
INSITU = register(Capability(
    "insitu", "coschedlab.insitu.sweep:SWEEP", load_spec="coschedlab.insitu.sweep:load_spec",
    report="coschedlab.insitu.sweep:report", page=None, command="insitu reproduce",
    failed_exit=1,
    help="Run the paper's four sweeps x 8 scenarios x 4 heuristic pairs x trials; write CSVs "
    "and Fig. 4, Fig. 5 and Table II figures into OUT. Interrupted runs resume.",
    options=(
        Option("spec"),  # its spec is these options
        Option("out", ("--out",), Path, help="output directory (resumable)"),
        Option("trials", ("--trials",), int, 5,
               "random ensembles per configuration, averaged"),
        Option("sweeps", ("--sweeps",), str, "nodes,simulations,analyses,data",
               "comma list of nodes,simulations,analyses,data"),
        Option("steps", ("--steps",), int, 100, "time steps of each simulation"),
        Option("network", ("--network",), str, "paper", "paper | per-node"),
        Option("engine", ("--engine",), str, "activities",
               "activities | ptask (the bundled results' engine)"),
        Option("seed", ("--seed",), int, 0,
               "trial t draws its ensemble with seed SEED + t (the same for every plan)"),
        Option("alloc_bandwidth", ("--alloc-bandwidth",), str, "B3",
               "bandwidth the allocation uses: B3 (the authors' Fig. 4 data) or B (their "
               "Table II data)"),
    ),
))  # fmt: skip

#: ``coschedlab elise run``: every input x scheduler of an ELiSE experiment file, ELiSE's
#: files written beside coschedlab's results
ELISE = register(Capability(
    "elise", "coschedlab.coloc.elise.run:SWEEP",
    load_spec="coschedlab.coloc.elise.run:load_experiment",
    summary="coschedlab.coloc.elise.run:summary", report="coschedlab.coloc.elise.run:report",
    shown="coschedlab.coloc.elise.run:shown",
    command="elise run", spec_file="coschedlab/spec.json", upload="elise-experiment",
    prefix="el", default_out="elise/run", label="ELiSE",
    bundled=(("elise-small (bundled)", "coschedlab:sweeps/elise_small.yaml"),),
    title="Sweep: an ELiSE experiment file (inputs x schedulers; stored, resumable)",
    help="Run every input x scheduler of an ELiSE EXPERIMENT file (resuming: finished runs are "
    "kept), print a table of the runs, and write ELiSE's files (workloads/*.csv, plots, "
    "time_reports.csv) and coschedlab's results (coschedlab/) into the output folder.",
    options=(
        Option("spec", (), Path, help="ELiSE experiment file (YAML)"),
        Option("out", ("--out", "-o"), Path | None, None, "output folder (default: the 'dir' "
               "of the file's actions, where ELiSE writes; else out/elise/NAME)"),
        Option("seed", ("--seed",), int, 0, "the first reading of the clock ELiSE's "
               "generators seed from (ELiSE reads the time; the same seed draws the same "
               "workloads)"),
        Option("compat", ("--compat",), str | None, None, "reproduce ELiSE's bugs too: all, "
               "or any of late-kill, clock, conservative, alone (default: none; see "
               "docs/elise.md)"),
    ),
))  # fmt: skip
