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
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.mem cimport PyMem_Free
from cpython.memoryview cimport PyMemoryView_FromMemory
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.math cimport fabs, floor, isfinite, isnan, nearbyint, signbit
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
        end[0] = _DIGITS2[2 * r]
        end[1] = _DIGITS2[2 * r + 1]
    if u >= 10:
        end -= 2
        end[0] = _DIGITS2[2 * u]
        end[1] = _DIGITS2[2 * u + 1]
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
        end[0] = _DIGITS2[2 * r]
        end[1] = _DIGITS2[2 * r + 1]
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

    cdef int put_bytes(self, const char *s, Py_ssize_t k) except -1:
        self.room(k)
        memcpy(self.buf + self.n, s, k)
        self.n += k
        return 0

    cdef inline void put_int(self, int64_t v) noexcept:
        """Decimal digits of ``v`` (the caller made room for 20 bytes)."""
        self.n = _put_int(self.buf + self.n, v) - self.buf

    cdef int put_float(self, double v) except -1:
        """``v`` as pyarrow writes a double (see the module docstring)."""
        cdef char digits[32]
        cdef int nd, exp10, k, lead
        self.room(40)
        if isnan(v):
            return 0
        if not isfinite(v):
            if v < 0:
                self.put(c'-')
            self.put_bytes(b"inf", 3)
            return 0
        if v == floor(v) and fabs(v) < 1e10:  # a whole number of at most 10 digits
            if v == 0 and signbit(v):
                self.put(c'-')
            self.put_int(<int64_t>v)
            return 0
        nd = _shortest(fabs(v), digits, &lead, &exp10)  # digits[lead:nd], D.DDD * 10**exp10
        if v < 0:
            self.put(c'-')
        if -6 <= exp10 < 10:
            if exp10 >= 0:
                for k in range(exp10 + 1):
                    self.put(digits[lead + k] if lead + k < nd else c'0')
                if lead + exp10 + 1 < nd:
                    self.put(c'.')
                    for k in range(lead + exp10 + 1, nd):
                        self.put(digits[k])
            else:
                self.put(c'0')
                self.put(c'.')
                for k in range(-exp10 - 1):
                    self.put(c'0')
                for k in range(lead, nd):
                    self.put(digits[k])
        else:
            self.put(digits[lead])
            if nd - lead > 1:
                self.put(c'.')
                for k in range(lead + 1, nd):
                    self.put(digits[k])
            self.put(c'e')
            self.put(c'-' if exp10 < 0 else c'+')
            self.put_int(exp10 if exp10 >= 0 else -exp10)
        return 0

    cdef int put_text(self, object s) except -1:
        """``s`` (a str) quoted, a quote inside doubled."""
        cdef Py_ssize_t k, j
        cdef const char *p = PyUnicode_AsUTF8AndSize(s, &k)
        self.room(2 * k + 2)
        self.put(c'"')
        for j in range(k):
            if p[j] == c'"':
                self.put(c'"')
            self.put(p[j])
        self.put(c'"')
        return 0


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
    """Characters :func:`_put_int` writes for ``v``."""
    cdef Py_ssize_t k = 1
    if v < 0:
        k += 1
        v = -v
    while v >= 10:
        v //= 10
        k += 1
    return k


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
    data = bytearray(total)
    cdef char *buf = data
    for j in range(start, stop):
        if cnt[j]:
            _put_alloc(buf + o[j - start], &off[0], &cnt[0], &flat[0], j)
    return offsets, data


def write_rows(write, Py_ssize_t n, list columns):
    """Write ``n`` rows of ``columns`` through ``write`` (a file's ``write``), comma-separated,
    one ``\\n``-ended line per row. Each column is ``(kind, values[, extra])``: ``FLOAT`` and
    ``INT`` arrays, ``CONST`` bytes, ``TEXT`` a list of str with ``extra`` the callable that
    makes the text of any other object, ``QUOTED_INT`` an int64 array, ``CODE`` a uint8 array
    with ``extra`` the tuple of the formatted bytes of each code, ``ALLOC`` the node intervals
    ``(off, cnt, flat)`` of :func:`alloc_text`."""
    cdef Py_ssize_t ncol = len(columns), i, c
    cdef int kind
    cdef _Out out = _Out(write)
    cdef int *kinds = <int *>malloc(max(ncol, 1) * sizeof(int))
    cdef const void **data = <const void **>malloc(max(ncol, 1) * sizeof(void *))
    cdef const double[::1] f
    cdef const int64_t[::1] q
    cdef const uint8_t[::1] u
    cdef const int64_t[::1] ao
    cdef const int32_t[::1] ac, af
    cdef const int64_t **aoff = NULL
    cdef const int32_t **acnt = NULL
    cdef const int32_t **aflat = NULL
    cdef object v, values
    cdef bytes b
    cdef list keep = []  # the arrays whose buffers ``data`` points into
    cdef list texts = [None] * ncol, consts = [None] * ncol, labels = [None] * ncol
    cdef list convert = [None] * ncol
    aoff = <const int64_t **>malloc(max(ncol, 1) * sizeof(void *))
    acnt = <const int32_t **>malloc(max(ncol, 1) * sizeof(void *))
    aflat = <const int32_t **>malloc(max(ncol, 1) * sizeof(void *))
    if kinds == NULL or data == NULL or aoff == NULL or acnt == NULL or aflat == NULL:
        free(kinds); free(data); free(aoff); free(acnt); free(aflat)
        raise MemoryError()
    try:
        for c in range(ncol):
            kind = kinds[c] = columns[c][0]
            values = columns[c][1]
            data[c] = NULL
            if kind in (FLOAT, INT, QUOTED_INT, CODE):
                dtype = {FLOAT: np.float64, CODE: np.uint8}.get(kind, np.int64)
                values = np.ascontiguousarray(values, dtype=dtype)
                if len(values) != n:
                    raise ValueError(f"column {c} has {len(values)} rows, not {n}")
                keep.append(values)
                if n:
                    if kind == FLOAT:
                        f = values
                        data[c] = &f[0]
                    elif kind == CODE:
                        u = values
                        data[c] = &u[0]
                        labels[c] = tuple(columns[c][2])
                    else:
                        q = values
                        data[c] = &q[0]
            elif kind == CONST:
                consts[c] = bytes(values)
            elif kind == ALLOC:
                arrays = _alloc_arrays(values)
                keep.append(arrays)
                ao, ac, af = arrays
                if ac.shape[0] != n:
                    raise ValueError(f"column {c} has {ac.shape[0]} rows, not {n}")
                if n:
                    aoff[c], acnt[c] = &ao[0], &ac[0]
                    aflat[c] = &af[0] if af.shape[0] else NULL
            elif kind == TEXT:
                texts[c] = list(values)
                convert[c] = columns[c][2]
                if len(texts[c]) != n:
                    raise ValueError(f"column {c} has {len(texts[c])} rows, not {n}")
            else:
                raise ValueError(f"column {c}: unknown kind {kind}")
        for i in range(n):
            for c in range(ncol):
                if c:
                    out.room(1)
                    out.put(c',')
                kind = kinds[c]
                if kind == K_FLOAT:
                    out.put_float((<const double *>data[c])[i])
                elif kind == K_INT:
                    out.room(21)
                    out.put_int((<const int64_t *>data[c])[i])
                elif kind == K_QUOTED_INT:
                    out.room(23)
                    out.put(c'"')
                    if (<const int64_t *>data[c])[i] >= 0:
                        out.put_int((<const int64_t *>data[c])[i])
                    out.put(c'"')
                elif kind == K_CONST:
                    b = <bytes>consts[c]
                    out.put_bytes(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b))
                elif kind == K_CODE:
                    b = <bytes>(<tuple>labels[c])[(<const uint8_t *>data[c])[i]]
                    out.put_bytes(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b))
                elif kind == K_ALLOC:
                    out.room(_ALLOC_ROOM * <Py_ssize_t>acnt[c][i] + 2)
                    out.put(c'"')
                    if acnt[c][i]:
                        out.n = _put_alloc(out.buf + out.n, aoff[c], acnt[c], aflat[c], i) - out.buf
                    out.put(c'"')
                else:  # TEXT
                    v = (<list>texts[c])[i]
                    if type(v) is not str:
                        v = convert[c](v)
                    out.put_text(v)
            out.room(1)
            out.put(c'\n')
        out.flush()
    finally:
        free(kinds); free(data); free(aoff); free(acnt); free(aflat)


cdef inline void _swf_cell(double a, int64_t *digits, int *nfrac, int *ndig, bint *neg) noexcept:
    """The parts of SWF's text of ``a`` (finite, ``|a| < 9e12``)."""
    cdef double m = fabs(a), whole = floor(m)
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
        if a != floor(a):
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
                elif a == floor(a):  # a whole number (most cells)
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
    data = bytearray(total)
    cdef char *d = data
    for i in range(n):
        p = PyUnicode_AsUTF8AndSize(texts[i], &k)
        memcpy(d + off[i], p, k)
    return offsets, data
