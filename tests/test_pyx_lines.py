"""Ruff checks the Python files' line length (100 columns, pyproject.toml); it does not read
Cython's ``.pyx``/``.pxd``. This keeps them to the same width."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "coschedlab"
WIDTH = 100


def long_lines(root: Path) -> list[str]:
    """``file:line: N columns`` for every line wider than :data:`WIDTH` of the ``.pyx`` and
    ``.pxd`` files under ``root``."""
    out = []
    for path in sorted([*root.rglob("*.pyx"), *root.rglob("*.pxd")]):
        for i, line in enumerate(path.read_text().splitlines(), start=1):
            if len(line) > WIDTH:
                out.append(f"{path.relative_to(root)}:{i}: {len(line)} columns")
    return out


def test_cython_lines_fit_in_100_columns():
    assert next(PACKAGE.rglob("*.pyx"), None) is not None  # (the check reads something)
    assert long_lines(PACKAGE) == []


def test_a_line_of_101_columns_is_found(tmp_path):
    (tmp_path / "a.pyx").write_text("x = 1\n" + "#" * 100 + "\n")
    (tmp_path / "b.pxd").write_text("cdef int y\n" + "#" * 101 + "\n")
    assert long_lines(tmp_path) == ["b.pxd:2: 101 columns"]
