"""The compiled jobs.csv rows (``coschedlab._core.textrows``) against pyarrow's CSV writer,
which wrote jobs.csv before and stays the oracle: the same bytes for any doubles (NaN,
infinities, -0, subnormals, every exponent), 64-bit integers and texts (quotes, commas, line
ends, non-ASCII). The floats' digits, from C++'s ``std::to_chars`` (and from Python's
``repr`` routine where it is missing), against ``repr``."""

from __future__ import annotations

import io
import math
import struct

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coschedlab._core import textrows
from coschedlab._core.textrows import CODE, CONST, FLOAT, INT, QUOTED_INT, TEXT, write_rows


def _arrow(columns: dict) -> bytes:
    table = pa.table({k: pa.array(v, from_pandas=True) for k, v in columns.items()})
    sink = pa.BufferOutputStream()
    options = pa_csv.WriteOptions(quoting_style="needed", include_header=False)
    pa_csv.write_csv(table, sink, options)
    return sink.getvalue().to_pybytes()


def _ours(n: int, columns: list) -> bytes:
    buf = io.BytesIO()
    write_rows(buf.write, n, columns)
    return buf.getvalue()


rows = st.integers(min_value=1, max_value=40)


@settings(max_examples=150, deadline=None)
@given(st.data(), rows)
def test_rows_are_pyarrows_bytes(data, n):
    floats = data.draw(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=n,
                                max_size=n))  # fmt: skip
    whole = data.draw(st.lists(st.integers(-(10**12), 10**12).map(float), min_size=n,
                               max_size=n))  # fmt: skip
    ints = data.draw(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n, max_size=n))
    texts = data.draw(st.lists(st.text(max_size=8), min_size=n, max_size=n))
    f, w, i = np.array(floats), np.array(whole), np.array(ints, dtype=np.int64)
    expected = _arrow({"f": f, "w": w, "i": i, "t": texts})
    got = _ours(n, [(FLOAT, f), (FLOAT, w), (INT, i), (TEXT, texts, str)])
    assert got == expected


def test_random_bit_patterns_and_edges():
    """200,000 doubles from random bits (every exponent), and the edges of the layouts."""
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**64 - 1, 200_000, dtype=np.uint64, endpoint=True)
    edges = [0.0, -0.0, 1e-7, 1e-6, 9.999999e-7, 1e10, 9999999999.0, 9999999999.5, 1e16,
             2.0**53, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.3]  # fmt: skip
    f = np.concatenate([bits.view(np.float64), edges, np.negative(edges)])
    assert _ours(len(f), [(FLOAT, f)]) == _arrow({"f": f})


def test_the_other_kinds():
    """Constants, quoted integers (negative: empty text) and coded labels."""
    app = np.array([-1, 0, 17, 2**40], dtype=np.int64)
    codes = np.array([1, 0, 1, 2], dtype=np.uint8)
    labels = (b'"A"', b'"B,C"', b'"D"')
    got = _ours(4, [(CONST, b'"w0"'), (QUOTED_INT, app), (CODE, codes, labels)])
    assert got == b'"w0","","B,C"\n"w0","0","A"\n"w0","17","B,C"\n"w0","1099511627776","D"\n'


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(0, 5))
def test_any_sequence_of_kinds_is_the_cells_joined(data, n):
    """A row's program (each cell with the constants and commas before it, one room per
    row): any order of the kinds, constants first, last, side by side, longer than a copy of
    fixed size, gives each row's cells joined by commas."""
    from coschedlab._core.textrows import ALLOC

    consts = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b""))
    ints = st.lists(st.integers(-(2**63), 2**63 - 1), min_size=n, max_size=n)
    columns, cells = [], []
    for _ in range(data.draw(st.integers(1, 9))):
        kind = data.draw(st.sampled_from(["const", "float", "int", "quoted", "code", "alloc",
                                          "text"]))  # fmt: skip
        if kind == "const":
            b = data.draw(consts)
            columns.append((CONST, b))
            cells.append([b] * n)
        elif kind == "float":
            f = np.array(data.draw(st.lists(st.floats(), min_size=n, max_size=n)), dtype=float)
            columns.append((FLOAT, f))
            cells.append([_ours(1, [(FLOAT, f[i : i + 1])])[:-1] for i in range(n)])
        elif kind in ("int", "quoted"):
            v = np.array(data.draw(ints), dtype=np.int64)
            columns.append((INT if kind == "int" else QUOTED_INT, v))
            text = [str(x).encode() for x in v.tolist()]
            if kind == "quoted":
                text = [b'"' + (t if x >= 0 else b"") + b'"'
                        for t, x in zip(text, v.tolist(), strict=True)]  # fmt: skip
            cells.append(text)
        elif kind == "code":
            labels = tuple(data.draw(st.lists(consts, min_size=1, max_size=4)))
            codes = data.draw(st.lists(st.integers(0, len(labels) - 1), min_size=n, max_size=n))
            columns.append((CODE, np.array(codes, dtype=np.uint8), labels))
            cells.append([labels[k] for k in codes])
        elif kind == "alloc":
            cnt = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
            off = np.concatenate([[0], np.cumsum(2 * cnt)[:-1]]).astype(np.int64)
            flat = np.arange(2 * int(cnt.sum()), dtype=np.int32) * 3 + 1
            columns.append((ALLOC, (off, cnt.astype(np.int32), flat)))
            text = []
            for j in range(n):
                iv = [(int(flat[off[j] + 2 * k]), int(flat[off[j] + 2 * k + 1]) - 1)
                      for k in range(cnt[j])]  # fmt: skip
                text.append(('"' + " ".join(f"{a}-{b}" if b != a else f"{a}" for a, b in iv)
                             + '"').encode())  # fmt: skip
            cells.append(text)
        else:
            t = data.draw(st.lists(st.text(max_size=30), min_size=n, max_size=n))
            columns.append((TEXT, t, str))
            cells.append([('"' + x.replace('"', '""') + '"').encode() for x in t])
    want = b"".join(b",".join(col[i] for col in cells) + b"\n" for i in range(n))
    assert _ours(n, columns) == want


def test_objects_that_are_not_text_go_through_the_columns_callable():
    got = _ours(3, [(TEXT, ["a", None, [1, 2]], lambda v: "?" if v is None else "list")])
    assert got == b'"a"\n"?"\n"list"\n'


def test_a_long_text_and_many_rows_cross_the_chunks():
    """Texts longer than the write buffer, and more rows than one chunk holds."""
    long = "x" * (3 << 20)
    n = 200_000
    texts = [long if k == 5 else str(k) for k in range(n)]
    f = np.arange(n) / 7
    assert _ours(n, [(FLOAT, f), (TEXT, texts, str)]) == _arrow({"f": f, "t": texts})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=12), max_size=30))
def test_utf8_column_is_the_encoded_texts(texts):
    """Arrow's string buffers of a text column (jobs.parquet's alloc) without a bytes object
    per text: the offsets and bytes of the texts encoded one by one."""
    from coschedlab._core.textrows import utf8_column

    offsets, data = utf8_column(texts)
    encoded = [t.encode() for t in texts]
    assert bytes(data) == b"".join(encoded)
    assert offsets.tolist() == [0, *np.cumsum([len(b) for b in encoded]).tolist()]


def test_utf8_column_refuses_what_is_not_text():
    from coschedlab._core.textrows import utf8_column

    with pytest.raises(TypeError, match="text 1 is NoneType"):
        utf8_column(["a", None])


# --- the float digits: C++'s std::to_chars against Python's repr ---------------------------


def _repr_digits(v: float) -> tuple[str, int]:
    """The significant digits of ``repr(abs(v))`` and the decimal exponent of the first."""
    mant, _, e = repr(abs(v)).partition("e")
    whole, _, frac = mant.partition(".")
    digits = whole + frac
    first = len(whole) - 1 + (int(e) if e else 0)
    stripped = digits.lstrip("0")
    first -= len(digits) - len(stripped)
    return stripped.rstrip("0"), first


def _csv_text(v: float) -> str:
    """jobs.csv's text of ``v``, laid out from ``repr``'s digits (the module docstring)."""
    if math.isnan(v):
        return ""
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    sign = "-" if math.copysign(1.0, v) < 0 else ""
    if v == math.floor(v) and abs(v) < 1e10:
        return sign + str(abs(int(v)))
    digits, e = _repr_digits(v)
    if e >= 10 or e < -6:
        more = "." + digits[1:] if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{more}e{'-' if e < 0 else '+'}{abs(e)}"
    if e < 0:
        return f"{sign}0.{'0' * (-e - 1)}{digits}"
    whole, frac = digits[: e + 1].ljust(e + 1, "0"), digits[e + 1 :]
    return f"{sign}{whole}.{frac}" if frac else sign + whole


@pytest.fixture(params=["to_chars", "repr"])
def digits_from(request):
    """Each test below runs on both sources of the digits (std::to_chars where the module was
    built with it; Python's repr routine, the fallback)."""
    was = textrows._set_via_repr(request.param == "repr")
    yield request.param
    textrows._set_via_repr(was)


def _bits(u: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", u))[0]


def _tie(k: int, n: int, j: int) -> float:
    """A double in [2**(52-k), 2**(53-k)) whose last bit is 2**-k (``n + odd * 2**-k``): its
    exact decimal ends in 5 at a digit where two shortest candidates can be equally near
    (2**50 + 0.25: 1125899906842624.2 and .3; repr takes the even one)."""
    return (2 ** (52 - k) + n % 2 ** (52 - k)) + (2 * (j % 2 ** (k - 1)) + 1) * 2.0**-k


finite = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(0, 2**64 - 1).map(_bits).filter(math.isfinite),  # every exponent
    st.floats(min_value=0.0, max_value=2.2250738585072014e-308),  # subnormals
    st.integers(-(2**70), 2**70).map(float),  # integers, past 2**53
    st.builds(lambda a, b: a / b, st.integers(-(10**9), 10**9), st.integers(1, 10**6)),
    st.integers(-1074, 1023).map(lambda k: math.ldexp(1.0, k)),  # uneven neighbours
    st.integers(-323, 308).map(lambda k: float(f"1e{k}")),
    st.integers(-324, 307).map(lambda k: float(f"5e{k}")),
    st.builds(_tie, st.integers(1, 7), st.integers(0, 2**52 - 1), st.integers(0, 2**62)),
    st.sampled_from([1e16, 1e-5, 1e23, 9007199254740993.0, 5e-324, 2.2250738585072014e-308,
                     1.7976931348623157e308, 0.1, 0.3, 2.5, 1e10 + 0.5, 9999999999.5]),
)  # fmt: skip


def test_built_with_to_chars():
    """This machine's g++ (12) has C++17's floating-point std::to_chars: the fast path is the
    one tested (the fallback is tested through the fixture)."""
    assert textrows.TO_CHARS


# the fixture sets the module's source of digits once per test, the same for every example
BOTH_WAYS = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@settings(BOTH_WAYS, max_examples=400)
@given(finite.filter(lambda v: v != 0))
def test_shortest_digits_are_reprs(digits_from, v):
    assert textrows._shortest_digits(v) == _repr_digits(v)


@settings(BOTH_WAYS, max_examples=150)
@given(st.lists(st.one_of(finite, st.sampled_from([math.nan, math.inf, -math.inf, -0.0])),
                min_size=1, max_size=30))  # fmt: skip
def test_float_text_is_laid_out_from_reprs_digits(digits_from, values):
    f = np.array(values)
    assert _ours(len(f), [(FLOAT, f)]).decode() == "".join(_csv_text(v) + "\n" for v in values)


def test_every_power_of_two_and_ten(digits_from):
    """The doubles whose lower neighbour is nearer than their upper (powers of two), and the
    powers of ten and their neighbours, against repr and against pyarrow."""
    values = [math.ldexp(1.0, k) for k in range(-1074, 1024)]
    values += [float(f"1e{k}") for k in range(-323, 309)]
    values += [math.nextafter(v, d) for v in values[:] for d in (0.0, math.inf)]
    values = [v for v in values if math.isfinite(v) and v != 0]
    assert [textrows._shortest_digits(v) for v in values] == [_repr_digits(v) for v in values]
    f = np.array(values + [-v for v in values])
    assert _ours(len(f), [(FLOAT, f)]) == _arrow({"f": f})


def test_random_bit_patterns_both_ways(digits_from):
    rng = np.random.default_rng(11)
    f = rng.integers(0, 2**64 - 1, 100_000, dtype=np.uint64, endpoint=True).view(np.float64)
    f = np.concatenate([f, rng.lognormal(0, 3, 50_000)])
    assert _ours(len(f), [(FLOAT, f)]) == _arrow({"f": f})
