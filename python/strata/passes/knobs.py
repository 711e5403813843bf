"""The passes' knobs and constants that the layers above use, under public names.

A pass keeps its choices (tiles, cost-model marks, attribute names) beside its code;
the runtime and the tuner reach them here and nowhere else in a pass module:

    from strata.passes import knobs
    knobs.OPT_LEVEL_CAP      # attribute on a function: the highest LLVM -O level it takes
    knobs.BLAS_SYMBOLS       # the library functions strata-blas's calls name
    knobs.BLAS_MARK          # strata-fuse's mark on a contraction that a BLAS call runs
    knobs.blas_sizes(op)     # (batch, m, n, k) of a contraction a BLAS call can run
    knobs.matmul_plans(module, configs, threads)  # strata-vectorize's plan per config
    knobs.attention_match(softmax)  # strata-attention's view of an attention (NoMatch)
    knobs.attention_tiles(shape, threads)         # its default (query, key) tiles
    knobs.KNOBS, knobs.format_tuned(...)          # the tuned-tile options (passes/tuning.py)

Each name is loaded on first use, with only the module that holds it: most pass
modules import the MLIR bindings, and a disk-cache hit reads the tuning knobs
without loading them.
"""

from __future__ import annotations

_NAMES = ("OPT_LEVEL_CAP", "BLAS_SYMBOLS", "BLAS_MARK", "blas_sizes", "matmul_plans",
           "attention_match", "attention_tiles", "NoMatch", "collect_ops", "KNOBS",
           "BOOL_KNOBS", "SIGNATURE", "ZERO_MEANS_HOST", "format_tuned", "matmul_signature",
           "attention_signature")
__all__ = list(_NAMES)  # each loaded by __getattr__ below

_TUNING = {"KNOBS", "BOOL_KNOBS", "SIGNATURE", "ZERO_MEANS_HOST", "format_tuned",
           "matmul_signature", "attention_signature"}


def __getattr__(name: str):
    if name in _TUNING:
        from . import tuning

        return getattr(tuning, name)
    if name == "OPT_LEVEL_CAP":
        from .fusion.im2col import OPT_LEVEL_CAP

        return OPT_LEVEL_CAP
    if name == "BLAS_SYMBOLS":
        from .blas import SYMBOLS

        return SYMBOLS
    if name in ("BLAS_MARK", "blas_sizes"):
        from . import fuse

        return getattr(fuse, name)
    if name == "matmul_plans":
        from .vectorize import matmul_plans

        return matmul_plans
    if name in ("attention_match", "attention_tiles", "NoMatch"):
        from . import attention

        return {"attention_match": attention.match, "attention_tiles": attention.choose_tiles,
                "NoMatch": attention._NoMatch}[name]
    if name == "collect_ops":
        from .base import collect_ops

        return collect_ops
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
