"""Run Cobalt's Qsim (Python 2.7) on inputs written by make_inputs.py.

    TZ=UTC PYENV_VERSION=2.7.18 python2 run_qsim.py \
        COBALT_LIB INPUTS OUT BG_SCHEME CLUSTER_SCHEME RATIO

COBALT_LIB is a directory holding the package ``Cobalt`` (a link to a Cobalt checkout's
src/lib; see README.md). This is Qsim's own ``integrated_main`` (src/components/qsim.py) in
batch mode with coscheduling, with two changes, both stated in README.md:

* the queue score's "now" is the simulated clock: at the paper's revision Qsim's
  ``compute_utility_scores`` read ``time.time()`` (the wall clock; Cobalt fixed it in commit
  5e4c7b3f, 2011-06-27, "change time.time() to get_current_time"), which makes a run depend on
  the day it is made;
* ``bqsim.TOTAL_NODES`` (Intrepid's 40960, used by the hold cap 0.6 x TOTAL_NODES) is the size
  of the Blue Gene in partitions.xml.

Qsim writes its logs into INPUTS/qsim-logs (cobalt.conf's cqm log_dir); they are copied to OUT.
"""

import os
import shutil
import sys


def main():
    cobalt_lib, inputs, out, bg_scheme, cl_scheme, ratio = sys.argv[1:7]
    inputs = os.path.abspath(inputs)
    os.environ["COBALT_CONFIG_FILES"] = os.path.join(inputs, "cobalt.conf")
    sys.path.insert(0, os.path.abspath(cobalt_lib))
    logdir = os.path.join(inputs, "qsim-logs")
    if os.path.isdir(logdir):
        shutil.rmtree(logdir)
    os.mkdir(logdir)

    import Cobalt.Components.bqsim as bqsim
    import Cobalt.Components.cqsim as cqsim
    from Cobalt.Components.evsim import EventSimulator
    from Cobalt.Components.slp import TimingServiceLocator
    from Cobalt.Proxy import ComponentProxy

    class SimTime(object):  # noqa: UP004 (Python 2: a new-style class)
        """``time`` for the score functions: time() is the simulated clock."""

        def __getattr__(self, name):
            import time

            return getattr(time, name)

        def time(self):
            return ComponentProxy("event-manager").get_current_time()

    bqsim.time = SimTime()
    cqsim.time = SimTime()
    with open(os.path.join(inputs, "partitions.xml")) as f:
        midplanes = f.read().count("<Partition ")
    bqsim.TOTAL_NODES = 512 * midplanes

    options = {
        "bgjob": os.path.join(inputs, "bg.log"),
        "cjob": os.path.join(inputs, "cluster.log"),
        "config_file": os.path.join(inputs, "partitions.xml"),
        "outputlog": "run",
        "coscheduling": (bg_scheme, cl_scheme),
        "mate_ratio": float(ratio),
        "batch": True,
    }
    TimingServiceLocator()
    evsim = EventSimulator(**options)
    bq = bqsim.BGQsim(**options)
    cq = cqsim.ClusterQsim(**options)
    if bg_scheme == "hold":
        evsim.init_unhold_events(0)
    if cl_scheme == "hold":
        evsim.init_unhold_events(1)
    while not evsim.is_finished():
        evsim.event_driver()
    bq.post_simulation_handling()
    cq.post_simulation_handling()
    if not os.path.isdir(out):
        os.makedirs(out)
    for name in os.listdir(logdir):
        shutil.copy(os.path.join(logdir, name), out)


if __name__ == "__main__":
    main()
