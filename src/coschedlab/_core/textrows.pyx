# distutils: language = c++
"""The rows of the output files, compiled: columns formatted and written in chunks of about
1 MiB, no Python object made per row.

:func:`write_rows` writes Batsim's jobs.csv rows
(:func:`coschedlab.workload.batsim.write_jobs_csv` builds the columns); the text is the one
pyarrow's CSV writer gives for the same table (``quoting_style="needed"``, the format jobs.csv
always had):

* a float prints as the shortest text that reads back as the same double (Python's ``repr``
  digits), in plain decimal when its decimal exponent is within [-6, 10), else as
  ``D[.DDD]e+X`` / ``e-X`` (no padding of the exponent); NaN is an empty field, infinities
  ``inf`` and ``-inf``, and -0.0 is ``-0``. The digits come from C++17's
  ``std::to_chars`` (shortest round trip, the nearest such digits to the value: the same as
  ``repr``'s, tested), or from ``repr``'s own routine where the C++ library lacks it;
* an integer prints in decimal;
* text is quoted (``"``), a quote inside doubled.

:func:`write_fixed_width` writes SWF's job lines (:func:`coschedlab.workload.swf.write_swf`):
right-aligned columns, each as wide as its widest cell, one space between them; a number
prints as an integer when whole, else with at most 6 decimals (the fraction rounded half to
even at the sixth) and no trailing zero; non-finite values print as -1.
"""

cimport cython
from cpython.buffer cimport PyBUF_READ
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_FromStringAndSize
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.mem cimport PyMem_Free
from cpython.memoryview cimport PyMemoryView_FromMemory
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.math cimport fabs, isfinite, isnan, nearbyint, signbit
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

import numpy as np

cdef extern from "Python.h":
    char *PyOS_double_to_string(
        double val, char format_code, int precision, int flags, int *ptype
    ) except NULL

# The shortest round-trip digits of a double in C++17's <charconv> (libstdc++ 11+, Ryu):
# ``d.ddde+XX`` into ``buf``, its length returned; -1 where the library has no floating-point
# ``to_chars`` (then :meth:`_Out.put_float` asks Python's ``repr`` routine, as before).
cdef extern from *:
    """
    #if defined(__has_include)
    #  if __has_include(<charconv>)
    #    include <charconv>
    #  endif
    #endif
    #if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
    #  define COSCHED_TO_CHARS 1
    static inline int cosched_shortest(double v, char *buf, int cap) {
        std::to_chars_result r = std::to_chars(buf, buf + cap, v, std::chars_format::scientific);
        return r.ec == std::errc() ? (int)(r.ptr - buf) : -1;
    }
    #else
    #  define COSCHED_TO_CHARS 0
    static inline int cosched_shortest(double, char *, int) { return -1; }
    #endif
    """
    int cosched_shortest(double v, char *buf, int cap) noexcept nogil
    const int COSCHED_TO_CHARS

#: whether the digits come from C++'s ``std::to_chars`` (else from ``repr``'s routine)
TO_CHARS = bool(COSCHED_TO_CHARS)

# the column kinds as C constants: the row loop compares C integers, not Python objects
cdef enum:
    K_FLOAT = 0
    K_INT = 1
    K_CONST = 2
    K_TEXT = 3
    K_QUOTED_INT = 4
    K_CODE = 5
    K_ALLOC = 6

#: column kinds (the first item of each column given to :func:`write_rows`)
FLOAT = 0  # float64 array
INT = 1  # int64 array
CONST = 2  # the same bytes on every row (already formatted, quoted when text)
TEXT = 3  # a list of str (other objects: through the column's ``to_text`` callable), quoted
QUOTED_INT = 4  # int64 array, quoted; a negative value is an empty text ("")
CODE = 5  # uint8 array of indices into a tuple of formatted bytes
ALLOC = 6  # node intervals ``(off, cnt, flat)`` (:func:`alloc_text`), as Batsim's text, quoted

DEF CHUNK = 1 << 20


#: the two digits of 0..99, for writing two digits at a time
cdef const char *_DIGITS2 = (
    b"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    b"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    b"8081828384858687888990919293949596979899"
)

#: 10**k for k in 0..19
cdef uint64_t _POW10[20]
_POW10[:] = [10 ** k for k in range(20)]


# the bit length of ``u | 1`` (GCC and Clang: one instruction; else a loop)
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    static inline int cosched_bits(unsigned long long u) { return 64 - __builtin_clzll(u | 1); }
    #else
    static inline int cosched_bits(unsigned long long u) {
        int b = 1;
        while (u >>= 1) b++;
        return b;
    }
    #endif
    """
    int cosched_bits(unsigned long long u) noexcept nogil


cdef inline int _ndigits(uint64_t u) noexcept nogil:
    """The decimal digits of ``u`` (1 for 0): from its bit length (``bits * 1233 >> 12`` is
    ``floor(bits * log10(2))``, the digits of ``2**(bits - 1)`` less one), one comparison
    with a power of ten for the rest."""
    cdef int t = (cosched_bits(u) * 1233) >> 12
    return t + (u >= _POW10[t]) + (u == 0)


cdef inline char *_put_back(char *end, uint64_t u) noexcept nogil:
    """The decimal digits of ``u`` ending at ``end``, two at a time; returns where they
    start (no digit count needed: a right-aligned cell)."""
    cdef uint64_t r
    while u >= 100:
        r = u % 100
        u //= 100
        end -= 2
        memcpy(end, &_DIGITS2[2 * r], 2)  # (one 16-bit move)
    if u >= 10:
        end -= 2
        memcpy(end, &_DIGITS2[2 * u], 2)
    else:
        end -= 1
        end[0] = <char>(c'0' + u)
    return end


cdef inline char *_put_digits(char *end, uint64_t u, int k) noexcept nogil:
    """The last ``k`` decimal digits of ``u`` (leading zeros included) ending at ``end``,
    two at a time; returns where they start."""
    cdef uint64_t r
    while k >= 2:
        r = u % 100
        u //= 100
        end -= 2
        memcpy(end, &_DIGITS2[2 * r], 2)  # (one 16-bit move)
        k -= 2
    if k:
        end -= 1
        end[0] = <char>(c'0' + u % 10)
    return end


cdef inline char *_put_int(char *p, int64_t v) noexcept:
    """Decimal digits of ``v`` (a sign first when negative; room for 20 bytes) at ``p``;
    returns the end. The one integer writer of rows and of allocation texts."""
    cdef unsigned long long u
    cdef int k
    if v < 0:
        p[0] = c'-'
        p += 1
        u = <unsigned long long>(-(v + 1)) + 1
    else:
        u = <unsigned long long>v
    k = _ndigits(u)
    _put_digits(p + k, u, k)
    return p + k


@cython.final  # (its methods called directly, the small ones inlined: no call per cell)
cdef class _Out:
    cdef char *buf
    cdef Py_ssize_t n, cap
    cdef object write

    def __cinit__(self, write):
        self.cap = CHUNK + 4096
        self.buf = <char *>malloc(self.cap)
        if self.buf == NULL:
            raise MemoryError()
        self.n = 0
        self.write = write

    def __dealloc__(self):
        free(self.buf)

    cdef int flush(self) except -1:
        """Hand the buffer's bytes to ``write`` as a read-only memoryview (no copy into a bytes
        object: a file's ``write`` reads its argument only during the call, io's contract)."""
        if self.n:
            self.write(PyMemoryView_FromMemory(self.buf, self.n, PyBUF_READ))
            self.n = 0
        return 0

    cdef inline int room(self, Py_ssize_t k) except -1:
        """Make room for ``k`` more bytes (flush first when they do not fit)."""
        if self.n + k > self.cap:
            self.flush()
            if k > self.cap:
                free(self.buf)
                self.buf = <char *>malloc(k)
                if self.buf == NULL:
                    raise MemoryError()
                self.cap = k
        return 0

    cdef inline void put(self, char c) noexcept:
        self.buf[self.n] = c
        self.n += 1

    cdef int put_text(self, object s, Py_ssize_t more) except -1:
        """``s`` (a str) quoted, a quote inside doubled; room left for ``more`` bytes after
        it."""
        cdef Py_ssize_t k, j
        cdef const char *p = PyUnicode_AsUTF8AndSize(s, &k)
        self.room(2 * k + 2 + more)
        self.put(c'"')
        for j in range(k):
            if p[j] == c'"':
                self.put(c'"')
            self.put(p[j])
        self.put(c'"')
        return 0


cdef inline bint _whole(double v, int64_t *iv) noexcept:
    """``v`` is a whole number of at most 10 digits (``iv``: its value): the cast back gives
    ``v`` again (what ``v == floor(v)`` says in that range, without ``floor``'s rounding
    sequence on a CPU without SSE4.1)."""
    if not fabs(v) < 1e10:  # (NaN, infinities)
        return False
    iv[0] = <int64_t>v
    return <double>iv[0] == v


#: bytes a float cell may take (17 significant digits, a sign, ``0.00000`` or an exponent)
DEF FLOAT_ROOM = 40


cdef char *_put_float(char *p, double v) except NULL:
    """``v`` as pyarrow writes a double (see the module docstring) at ``p`` (room for
    :data:`FLOAT_ROOM` bytes); returns the end."""
    cdef char digits[32]
    cdef int nd, exp10, k, lead
    cdef int64_t iv
    if _whole(v, &iv):
        if iv == 0 and signbit(v):
            p[0] = c'-'
            p += 1
        return _put_int(p, iv)
    if isnan(v):
        return p
    if not isfinite(v):
        if v < 0:
            p[0] = c'-'
            p += 1
        memcpy(p, b"inf", 3)
        return p + 3
    nd = _shortest(fabs(v), digits, &lead, &exp10)  # digits[lead:nd], D.DDD * 10**exp10
    if v < 0:
        p[0] = c'-'
        p += 1
    if -6 <= exp10 < 10:
        if exp10 >= 0:
            for k in range(exp10 + 1):
                p[0] = digits[lead + k] if lead + k < nd else c'0'
                p += 1
            if lead + exp10 + 1 < nd:
                p[0] = c'.'
                p += 1
                for k in range(lead + exp10 + 1, nd):
                    p[0] = digits[k]
                    p += 1
        else:
            p[0] = c'0'
            p[1] = c'.'
            p += 2
            for k in range(-exp10 - 1):
                p[0] = c'0'
                p += 1
            for k in range(lead, nd):
                p[0] = digits[k]
                p += 1
    else:
        p[0] = digits[lead]
        p += 1
        if nd - lead > 1:
            p[0] = c'.'
            p += 1
            for k in range(lead + 1, nd):
                p[0] = digits[k]
                p += 1
        p[0] = c'e'
        p[1] = c'-' if exp10 < 0 else c'+'
        p = _put_int(p + 2, exp10 if exp10 >= 0 else -exp10)
    return p


#: digits from ``repr``'s routine even where ``std::to_chars`` is there (tests: both paths)
cdef bint _via_repr = not COSCHED_TO_CHARS


def _set_via_repr(bint flag):
    """Take the digits from Python's ``repr`` routine (True) or from ``std::to_chars``
    (False, where built with it); returns the previous setting. For the tests."""
    global _via_repr
    cdef bint was = _via_repr
    _via_repr = flag or not COSCHED_TO_CHARS
    return was


cdef int _shortest(double m, char *digits, int *lead, int *exp10) except -1:
    """The shortest round-trip decimal digits of ``m`` (finite, > 0): ``digits[lead:nd]``
    (``digits`` has room for 32; ``nd`` returned) are the significant ones, no leading or
    trailing zero, and ``exp10`` the decimal exponent of the first."""
    cdef char buf[48]
    cdef char *r
    cdef int nd = 0, i = 0, e_at = -1, k, point = -1
    if not _via_repr:
        k = cosched_shortest(m, buf, 47)
        if k > 0:  # D[.DDD]e[+-]XX
            digits[0] = buf[0]
            nd = i = 1
            if buf[1] == c'.':
                i = 2
                while buf[i] != c'e':
                    digits[nd] = buf[i]
                    nd += 1
                    i += 1
            buf[k] = 0
            point = 1 + _atoi(buf + i + 1)
    if nd == 0:  # Python's repr: [D...][.DDD][e[+-]X]
        r = PyOS_double_to_string(m, b'r', 0, 0, NULL)
        try:
            while r[i] != 0:
                if r[i] == c'.':
                    point = nd
                elif r[i] == c'e' or r[i] == c'E':
                    e_at = i
                    break
                else:
                    digits[nd] = r[i]
                    nd += 1
                i += 1
            if point < 0:
                point = nd
            if e_at >= 0:  # d.ddde[+-]X: the point after the first digit
                point = 1 + _atoi(r + e_at + 1)
        finally:
            PyMem_Free(r)
    # m = 0.D1D2... * 10**point; drop leading and trailing zeros of the digits
    k = 0
    while k < nd - 1 and digits[k] == c'0':
        k += 1
        point -= 1
    while nd - 1 > k and digits[nd - 1] == c'0':
        nd -= 1
    lead[0] = k
    exp10[0] = point - 1
    return nd


def _shortest_digits(double v):
    """``(digits, exponent)`` of ``abs(v)`` (finite, not 0) as :meth:`_Out.put_float` lays
    them out: the significant digits as text and the decimal exponent of the first. For the
    tests."""
    cdef char digits[32]
    cdef int nd, lead, exp10
    if not isfinite(v) or v == 0:
        raise ValueError(f"{v!r} has no significant digits")
    nd = _shortest(fabs(v), digits, &lead, &exp10)
    return digits[lead:nd].decode(), exp10


cdef int _atoi(const char *s) noexcept:
    cdef int sign = 1, v = 0, i = 0
    if s[0] == c'+':
        i = 1
    elif s[0] == c'-':
        sign = -1
        i = 1
    while c'0' <= s[i] <= c'9':
        v = 10 * v + (s[i] - c'0')
        i += 1
    return sign * v


cdef inline char *_put_alloc(
    char *p, const int64_t *off, const int32_t *cnt, const int32_t *flat, Py_ssize_t j
) noexcept:
    """Job ``j``'s node intervals as Batsim's text (``"0-3 7"``, as
    :func:`coschedlab.intervals.format_intervals`) at ``p`` (room for :data:`_ALLOC_ROOM`
    bytes per interval); returns the end."""
    cdef int64_t o = off[j], i, a, b
    for i in range(o, o + 2 * <int64_t>cnt[j], 2):
        a = flat[i]
        b = <int64_t>flat[i + 1] - 1
        if i > o:
            p[0] = c' '
            p += 1
        p = _put_int(p, a)
        if b != a:
            p[0] = c'-'
            p = _put_int(p + 1, b)
    return p


#: bytes an interval may take: two 32-bit numbers with their signs, a dash and a space
DEF _ALLOC_ROOM = 26


cdef inline Py_ssize_t _node_len(int64_t v) noexcept:
    """Characters :func:`_put_int` writes for ``v`` (its digits from its bit length, no
    division per digit)."""
    if v < 0:
        return 1 + _ndigits(<uint64_t>(-(v + 1)) + 1)
    return _ndigits(<uint64_t>v)


cdef inline Py_ssize_t _alloc_len(
    const int64_t *off, const int32_t *cnt, const int32_t *flat, Py_ssize_t j
) noexcept:
    """Characters :func:`_put_alloc` writes for job ``j``."""
    cdef int64_t o = off[j], i, a, b
    cdef Py_ssize_t k = 0
    for i in range(o, o + 2 * <int64_t>cnt[j], 2):
        a = flat[i]
        b = <int64_t>flat[i + 1] - 1
        k += _node_len(a) + (i > o)
        if b != a:
            k += 1 + _node_len(b)
    return k


cdef tuple _alloc_arrays(object column):
    """The ``(off, cnt, flat)`` arrays of an allocation column, contiguous and typed."""
    off, cnt, flat = column
    return (
        np.ascontiguousarray(off, dtype=np.int64),
        np.ascontiguousarray(cnt, dtype=np.int32),
        np.ascontiguousarray(flat, dtype=np.int32),
    )


def alloc_text(column, Py_ssize_t start, Py_ssize_t stop):
    """Batsim allocation texts of jobs ``start..stop-1`` as Arrow's string buffers
    ``(offsets, data)`` (:func:`utf8_column`'s). ``column`` is ``(off, cnt, flat)``: job
    ``j`` holds the ``cnt[j]`` node intervals ``[flat[i], flat[i + 1])`` for ``i`` from
    ``off[j]`` in steps of 2; no interval: ``""``."""
    cdef const int64_t[::1] off
    cdef const int32_t[::1] cnt
    cdef const int32_t[::1] flat
    off, cnt, flat = _alloc_arrays(column)
    cdef Py_ssize_t n = cnt.shape[0], j, total = 0
    if not 0 <= start <= stop <= n:
        raise IndexError(f"jobs {start}..{stop} of {n}")
    offsets = np.zeros(stop - start + 1, dtype=np.int64)
    cdef int64_t[::1] o = offsets
    for j in range(start, stop):  # the exact size first: the text written once, in place
        if cnt[j]:
            total += _alloc_len(&off[0], &cnt[0], &flat[0], j)
        o[j - start + 1] = total
    data = PyByteArray_FromStringAndSize(NULL, total)  # (not zeroed: every byte written)
    cdef char *buf = PyByteArray_AS_STRING(data)
    for j in range(start, stop):
        if cnt[j]:
            _put_alloc(buf + o[j - start], &off[0], &cnt[0], &flat[0], j)
    return offsets, data


#: a literal (separators and constant columns between two cells) of at most this many bytes
#: is copied as this many (its buffer padded, the room reserved): a copy of fixed size
DEF LIT = 16


ctypedef struct _Cell:
    # a cell of a row and the literal before it (the comma, constant columns)
    int kind
    const void *data  # FLOAT, INT, QUOTED_INT, CODE: the column's values
    Py_ssize_t lit  # the literal's offset in the literals' buffer
    Py_ssize_t nlit  # and its length
    int col  # the column (TEXT: its list in ``texts``; CODE: its labels in ``labels``)
    const int64_t *aoff  # ALLOC: the node intervals
    const int32_t *acnt
    const int32_t *aflat


cdef inline char *_put_lit(char *p, const char *s, Py_ssize_t k) noexcept:
    if k <= LIT:
        memcpy(p, s, LIT)  # (fixed size: two moves; the bytes past k are overwritten next)
    else:
        memcpy(p, s, k)
    return p + k


def write_rows(write, Py_ssize_t n, list columns):
    """Write ``n`` rows of ``columns`` through ``write`` (a file's ``write``), comma-separated,
    one ``\\n``-ended line per row. Each column is ``(kind, values[, extra])``: ``FLOAT`` and
    ``INT`` arrays, ``CONST`` bytes, ``TEXT`` a list of str with ``extra`` the callable that
    makes the text of any other object, ``QUOTED_INT`` an int64 array, ``CODE`` a uint8 array
    with ``extra`` the tuple of the formatted bytes of each code, ``ALLOC`` the node intervals
    ``(off, cnt, flat)`` of :func:`alloc_text`.

    The columns become a row's program first: each cell with the literal before it (the comma
    and any constant columns), the line's end a last literal; room for a whole row is made
    once per row (a text's cell makes its own)."""
    cdef Py_ssize_t ncol = len(columns), i, c, ncell = 0, nlits = 0, fixed = 0, need, k
    cdef int kind, nalloc = 0
    cdef _Out out = _Out(write)
    cdef _Cell *cells = <_Cell *>malloc(max(ncol, 1) * sizeof(_Cell))
    cdef int *allocs = <int *>malloc(max(ncol, 1) * sizeof(int))
    cdef char *lits = NULL
    cdef _Cell *cell
    cdef const double[::1] f
    cdef const int64_t[::1] q
    cdef const uint8_t[::1] u
    cdef const int64_t[::1] ao
    cdef const int32_t[::1] ac, af
    cdef const int32_t *cnt
    cdef object v, values
    cdef bytes b
    cdef bytearray pending = bytearray()
    cdef list keep = []  # the arrays whose buffers ``cells`` point into
    cdef list literals = []
    cdef list texts = [None] * ncol, labels = [None] * ncol, convert = [None] * ncol
    cdef Py_ssize_t tail_lit, tail_n
    cdef char *p
    cdef int64_t x
    if cells == NULL or allocs == NULL:
        free(cells); free(allocs)
        raise MemoryError()
    try:
        for c in range(ncol):
            kind = columns[c][0]
            values = columns[c][1]
            if c:
                pending += b","
            if kind == CONST:
                pending += bytes(values)
                continue
            cell = &cells[ncell]
            cell.kind = kind
            cell.col = <int>c
            cell.data = NULL
            literals.append(bytes(pending))
            pending = bytearray()
            if kind in (FLOAT, INT, QUOTED_INT, CODE):
                dtype = {FLOAT: np.float64, CODE: np.uint8}.get(kind, np.int64)
                values = np.ascontiguousarray(values, dtype=dtype)
                if len(values) != n:
                    raise ValueError(f"column {c} has {len(values)} rows, not {n}")
                keep.append(values)
                if kind == FLOAT:
                    fixed += FLOAT_ROOM
                    if n:
                        f = values
                        cell.data = &f[0]
                elif kind == CODE:
                    labels[c] = tuple(columns[c][2])
                    k = 0
                    for b in labels[c]:
                        k = max(k, len(b))
                    fixed += k
                    if n:
                        u = values
                        cell.data = &u[0]
                        if int(values.max()) >= len(labels[c]):
                            raise IndexError(f"column {c}: code {values.max()} has no label")
                else:
                    fixed += 23  # (a sign, 19 digits, quotes)
                    if n:
                        q = values
                        cell.data = &q[0]
            elif kind == ALLOC:
                arrays = _alloc_arrays(values)
                keep.append(arrays)
                ao, ac, af = arrays
                if ac.shape[0] != n:
                    raise ValueError(f"column {c} has {ac.shape[0]} rows, not {n}")
                fixed += 2
                allocs[nalloc] = <int>ncell
                nalloc += 1
                if n:
                    cell.aoff, cell.acnt = &ao[0], &ac[0]
                    cell.aflat = &af[0] if af.shape[0] else NULL
            elif kind == TEXT:
                texts[c] = list(values)
                convert[c] = columns[c][2]
                if len(texts[c]) != n:
                    raise ValueError(f"column {c} has {len(texts[c])} rows, not {n}")
            else:
                raise ValueError(f"column {c}: unknown kind {kind}")
            ncell += 1
        pending += b"\n"
        literals.append(bytes(pending))
        # the literals end to end, each padded to LIT bytes at least
        for b in literals:
            nlits += max(len(b), LIT)
            fixed += max(len(b), LIT)
        lits = <char *>malloc(max(nlits, 1))
        if lits == NULL:
            raise MemoryError()
        memset(lits, 0, max(nlits, 1))
        k = 0
        for c in range(ncell + 1):
            b = literals[c]
            memcpy(lits + k, PyBytes_AS_STRING(b), len(b))
            if c < ncell:
                cells[c].lit, cells[c].nlit = k, len(b)
            else:
                tail_lit, tail_n = k, len(b)
            k += max(len(b), LIT)
        for i in range(n):
            need = fixed
            for c in range(nalloc):
                need += _ALLOC_ROOM * <Py_ssize_t>cells[allocs[c]].acnt[i]
            out.room(need)
            p = out.buf + out.n
            for c in range(ncell):
                cell = &cells[c]
                p = _put_lit(p, lits + cell.lit, cell.nlit)
                kind = cell.kind
                if kind == K_FLOAT:
                    p = _put_float(p, (<const double *>cell.data)[i])
                elif kind == K_INT:
                    p = _put_int(p, (<const int64_t *>cell.data)[i])
                elif kind == K_QUOTED_INT:
                    p[0] = c'"'
                    x = (<const int64_t *>cell.data)[i]
                    if x >= 0:
                        p = _put_int(p + 1, x)
                    else:
                        p += 1
                    p[0] = c'"'
                    p += 1
                elif kind == K_CODE:
                    b = <bytes>(<tuple>labels[cell.col])[(<const uint8_t *>cell.data)[i]]
                    k = PyBytes_GET_SIZE(b)
                    memcpy(p, PyBytes_AS_STRING(b), k)
                    p += k
                elif kind == K_ALLOC:
                    p[0] = c'"'
                    p += 1
                    if cell.acnt[i]:
                        p = _put_alloc(p, cell.aoff, cell.acnt, cell.aflat, i)
                    p[0] = c'"'
                    p += 1
                else:  # TEXT: its own room, and the rest of the row's after it
                    out.n = p - out.buf
                    v = (<list>texts[cell.col])[i]
                    if type(v) is not str:
                        v = convert[cell.col](v)
                    out.put_text(v, need)
                    p = out.buf + out.n
            p = _put_lit(p, lits + tail_lit, tail_n)
            out.n = p - out.buf
        out.flush()
    finally:
        free(cells); free(allocs); free(lits)


cdef inline double _trunc(double a) noexcept:
    """``a`` without its fraction (``|a| < 9e12``): a cast and back, not ``floor``'s rounding
    sequence on a CPU without SSE4.1 (the same for ``a >= 0``; whole numbers compare equal to
    it either way)."""
    return <double><int64_t>a


cdef inline void _swf_cell(double a, int64_t *digits, int *nfrac, int *ndig, bint *neg) noexcept:
    """The parts of SWF's text of ``a`` (finite, ``|a| < 9e12``)."""
    cdef double m = fabs(a), whole = _trunc(m)
    cdef int64_t fp, ip, d
    cdef int k
    ip = <int64_t>whole
    if whole == m:  # a whole number (most SWF cells): no fraction to round
        neg[0] = a < 0
        nfrac[0] = 0
        digits[0] = ip
        ndig[0] = _ndigits(<uint64_t>ip)
        return
    fp = <int64_t>nearbyint((m - whole) * 1e6)
    if fp >= 1000000:
        fp = 0
        ip += 1
    neg[0] = a < 0 and (ip > 0 or fp > 0)
    k = 0
    if fp > 0:
        k = 6
        while fp % 10 == 0:
            fp //= 10
            k -= 1
    nfrac[0] = k
    d = ip
    for _ in range(k):
        d *= 10
    digits[0] = d + fp
    k = _ndigits(<uint64_t>digits[0])
    ndig[0] = max(min(k, 19), nfrac[0] + 1)


cdef int _number_width(const double *f, Py_ssize_t n) noexcept:
    """The width of a number column's widest cell (at least 1): from its extremes when every
    value is whole (most SWF columns: the digits of the largest magnitude, a sign), else cell
    by cell."""
    cdef double a, top = 0.0, bottom = 0.0
    cdef Py_ssize_t i
    cdef int w, nfrac, ndig
    cdef int64_t digits
    cdef bint neg
    for i in range(n):
        a = f[i] if isfinite(f[i]) else -1.0
        if a != _trunc(a):
            break
        if a > top:
            top = a
        elif a < bottom:
            bottom = a
    else:
        w = 1
        if top > 0:
            w = _ndigits(<uint64_t>top)
        if bottom < 0:
            w = max(w, 1 + _ndigits(<uint64_t>(-bottom)))
        return w
    w = 1
    for i in range(n):
        a = f[i] if isfinite(f[i]) else -1.0
        _swf_cell(a, &digits, &nfrac, &ndig, &neg)
        w = max(w, ndig + (nfrac > 0) + neg)
    return w


def write_fixed_width(write, Py_ssize_t n, list columns):
    """Write ``n`` SWF job lines through ``write``. Each column is a float64 array of values
    below 9e12 in magnitude (non-finite: -1), formatted here, or bytes: the same cell on every
    row, or an ``(n, width)`` uint8 array of cells formatted by the caller.

    Each row starts as a copy of one template (the fixed cells, the number cells blank, the
    separators); a number's digits are then written from its cell's right end."""
    cdef Py_ssize_t ncol = len(columns), i, c, j, row = 0
    cdef int w, nfrac, ndig, r, nnum = 0, ncell = 0
    cdef int64_t digits, d
    cdef bint neg
    cdef double a
    cdef _Out out = _Out(write)
    cdef list keep = []
    cdef int *kinds = <int *>malloc(max(ncol, 1) * sizeof(int))  # 0 number, 1 cell, 2 cells
    cdef int *width = <int *>malloc(max(ncol, 1) * sizeof(int))
    cdef Py_ssize_t *at = <Py_ssize_t *>malloc(max(ncol, 1) * sizeof(Py_ssize_t))
    cdef int *nums = <int *>malloc(max(ncol, 1) * sizeof(int))  # the number columns
    cdef int *cells = <int *>malloc(max(ncol, 1) * sizeof(int))  # the caller's cells
    cdef const void **data = <const void **>malloc(max(ncol, 1) * sizeof(void *))
    cdef char *tmpl = NULL
    cdef const double[::1] f
    cdef const uint8_t[:, ::1] m
    cdef char *p
    cdef char *cell
    cdef char *end
    if (kinds == NULL or width == NULL or at == NULL or nums == NULL or cells == NULL
            or data == NULL):
        free(kinds); free(width); free(at); free(nums); free(cells); free(data)
        raise MemoryError()
    try:
        for c in range(ncol):
            v = columns[c]
            data[c] = NULL
            if isinstance(v, bytes):
                kinds[c] = 1
                keep.append(v)
                width[c] = len(<bytes>v)
                data[c] = PyBytes_AS_STRING(<bytes>v)
            elif getattr(v, "ndim", 1) == 2:
                kinds[c] = 2
                v = np.ascontiguousarray(v, dtype=np.uint8)
                keep.append(v)
                width[c] = v.shape[1]
                cells[ncell] = c
                ncell += 1
                if n:
                    m = v
                    data[c] = &m[0, 0]
            else:
                kinds[c] = 0
                v = np.ascontiguousarray(v, dtype=np.float64)
                keep.append(v)
                width[c] = 1
                nums[nnum] = c
                nnum += 1
                if n:
                    f = v
                    data[c] = &f[0]
                    width[c] = _number_width(&f[0], n)
            at[c] = row
            row += width[c] + 1  # the cell and a space (the line end after the last)
        tmpl = <char *>malloc(max(row, 1))
        if tmpl == NULL:
            raise MemoryError()
        for c in range(ncol):
            if kinds[c] == 1:
                memcpy(tmpl + at[c], data[c], width[c])
            else:
                memset(tmpl + at[c], c' ', width[c])
            tmpl[at[c] + width[c]] = c'\n' if c == ncol - 1 else c' '
        for i in range(n):
            out.room(row)
            p = out.buf + out.n
            memcpy(p, tmpl, row)
            out.n += row
            for j in range(ncell):
                c = cells[j]
                memcpy(p + at[c], <const char *>data[c] + i * width[c], width[c])
            for j in range(nnum):
                c = nums[j]
                a = (<const double *>data[c])[i]
                end = p + at[c] + width[c]
                if not isfinite(a):
                    end[-2] = c'-'
                    end[-1] = c'1'
                elif a == _trunc(a):  # a whole number (most cells)
                    if a < 0:
                        cell = _put_back(end, <uint64_t>(-a))
                        cell[-1] = c'-'
                    else:
                        _put_back(end, <uint64_t>a)
                else:
                    _swf_cell(a, &digits, &nfrac, &ndig, &neg)
                    d = digits
                    if nfrac:  # the fraction's digits, the point, then the whole part's
                        for r in range(nfrac):
                            end -= 1
                            end[0] = <char>(c'0' + d % 10)
                            d //= 10
                        end -= 1
                        end[0] = c'.'
                    cell = _put_digits(end, <uint64_t>d, ndig - nfrac)
                    if neg:
                        cell[-1] = c'-'
        out.flush()
    finally:
        free(kinds); free(width); free(at); free(nums); free(cells); free(data); free(tmpl)


def utf8_column(list texts):
    """``texts`` (all str) as Arrow's string buffers: ``(offsets, data)``, the int64 offsets
    (``len(texts) + 1``) of each text's UTF-8 bytes in ``data``; no bytes object per text."""
    cdef Py_ssize_t n = len(texts), i, k, total = 0
    cdef const char *p
    cdef object s
    offsets = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] off = offsets
    for i in range(n):
        s = texts[i]
        if type(s) is not str:
            raise TypeError(f"text {i} is {type(s).__name__}, not str")
        PyUnicode_AsUTF8AndSize(s, &k)
        total += k
        off[i + 1] = total
    data = PyByteArray_FromStringAndSize(NULL, total)  # (not zeroed: every byte written)
    cdef char *d = PyByteArray_AS_STRING(data)
    for i in range(n):
        p = PyUnicode_AsUTF8AndSize(texts[i], &k)
        memcpy(d + off[i], p, k)
    return offsets, data
