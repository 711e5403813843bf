"""Numpy arrays captured by a traced function: constants of the trace, with a warning.

    w = np.ones(4, np.float32)
    f = strata.jit(lambda x: x * w)     # w is read when f is traced: its values are compiled in
    f(x)                                # CapturedArrayWarning: w is writable
    w[:] = 5
    f(x)                                # still x * 1: the compiled constant, as in JAX

A numpy array that a traced function uses without receiving it as an argument
becomes a ``strata.constant`` holding the array's values at trace time. Writing
to the array afterwards changes nothing in the compiled function (a new trace,
e.g. for a new argument shape, reads the values of that moment). Because that is
easy to miss, the first capture of a *writable* array at a source line warns
with :class:`CapturedArrayWarning`; a read-only array
(``w.setflags(write=False)``) is taken as a deliberate constant and does not.
``strata.constant(w)`` states the intent explicitly and does not warn either
(use it for inline temporaries such as ``x + np.ones(3)``, which warn too).
"""

from __future__ import annotations

import warnings

import numpy as np

from .locations import position, user_frame

__all__ = ["CapturedArrayWarning", "warn_if_writable"]


class CapturedArrayWarning(UserWarning):
    """A writable numpy array was captured as a constant of a traced function."""


# (file, line, shape, dtype) of the captures already warned about: one warning per
# source line and array, however often the function is traced again.
_WARNED: set = set()


def warn_if_writable(array: np.ndarray) -> None:
    """Warns, once per source line and array shape/dtype, that a writable array is frozen."""
    if not array.flags.writeable:
        return
    frame = user_frame()
    if frame is None:
        filename, line, module = "<unknown>", 0, None
    else:
        filename, line, _ = position(frame)
        module = frame.f_globals.get("__name__")
    key = (filename, line, array.shape, array.dtype.str)
    if key in _WARNED:
        return
    _WARNED.add(key)
    message = (
        f"a writable numpy array (shape {array.shape}, dtype {array.dtype}) is captured as a "
        "constant of the traced function: its values at trace time are compiled in, and "
        "later writes to the array are not seen. Pass it as an argument of the function to "
        "use its current values, or make it read-only (array.setflags(write=False)) or wrap "
        "it in strata.constant() to silence this warning.")
    # Shown as "file:line: CapturedArrayWarning: ..." at the user's line, not strata's.
    warnings.warn_explicit(message, CapturedArrayWarning, filename, line, module=module)
