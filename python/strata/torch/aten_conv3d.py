"""ATen's 3-D convolution and pooling as strata's (frontend/conv_nd.py): the converters and
the support check aten_ops.py merges.

    aten.convolution(%x, %w: rank 5, ...)        -> strata.conv3d (+ the bias)
    aten.max_pool3d_with_indices(%x, k, s, p)   -> strata.max_pool3d (indices unused)
    aten.avg_pool3d(%x, k, s, p, ...)           -> strata.avg_pool3d (counted padding
                                                   padded on first; divisor_override)

(1-D pools need nothing here: PyTorch builds them from the 2-D ones.)
"""

from __future__ import annotations

import operator

from ..frontend import conv_nd as C
from ..frontend import index_ops as I
from ..frontend import ops as S

__all__ = ["CONV3D_CONVERTERS", "conv3d_unsupported", "convolution3d"]


def _triple(v, default):
    v = list(v) if v else list(default)
    return v * 3 if len(v) == 1 else v


def convolution3d(input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    """The forward ``aten.convolution`` of a rank-5 weight (aten_ops._convolution's)."""
    y = C.conv3d(input, weight, stride=_triple(stride, [1]), padding=_triple(padding, [0]),
                 dilation=_triple(dilation, [1]), groups=int(groups))
    return y if bias is None else S.add(y, S.reshape(bias, [1, -1, 1, 1, 1]))


def _max_pool3d(node, self, kernel_size, stride=(), padding=(0,), dilation=(1,),
                ceil_mode=False):
    kernel = _triple(kernel_size, [])
    return C.max_pool3d(self, kernel, _triple(stride, kernel), _triple(padding, [0])), None


def _avg_pool3d(node, self, kernel_size, stride=(), padding=(0,), ceil_mode=False,
                count_include_pad=True, divisor_override=None):
    kernel = _triple(kernel_size, [])
    padding = _triple(padding, [0])
    if count_include_pad and any(padding):
        self = I.pad(self, [(0, 0), (0, 0)] + [(p, p) for p in padding])
        padding = [0, 0, 0]
    out = C.avg_pool3d(self, kernel, _triple(stride, kernel), padding)
    if divisor_override:
        out = S.mul(out, float(kernel[0] * kernel[1] * kernel[2]) / float(divisor_override))
    return out


CONV3D_CONVERTERS = {
    "max_pool3d_with_indices": _max_pool3d,
    "max_pool3d": lambda n, *a, **k: _max_pool3d(n, *a, **k)[0],
    "avg_pool3d": _avg_pool3d,
}


def conv3d_unsupported(name, node, args) -> str | None:
    """Why one of the converters above cannot take a node's arguments (None: it can)."""
    if name in ("max_pool3d_with_indices", "max_pool3d"):
        if any(d != 1 for d in args.get("dilation", (1,)) or (1,)) or args.get("ceil_mode"):
            return f"aten.{name}: dilation or ceil_mode"
        if name == "max_pool3d_with_indices" and any(
                u.target is operator.getitem and u.args[1] == 1 for u in node.users):
            return "aten.max_pool3d_with_indices: the indices are used"
    if name == "avg_pool3d":
        if args.get("ceil_mode"):
            return "aten.avg_pool3d: ceil_mode"
        if args.get("divisor_override") and any(args.get("padding", (0,)) or (0,)) and \
                not args.get("count_include_pad", True):
            return "aten.avg_pool3d: divisor_override with uncounted padding"
    if name == "convolution" and args["weight"].meta["val"].dim() == 5 and args["transposed"]:
        return "aten.convolution: a transposed 3-D convolution"
    return None
