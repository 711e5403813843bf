"""strata: an MLIR-based multi-level lowering pipeline for ML tensor programs.

    import numpy as np, strata

    @strata.jit
    def mlp(x, w1, w2):
        return strata.relu(x @ w1) @ w2

    y = mlp(x, w1, w2)              # compiled for the CPU on first call, then cached

Names are loaded lazily so that ``import strata`` stays fast.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_OPS = [
    "add", "sub", "mul", "div", "floor_divide", "remainder", "mod", "maximum", "minimum", "pow",
    "neg", "abs", "exp", "log",
    "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "where", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "matmul", "sum", "max", "mean", "prod", "min",
    "softmax",
    "layer_norm", "reshape", "transpose", "broadcast_to", "concat", "slice", "conv2d",
    "max_pool2d", "avg_pool2d", "constant", "cast", "erf", "sin", "cos", "floor", "ceil", "round",
    "sign", "take", "argmax", "argmin", "logical_and", "logical_or", "logical_xor",
    "logical_not",
]
# cumsum, flip, pad, scatter: frontend/index_ops.py
_INDEX_OPS = ["cumsum", "flip", "pad", "scatter", "scatter_add", "index_put"]
# &, |, ^, ~, <<, >>: frontend/bitwise.py
_BITWISE_OPS = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert",
                "left_shift", "right_shift"]
# argsort, sort, topk, take_along_axis: frontend/sort_ops.py
_SORT_OPS = ["argsort", "sort", "topk", "take_along_axis"]
# conv3d and the 3-D / 1-D pools: frontend/conv_nd.py
_CONV_ND_OPS = ["conv3d", "max_pool3d", "avg_pool3d", "max_pool1d", "avg_pool1d"]
_LAZY = {
    **{name: "strata.frontend.ops" for name in _OPS},
    **{name: "strata.frontend.index_ops" for name in _INDEX_OPS},
    **{name: "strata.frontend.bitwise" for name in _BITWISE_OPS},
    **{name: "strata.frontend.sort_ops" for name in _SORT_OPS},
    **{name: "strata.frontend.conv_nd" for name in _CONV_ND_OPS},
    "Tensor": "strata.frontend.tensor",
    "TensorSpec": "strata.frontend.tensor",
    "Module": "strata.frontend.module",
    "Function": "strata.frontend.module",
    "trace": "strata.frontend.module",
    "CapturedArrayWarning": "strata.frontend.captures",
    "StrataError": "strata.errors",
    "StrataMemoryError": "strata.errors",
    "StrataPerformanceWarning": "strata.runtime.api",
    "compile": "strata.runtime.api",
    "jit": "strata.runtime.api",
    "parse": "strata.runtime.api",
    "export_library": "strata.runtime.export",
    "show": "strata.explain.show",
    "bisect": "strata.explain.bisect",
    "from_torch": "strata.torch",
    "tune": "strata.autotune",
    "compile_many": "strata.autotune.batch",
    # issue 14, part B (opsb)
    "einsum": "strata.frontend.einsum",
    "conv_transpose2d": "strata.frontend.ops",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'strata' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
