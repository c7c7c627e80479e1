# distutils: language = c++
"""The compiled policy hook's base class (declarations and contract in ``cpass.pxd``)."""


cdef class CompiledPass:
    """A scheduling pass in C, called by the kernel with its :struct:`PassState`: appends to
    ``s.started`` the queued jobs to start now (in order, fitting together in ``s.free``),
    may record first reservations and ask for a pass at ``s.wake``. ``s.queue`` is in the
    order ``order`` names (the kernel sorts it; ``cpass.pxd``)."""

    cdef int run(self, PassState* s) except -1:
        raise NotImplementedError
