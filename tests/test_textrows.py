"""The compiled jobs.csv rows (``coschedlab._core.textrows``) against pyarrow's CSV writer,
which wrote jobs.csv before and stays the oracle: the same bytes for any doubles (NaN,
infinities, -0, subnormals, every exponent), 64-bit integers and texts (quotes, commas, line
ends, non-ASCII)."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=300, deadline=None)
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
    import pytest

    from coschedlab._core.textrows import utf8_column

    with pytest.raises(TypeError, match="text 1 is NoneType"):
        utf8_column(["a", None])
