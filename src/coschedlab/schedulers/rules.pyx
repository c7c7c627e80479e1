"""EASY's step 2 for a job that fits now, compiled once (:func:`admit`; ``admit_c`` in
``rules.pxd`` for compiled passes): :mod:`.easy` re-exports it."""

__all__ = ["admit"]


def admit(double now, double req, double shadow, long loss, long extra, bint use_extra) -> int:
    """EASY's step 2 for a job that fits now: the ``extra`` left if it may start, else -1.

    (a) it ends by the shadow time (``now + req <= shadow``): ``extra`` unchanged; (b) with
    ``use_extra``, what it still holds at S (``loss``) fits in ``extra``: ``extra - loss``
    (Lifka 1995; Mu'alem and Feitelson 2001). The one statement of the two rules: the
    whole-node scan (:class:`.backfill.Backfill`) and the co-schedulers' scans call it.
    """
    return admit_c(now, req, shadow, loss, extra, use_extra)
