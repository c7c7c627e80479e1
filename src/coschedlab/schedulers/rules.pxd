"""EASY's step 2, the one statement of its two rules (C declaration; :mod:`.rules`)."""


cdef inline long admit_c(
    double now, double req, double shadow, long loss, long extra, bint use_extra
) noexcept:
    """:func:`coschedlab.schedulers.easy.admit` (its documentation), for compiled passes."""
    if now + req <= shadow:
        return extra
    if use_extra and loss <= extra:
        return extra - loss
    return -1
