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
