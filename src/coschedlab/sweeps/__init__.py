"""The runtime: every sweep of every capability, from a spec to stored runs.

- :mod:`.tasks`: a run (:class:`Task`), what it gave (:class:`Outcome`), what a sweep did
  (:class:`Summary`);
- :mod:`.runner`: the one resumable runner (:func:`run_tasks`);
- :mod:`.executors`: where runs execute (``--executor``: local, ``dask:``, ``dask-local:``,
  ``slurm:``, ``pbs:``); :mod:`.pool` the local processes, :mod:`.cluster` Dask, and
  :mod:`.shipping` the inputs shipped to Dask workers;
- :mod:`.progress`: how far a sweep is, for a watcher (the dashboard);
- :mod:`.store`: the one store (:class:`Store`), one run written atomically at a time;
- :mod:`.sweep`: the one driver (:class:`Sweep`): output check, spec.json, resume.

It depends only on errors / outputs / schema (and the JSON and table helpers): capabilities
are known to it only through the registry (:mod:`.capability`). Import from the modules
(this package imports none of them: the command line starts without the runner).
"""

#: the environment variable naming a process whose end ends a sweep's command (the
#: dashboard's pid, for the sweeps it starts: :func:`.pool.watch_parent`)
PARENT = "COSCHEDLAB_GUI_PID"
