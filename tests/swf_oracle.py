"""SWF's job-line text in vectorised NumPy: the code the compiled rows
(``coschedlab._core.textrows.write_fixed_width``) replaced, kept as their oracle
(test_swf.py)."""

from __future__ import annotations

import numpy as np


def _format_python(a: np.ndarray) -> np.ndarray:
    """Slow path of :func:`_number_cells` for huge values: right-aligned text cells."""
    out = []
    for v in a.tolist():
        if v == round(v):
            out.append(str(int(v)))
        else:
            text = f"{v:.6f}".rstrip("0").rstrip(".")
            out.append("0" if text in ("-0", "") else text)
    col = np.array(out, dtype="S")
    width = int(np.strings.str_len(col).max())
    return np.strings.rjust(col, width).astype(f"S{width}").view(np.uint8).reshape(len(a), width)


def _number_cells(values: np.ndarray) -> np.ndarray:
    """A column as an (n, width) uint8 matrix of right-aligned ASCII text.

    Integer values print as integers, others with at most 6 decimals and no trailing zeros;
    NaN and infinities print as -1 (unknown). Vectorised: one pass per character column.
    """
    a = np.asarray(values, dtype=np.float64)
    a = np.where(np.isfinite(a), a, -1.0)
    n = len(a)
    if n == 0:
        return np.empty((0, 1), dtype=np.uint8)
    if (a == a[0]).all():  # e.g. a column of -1: format once
        cell = _format_python(a[:1])
        return np.broadcast_to(cell, (n, cell.shape[1]))
    if np.abs(a).max() >= 9e12:
        return _format_python(a)
    m = np.abs(a)
    whole = np.floor(m)
    fp = np.round((m - whole) * 1e6).astype(np.int64)  # exact: m - whole is exact
    carry = fp >= 1_000_000
    fp[carry] = 0
    ip = whole.astype(np.int64) + carry
    neg = (a < 0) & ((ip > 0) | (fp > 0))
    nfrac = np.where(fp > 0, 6, 0)
    for k in range(1, 7):  # strip trailing zeros of the fraction
        nfrac -= (fp > 0) & (fp % 10**k == 0)
    has_frac = nfrac > 0
    # all printed digits as one integer: int part then the kept fraction digits
    digits = ip * 10**nfrac + fp // 10 ** (6 - nfrac)
    n_digits = np.ones(n, dtype=np.int64)
    for k in range(1, 19):
        n_digits += digits >= 10**k
    n_digits = np.maximum(n_digits, nfrac + 1)  # "0.5", not ".5"
    width = int((n_digits + has_frac + neg).max())
    cells = np.empty((n, width), dtype=np.uint8)
    cur = digits
    for r in range(width):  # r-th character from the right
        is_point = has_frac & (nfrac == r)
        index = r - (has_frac & (nfrac < r))
        char = np.where(
            index < n_digits,
            48 + cur % 10,
            np.where(neg & (index == n_digits), ord("-"), ord(" ")),
        )
        cells[:, width - 1 - r] = np.where(is_point, ord("."), char)
        cur = np.where(is_point, cur, cur // 10)
    return cells


def _fixed_width_lines(columns: list[np.ndarray]) -> bytes:
    """Right-aligned columns separated by one space, one row per line (vectorised)."""
    n = len(columns[0])
    if n == 0:
        return b""
    cells = [_number_cells(col) for col in columns]
    line_len = sum(c.shape[1] for c in cells) + len(cells)
    buf = np.full((n, line_len), ord(" "), dtype=np.uint8)
    pos = 0
    for c in cells:
        buf[:, pos : pos + c.shape[1]] = c
        pos += c.shape[1] + 1
    buf[:, -1] = ord("\n")
    return buf.tobytes()
