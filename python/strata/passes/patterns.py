"""Greedy pattern rewriting for strata's passes, over upstream's ``mlir.rewrite``.

A pattern is a function ``fn(op, rewriter) -> bool`` that returns True when it
rewrote ``op`` and False when it did not match. :func:`apply_greedily` adapts
that to ``mlir.rewrite``'s convention (a *falsy* return means success, easy to
get backwards) and runs upstream's greedy driver,
``apply_patterns_and_fold_greedily``, which applies the patterns until none
matches and erases trivially dead ops (ops without effects whose results are
unused) on the way.

Patterns create ops at ``rewriter.ip`` (just before the matched op) and remove
ops only through ``rewriter.replace_op`` / ``rewriter.erase_op``, so the driver
never visits an op that is gone. An operand or attribute changed in place is
not reported to the driver (the Python rewriter has no ``modify_op_in_place``):
the pattern's success makes the driver sweep the IR once more, which revisits
it.

Upstream folding, constant CSE and region simplification are off: strata's
passes rewrite only what their patterns say.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from mlir import ir
from mlir import rewrite as mlir_rewrite

__all__ = ["Pattern", "apply_greedily", "erase_dead_ops"]

# fn(op, rewriter) -> True if it rewrote op, False if it did not match.
Pattern = Callable[[ir.OpView, mlir_rewrite.PatternRewriter], bool]

_NOT_CONVERGED = "failed to converge"


def _adapt(fn: Pattern):
    def match_and_rewrite(op, rewriter):
        return not fn(op, rewriter)  # mlir.rewrite: falsy = success

    return match_and_rewrite


def apply_greedily(root, patterns: Iterable[tuple], *, max_iterations: int = 10) -> bool:
    """Applies ``patterns`` to the ops nested in ``root`` until none matches.

    Each pattern is ``(root op name or OpView class, fn)`` or ``(..., fn, benefit)``;
    on one op, patterns of higher benefit are tried first. At most ``max_iterations``
    sweeps of upstream's greedy driver; returns False if that bound stopped it before
    a fixpoint (the IR then holds the rewrites done so far)."""
    root = getattr(root, "operation", root)
    with root.context:
        pattern_set = mlir_rewrite.RewritePatternSet()
        for op_kind, fn, *benefit in patterns:
            pattern_set.add(op_kind, _adapt(fn), *benefit)
        config = mlir_rewrite.GreedyRewriteConfig()
        config.max_iterations = max_iterations
        config.enable_folding = False
        config.enable_constant_cse = False
        config.region_simplification_level = mlir_rewrite.GreedySimplifyRegionLevel.DISABLED
        try:
            mlir_rewrite.apply_patterns_and_fold_greedily(root, pattern_set.freeze(), config)
        except RuntimeError as e:
            if _NOT_CONVERGED not in str(e):
                raise
            return False
    return True


def erase_dead_ops(root) -> None:
    """Erases the trivially dead ops nested in ``root`` (no patterns: the driver's own DCE)."""
    apply_greedily(root, [])
