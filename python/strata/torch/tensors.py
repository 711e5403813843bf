"""torch tensors <-> numpy arrays, sharing memory where the layouts allow.

A contiguous CPU tensor and the numpy array over the same storage are one buffer
(``Tensor.numpy()`` / ``torch.from_numpy``); bfloat16, which numpy lacks, travels as
int16 viewed as ml_dtypes' bfloat16. int64 tensors stay int64 (strata's i64); other
layouts are copied to a contiguous array.
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["to_numpy", "from_numpy"]


def to_numpy(t) -> np.ndarray:
    """A numpy array over ``t``'s memory (a copy only for a non-contiguous tensor or bf16
    on a layout numpy cannot view)."""
    if not isinstance(t, torch.Tensor):
        return np.asarray(t)
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if not t.is_contiguous():
        t = t.contiguous()
    if t.dtype == torch.bfloat16:
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def from_numpy(a: np.ndarray, dtype: torch.dtype | None = None) -> torch.Tensor:
    """A torch tensor over ``a``'s memory, in ``dtype`` (int32 widens to int64 when asked)."""
    if a.dtype.name == "bfloat16":
        t = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    else:
        t = torch.from_numpy(a)
    if dtype is not None and t.dtype != dtype:
        t = t.to(dtype)
    return t
