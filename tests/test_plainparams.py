"""Plain option values taken without pydantic (``coschedlab.cli.plainparams``) are what
typer's own pydantic coercion gives; any other value still goes through typer's."""

from __future__ import annotations

from pathlib import Path

import pytest

from coschedlab.cli.plainparams import NOT_PLAIN, plain_value

TEXTS = [
    "0", "7", "-3", "12", "007", " 12", "12 ", "1_000", "+5", "1.0", "1.5", "-0.25", "1e3",
    "1E-3", "2.5e+2", "1e400", "nan", "inf", "-inf", "0x10", "", "abc", "１２", "12a", "-",
    "10000000000000000000000",
]  # fmt: skip


def _typer_value(annotation, value):
    """What typer's pydantic coercion makes of ``value`` (or the error message)."""
    from typer._coercion import build_runtime_param, resolve_type_descriptor
    from typer.models import OptionInfo

    param = build_runtime_param(resolve_type_descriptor(annotation, OptionInfo()))
    try:
        return param.adapter.validate_python(value)
    except Exception as exc:  # noqa: BLE001 (pydantic's ValidationError)
        return ("error", type(exc).__name__)


@pytest.mark.parametrize("kind, annotation", [("int", int), ("float", float), ("str", str)])
@pytest.mark.parametrize("text", TEXTS)
def test_a_plain_value_is_typers(kind, annotation, text):
    got = plain_value(kind, text)
    if got is NOT_PLAIN:
        return  # typer's own coercion takes it
    want = _typer_value(annotation, text)
    assert type(got) is type(want) and got == want


def test_the_plain_values_are_the_common_ones():
    """The test above compares something: the usual texts are taken here."""
    assert plain_value("int", "12") == 12 and plain_value("int", "-3") == -3
    assert plain_value("float", "0.5") == 0.5 and plain_value("float", "7") == 7.0
    assert plain_value("path", "a/b") == Path("a/b")
    assert plain_value("list[str]", ("easy", "fcfs")) == ["easy", "fcfs"]
    assert plain_value("bool", True) is True
    for kind, value in [("int", " 12"), ("int", "1_000"), ("float", " 1"), ("path", ""),
                        ("bool", "yes"), ("int", "1.0")]:  # fmt: skip
        assert plain_value(kind, value) is NOT_PLAIN


def test_other_values_still_go_through_typer(tmp_path):
    """``--nodes 1_0`` and ``--nodes ' 12'`` (pydantic's lax integers) and a bad number (its
    message) are typer's."""
    from typer.testing import CliRunner

    from coschedlab.cli.main import build_app

    runner = CliRunner()
    trace = "coschedlab:KTH-SP2-1996-2.1-cln.swf.gz"
    for text, nodes in (("1_0", 10), (" 12", 12)):
        out = tmp_path / f"o{nodes}"
        done = runner.invoke(build_app("simulate"), ["simulate", trace, "--nodes", text,
                                                     "--out", str(out)])  # fmt: skip
        assert done.exit_code == 0, done.output
        assert f"on {nodes} nodes" in " ".join(done.output.split())
    done = runner.invoke(build_app("simulate"), ["simulate", trace, "--nodes", "x"])
    assert done.exit_code == 2
    assert "Input should be a valid integer" in done.output
