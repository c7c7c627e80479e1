"""Workflow-aware scheduling (WoAS; Rodrigo et al., HPDC'17): workflows submitted as chained
jobs, pilot jobs or WoAS jobs into a loaded machine under a Slurm-like scheduler.

* :mod:`.model` -- a workflow (tasks, dependencies) and its derived values (Tables 1-2);
* :mod:`.library` -- the paper's six workflows and the synthetic groups A, B, C;
* :mod:`.formats` -- manifests, WfFormat, Pegasus DAX, and coarsening by stage;
* :mod:`.jobmodel`, :mod:`.workload` -- the Edison-like workload generator;
* :mod:`.modes` -- the three submission modes; :mod:`.simulate` -- one simulated mode;
* :mod:`.metrics` -- the paper's metrics; :mod:`.plots` -- its figures;
* :mod:`.sweep` -- the experiments as a resumable sweep (``coschedlab workflows compare``).
"""

from .formats import coarsen, load_workflow, read_dax, read_manifest, read_wfformat
from .jobmodel import JobModel, fit_job_model
from .library import builtin, group
from .metrics import completed_in_all
from .model import Task, Workflow
from .modes import MODES, expand
from .simulate import WorkflowRun, simulate_mode
from .workload import EDISON, WorkflowWorkload, generate

__all__ = [
    "EDISON",
    "MODES",
    "JobModel",
    "Task",
    "Workflow",
    "WorkflowRun",
    "WorkflowWorkload",
    "builtin",
    "coarsen",
    "completed_in_all",
    "expand",
    "fit_job_model",
    "generate",
    "group",
    "load_workflow",
    "read_dax",
    "read_manifest",
    "read_wfformat",
    "simulate_mode",
]
