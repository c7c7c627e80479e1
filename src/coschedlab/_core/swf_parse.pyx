"""The SWF reader's parse loop, compiled: the job lines of an SWF text as 18 arrays, one per
field.

:func:`coschedlab.workload.swf.read_swf` calls :func:`parse_jobs` and owns the conventions
and the error messages. The rules of a line are the ones its module docstring states:

* ``\\n``, ``\\r\\n`` and ``\\r`` end a line (``bytes.splitlines``); lines are numbered from 1,
  comment and blank lines included;
* ``;`` starts a comment that runs to the end of the line; the rest of the line is split on
  ASCII whitespace (space, tab, vertical tab, form feed: ``bytes.split``); a line without a
  token is skipped, any other must have exactly 18;
* a field is a plain decimal number, ``[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?`` in full,
  read as the nearest double (as ``float()``: exact arithmetic on 15 significant digits or
  fewer and a power of ten up to 1e22, else Python's own correctly rounded conversion); it
  must be finite, and an integer in the integer fields (0-based 0, 4, 7, 10-16).
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.ref cimport PyObject
from libc.math cimport floor, isfinite
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy

import numpy as np

cdef extern from "Python.h":
    double PyOS_string_to_double(
        const char *s, char **endptr, PyObject *overflow_exception
    ) except? -1.0

cdef enum:
    N_FIELDS = 18

# 1 for the fields that must hold integers (job number, processors, status, ids, preceding)
cdef int IS_INT[N_FIELDS]
IS_INT[:] = [1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0]

cdef extern from *:
    """
    #include <string.h>
    /* the bytes equal to c in p[:n]: memchr from one to the next (vectorised by the C library;
       bytes.count compares byte by byte) */
    static Py_ssize_t coschedlab_count_byte(const char *p, Py_ssize_t n, char c) {
        Py_ssize_t k = 0;
        const char *end = p + n;
        while (p < end && (p = (const char *)memchr(p, c, (size_t)(end - p))) != NULL) {
            k++;
            p++;
        }
        return k;
    }
    """
    Py_ssize_t coschedlab_count_byte(const char *p, Py_ssize_t n, char c) noexcept nogil


cdef double POW10[23]
POW10[:] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
            1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]


# each byte's class for the line scanner: a token's byte, a blank (space, tab, vertical tab,
# form feed), a line end (\n, \r), the comment mark (;); one table look-up per byte
cdef enum:
    TOKEN = 0
    BLANK = 1
    LINE_END = 2
    COMMENT = 3

cdef unsigned char CLASS[256]
CLASS[:] = [TOKEN] * 256
for _b in (ord(" "), ord("\t"), ord("\v"), ord("\f")):
    CLASS[_b] = BLANK
for _b in (ord("\n"), ord("\r")):
    CLASS[_b] = LINE_END
CLASS[ord(";")] = COMMENT


cdef int read_number(const char *s, Py_ssize_t n, double *out) except -1:
    """0 if ``s[:n]`` is not a plain decimal number; else its value in ``*out`` and 2 when it
    is a whole number of at most 15 digits (finite and whole: nothing more to check), 1 for
    any other number."""
    cdef Py_ssize_t i = 0
    cdef bint neg = False, slow = False, exp_neg = False
    cdef uint64_t mant = 0
    cdef int sig = 0, digits = 0, d
    cdef long exp10 = 0, exp = 0
    cdef char *end
    if i < n and (s[i] == c'+' or s[i] == c'-'):
        neg = s[i] == c'-'
        i += 1
    if 0 < n - i <= 15:  # most fields: digits only, at most 15 (exact as a double)
        while i < n and c'0' <= s[i] <= c'9':
            mant = mant * 10 + <uint64_t>(s[i] - c'0')
            i += 1
        if i == n:
            out[0] = -<double>mant if neg else <double>mant
            return 2
        i = 1 if neg or s[0] == c'+' else 0  # something else: read from the start below
        mant = 0
    while i < n and c'0' <= s[i] <= c'9':  # integer part
        d = s[i] - c'0'
        if mant or d:
            sig += 1
            if sig > 15:
                slow = True  # the value comes from Python's conversion below
            else:
                mant = mant * 10 + d
        digits += 1
        i += 1
    if i < n and s[i] == c'.':
        i += 1
        while i < n and c'0' <= s[i] <= c'9':  # fraction
            d = s[i] - c'0'
            if mant or d:
                sig += 1
                if sig > 15:
                    slow = True
            if not slow:
                mant = mant * 10 + d
                exp10 -= 1
            digits += 1
            i += 1
    if digits == 0:
        return 0
    if i < n and (s[i] == c'e' or s[i] == c'E'):
        i += 1
        if i < n and (s[i] == c'+' or s[i] == c'-'):
            exp_neg = s[i] == c'-'
            i += 1
        if not (i < n and c'0' <= s[i] <= c'9'):
            return 0
        while i < n and c'0' <= s[i] <= c'9':
            if exp < 100000:
                exp = exp * 10 + (s[i] - c'0')
            else:
                slow = True
            i += 1
        if exp_neg:
            exp = -exp
    if i != n:
        return 0
    exp += exp10
    if mant == 0 and not slow:
        out[0] = 0.0
        if neg:
            out[0] = -out[0]
        return 1
    if not slow and -22 <= exp <= 22:
        # one correctly rounded operation on exact operands (mant < 1e15 < 2**53)
        if exp >= 0:
            out[0] = <double>mant * POW10[exp]
        else:
            out[0] = <double>mant / POW10[-exp]
        if neg:
            out[0] = -out[0]
        return 1
    # Python's float(): correctly rounded; overflow gives +-inf (refused by the caller)
    out[0] = PyOS_string_to_double(s, &end, NULL)
    return 1


def parse_jobs(bytes data):
    """Parse the job lines of an SWF text.

    Returns ``(fields, linenos, None)``: ``fields`` a list of 18 float64 arrays of length n,
    one per field, the job lines in file order (each its own memory: a caller keeps a field as
    a column and lets the others go one by one; a field with one value throughout, bit for bit,
    as most traces leave several at -1, is that value broadcast, read-only, when n >= 2: its
    array is made only at its second value), ``linenos`` their 1-based physical line numbers
    (int64); or ``(None, None, error)`` at the first bad line, ``error`` being
    ``(lineno, kind, index, token)``: kind ``"fields"`` (``index`` = the number of fields,
    ``token`` None), or ``"number"``, ``"finite"``, ``"integer"`` (``index`` = the 0-based
    field, ``token`` its bytes).
    """
    cdef const char *buf = PyBytes_AS_STRING(data)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(data)
    # line ends + 1: at least the job lines
    cdef Py_ssize_t cap = coschedlab_count_byte(buf, size, c'\n') + 1
    if b"\r" in data:
        cap += data.count(b"\r") - data.count(b"\r\n")
    fields = [None] * N_FIELDS
    linenos = np.empty(cap, dtype=np.int64)
    cdef double *v[N_FIELDS]  # NULL: every value of the field so far is its first
    cdef double first[N_FIELDS]
    cdef uint64_t first_bits[N_FIELDS]
    cdef uint64_t bits
    cdef int64_t[::1] ln = linenos
    cdef Py_ssize_t pos = 0, n = 0, tok_start
    cdef Py_ssize_t start[N_FIELDS]
    cdef Py_ssize_t stop[N_FIELDS]  # negated: a token read_number reads
    cdef double value[N_FIELDS]  # a plain token's value
    cdef uint64_t mant
    cdef Py_ssize_t digits_at
    cdef bint neg, plain
    cdef int64_t lineno = 0
    cdef int ntok, f, read, bad  # read_number's verdict; the error's kind (0: none)
    cdef double x
    cdef unsigned char k
    for f in range(N_FIELDS):
        v[f] = NULL
    while pos < size:
        lineno += 1
        ntok = 0
        # (the text ends with a NUL byte, as every bytes object does: a loop that stops at a
        # byte that is neither a blank nor a digit needs no bound; NUL is a token's byte)
        while pos < size:  # the tokens of one line, up to ';' or the line end
            k = CLASS[<unsigned char>buf[pos]]
            if k == BLANK:
                pos += 1
                while CLASS[<unsigned char>buf[pos]] == BLANK:
                    pos += 1
                continue
            if k != TOKEN:
                if k == COMMENT:
                    while pos < size and CLASS[<unsigned char>buf[pos]] != LINE_END:
                        pos += 1
                break  # (the line end)
            tok_start = pos
            # most tokens are [+-]?digits: their value is read as they are scanned (what
            # read_number's first case gives: exact up to 15 digits), any other by read_number
            neg = buf[pos] == c'-'
            if neg or buf[pos] == c'+':
                pos += 1
            digits_at = pos
            mant = 0
            while <unsigned char>(buf[pos] - c'0') <= 9:
                mant = mant * 10 + <uint64_t>(buf[pos] - c'0')
                pos += 1
            plain = 0 < pos - digits_at <= 15
            if pos < size and CLASS[<unsigned char>buf[pos]] == TOKEN:
                plain = False  # more than a sign and digits
                pos += 1
                while pos < size and CLASS[<unsigned char>buf[pos]] == TOKEN:
                    pos += 1
            if ntok < N_FIELDS:
                start[ntok] = tok_start
                stop[ntok] = pos if plain else -pos  # a plain token: its value beside it
                value[ntok] = -<double>mant if neg else <double>mant
            ntok += 1
        if pos < size:  # the line end: \r\n is one
            if buf[pos] == c'\r' and pos + 1 < size and buf[pos + 1] == c'\n':
                pos += 2
            else:
                pos += 1
        if ntok == 0:
            continue
        if ntok != N_FIELDS:
            return None, None, (lineno, "fields", ntok, None)
        if n == cap:  # cannot happen (cap counts the line ends); never write past the arrays
            raise RuntimeError("swf_parse: more job lines than lines")
        for f in range(N_FIELDS):
            if stop[f] >= 0:  # read while scanned: a whole number of at most 15 digits
                x = value[f]
                bad = 0
                read = 2
            else:
                stop[f] = -stop[f]
                read = read_number(buf + start[f], stop[f] - start[f], &x)
            if read == 2:  # a whole number of at most 15 digits: finite and whole
                bad = 0
            elif read == 0:  # not a number
                bad = 1
            elif not isfinite(x):
                bad = 2
            elif IS_INT[f] and floor(x) != x:
                bad = 3
            else:
                bad = 0
            if bad:  # what the value is not (the error's kind)
                name = ("number", "finite", "integer")[bad - 1]
                return None, None, (lineno, name, f, data[start[f]:stop[f]])
            if v[f] != NULL:
                v[f][n] = x
                continue
            memcpy(&bits, &x, sizeof(double))
            if n == 0:
                first[f] = x
                first_bits[f] = bits
            elif bits != first_bits[f]:  # its second value: the field's array, made now
                v[f] = _field_array(fields, f, cap, n, first[f])
                v[f][n] = x
        ln[n] = lineno
        n += 1
    # cap - n: the comment and blank lines (a header: a view of the first n is kept as it is);
    # many of them: each field copied to its length, one at a time
    for f in range(N_FIELDS):
        if v[f] == NULL:  # one value throughout (or no job line)
            if n >= 2:
                fields[f] = np.broadcast_to(np.array([first[f]]), (n,))
            else:
                fields[f] = np.full(n, first[f] if n else 0.0)
        else:
            fields[f] = fields[f][:n] if cap - n <= (cap >> 4) else fields[f][:n].copy()
    return fields, linenos[:n], None


cdef double* _field_array(list fields, int f, Py_ssize_t cap, Py_ssize_t n,
                          double value) except NULL:
    """``fields[f]``, made: ``cap`` doubles, the first ``n`` of them ``value``; its data (the
    list keeps the array alive)."""
    a = np.empty(cap, dtype=np.float64)
    cdef double[::1] mv = a
    cdef Py_ssize_t i
    for i in range(n):
        mv[i] = value
    fields[f] = a
    return &mv[0]


cdef extern from *:
    """
    #if defined(__GLIBC__)
    #include <malloc.h>
    static int coschedlab_trim_heap(size_t least) {
    #if __GLIBC_PREREQ(2, 33)
        if (mallinfo2().fordblks < least) return 0;
    #endif
        return malloc_trim(0);
    }
    static int coschedlab_map_big_blocks(int size, int keep) {
        return mallopt(M_MMAP_THRESHOLD, size) && mallopt(M_TRIM_THRESHOLD, keep);
    }
    #else
    static int coschedlab_trim_heap(size_t least) { return 0; }
    static int coschedlab_map_big_blocks(int size, int keep) { return 0; }
    #endif
    """
    int coschedlab_trim_heap(size_t least) nogil
    int coschedlab_map_big_blocks(int size, int keep) nogil


#: the free heap kept by the process (bytes): less than this is not given back to the system
KEEP = 16 << 20


def trim_heap(size_t least=KEEP) -> bool:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing
    elsewhere) when at least ``least`` bytes of it are free (glibc 2.33+; older: always): a
    reader's temporaries (the file's text, the parse array) otherwise stay in the process's
    memory, a hundred MB for a million jobs. A few MB (a trace of 60,000 jobs) are kept: given
    back, they would be faulted in again, page by page, by the next step's arrays. True when
    some memory was released."""
    return coschedlab_trim_heap(least) != 0


def map_big_blocks(int size=1 << 20, int keep=KEEP) -> bool:
    """Have every block of ``size`` bytes or more (a million jobs' columns) mapped on its own
    and given back to the system when freed (glibc's ``mallopt(M_MMAP_THRESHOLD)``; nothing
    elsewhere). Else glibc raises that threshold to 32 MB after the first such block is freed,
    and the freed columns of each step (the kernel's, the validator's, the writers') stay in
    the process's heap: the simulate command's peak grows step by step. The heap's free top
    is given back once above ``keep`` bytes (``M_TRIM_THRESHOLD``; setting the first threshold
    leaves this one at glibc's 128 KB, and each step's smaller arrays then shrank the heap and
    faulted its pages in again: ~12,000 page faults on a trace of 60,000 jobs). True when
    set."""
    return coschedlab_map_big_blocks(size, keep) != 0
