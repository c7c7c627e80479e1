"""Scheduler names: built-ins and plug-ins (entry points) are looked up one by one."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import EntryPoint

import pytest

from coschedlab import InputError
from coschedlab.schedulers import registry
from coschedlab.schedulers.registry import available, get_scheduler, known_names

GROUP = "coschedlab.schedulers"


@pytest.fixture
def broken_plugin(monkeypatch):
    """The installed entry points plus one whose module does not exist."""
    real = registry.entry_points
    broken = EntryPoint(name="broken", value="no_such_module_xyz:Policy", group=GROUP)

    def entry_points(*, group, name=None):
        eps = [*real(group=group), broken] if group == GROUP else list(real(group=group))
        return [ep for ep in eps if name is None or ep.name == name]

    monkeypatch.setattr(registry, "entry_points", entry_points)
    return broken


def test_a_broken_plugin_does_not_break_the_other_names(broken_plugin):
    assert get_scheduler("easy").describe() == "easy"
    assert get_scheduler("easy-coloc").describe().startswith("easy-coloc")
    assert "broken" in known_names() and "easy" in known_names()
    with pytest.raises(InputError, match="entry point 'broken' fails to load"):
        get_scheduler("broken")
    with pytest.raises(InputError, match="entry point 'broken' fails to load"):
        available()


def test_unknown_name_lists_every_name_without_loading_plugins(broken_plugin):
    with pytest.raises(InputError) as err:
        get_scheduler("eazy")
    text = str(err.value)
    assert text.startswith("unknown scheduler 'eazy'; choose one of ")
    for name in ("broken", "conservative", "easy", "easy-coloc", "fcfs", "filler"):
        assert name in text


def test_a_builtin_name_imports_no_plugin():
    code = (
        "import sys; from coschedlab.schedulers import get_scheduler\n"
        "get_scheduler('easy:extra=false')\n"
        "print(any(m.startswith('coschedlab.coloc') for m in sys.modules))\n"
        "get_scheduler('filler')\n"
        "print('coschedlab.coloc.schedulers' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_a_builtin_imports_only_its_own_module():
    code = (
        "import sys; from coschedlab.schedulers import get_scheduler\n"
        "get_scheduler('easy')\n"
        "mods = ('backfill', 'slurm', 'slurm_conf', 'priority', 'strict')\n"
        "print(*(f'coschedlab.schedulers.{m}' in sys.modules for m in mods))\n"
        "get_scheduler('sjf')\n"
        "print('coschedlab.schedulers.strict' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False", "False", "False", "False", "True"]


def test_builtins_listed_first_in_their_order_and_exported():
    import coschedlab.schedulers as pkg

    names = list(available())
    assert names[:7] == ["backfill", "easy", "conservative", "slurm", "fcfs", "sjf", "firstfit"]
    assert list(registry.BUILTINS) == names[:7]
    for name in registry.BUILTINS:
        assert available()[name].name == name
    for export in pkg.__all__:
        assert getattr(pkg, export) is not None
    assert set(pkg.__all__) <= set(dir(pkg))
    assert pkg.EASY is available()["easy"] and pkg.Slurm is available()["slurm"]
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        pkg.Nope  # noqa: B018


def test_a_user_class_registered_under_a_builtin_name_stays_registered():
    code = (
        "from coschedlab.schedulers import Scheduler, register, get_scheduler\n"
        "@register('sjf')\n"
        "class Mine(Scheduler):\n"
        "    def schedule(self, view):\n"
        "        return []\n"
        "from coschedlab.schedulers import SJF\n"  # the built-in's module imported afterwards
        "print(type(get_scheduler('sjf')).__name__, SJF.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Mine", "SJF"]
