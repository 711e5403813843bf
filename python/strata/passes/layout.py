"""strata-layout: choose data layouts on linalg-on-tensors (transposes, conv layout, packing).

Three rules, run per function in this order (see the layout_*.py modules):

1. ``transposes``: fold ``linalg.transpose`` into the indexing maps of the
   generics, reductions and matmuls that read it, push it into the elementwise
   op that produces it, cancel transpose pairs and fold it into constants
   (layout_transpose.py).
2. ``conv-layout`` (auto|nchw|nhwc|keep): give each chain of NCHW convs, pools,
   paddings and elementwise ops one layout for the whole function, converting
   only at the chain's boundary; ``auto`` minimizes the number of conversions
   (layout_conv.py). Rule 1 runs again afterwards, so boundary transposes meet
   and cancel with the program's own.
3. ``pack-matmul``: block ``linalg.matmul`` into ``linalg.pack``ed tiles
   (upstream linalg-block-pack-matmul, ``block-m x block-n x block-k``), packing
   constant operands with numpy and dropping the pack of the zero-filled
   accumulator (layout_pack.py).

    %t = linalg.transpose ins(%x : tensor<1x16x16x3xf32>) permutation = [0, 3, 1, 2]
    %c = linalg.conv_2d_nchw_fchw ins(pad(%t), %w_const) ... ; relu ; pool ; conv ...
    %o = linalg.transpose ins(%c2) permutation = [0, 2, 3, 1]
    return %o
  =>                                                   (conv-layout=auto)
    %c = linalg.conv_2d_nhwc_hwcf ins(pad(%x), %w_const_hwcf) ... ; relu ; pool ; conv ...
    return %c2     // remark: removed 2 layout conversions (2 before, 0 after; 12 with a pair
                   // around each op); convs in NHWC (deciding each conv alone would convert 0)

With ``report=true`` each function that changed gets a remark at its location:
``strata-layout: removed N layout conversions (M before, K after; P with a pair
around each op); convs in NHWC``, where M and K count the ``linalg.transpose`` ops
on entry and on exit ("added" when K > M), P what a per-op rewrite (a pair
around each op whose layout changed, one per non-constant filter) would have
left, and a note says when deciding each conv alone would choose differently.

Measured on this machine (2-core AVX2, see test/unit/test_layout.py's docstring):
NHWC convs are not faster than NCHW ones in the current pipeline (strata-vectorize
only vectorizes matmuls; conv loops are left to LLVM), so ``auto`` never pays a
transpose just to get NHWC; it converts when that removes conversions. Packing is
slower than strata-vectorize's 8x16 register-tiled matmul (the packed contraction
is a linalg.generic that strata-vectorize does not match), so ``pack-matmul``
defaults to false.

Dead ops (without effects, results unused) are erased by upstream's greedy
pattern driver (see patterns.py) after rule 1 and at the end.

Limits: entry-block ops with static shapes only; NHWC convs are never turned
into NCHW; packing needs static matmul shapes.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .base import Pass, option
from .layout_common import count_ops
from .layout_conv import choose_and_rewrite
from .layout_pack import PackingError, pack_matmuls
from .layout_transpose import fold_constant_transposes, propagate_transposes
from .patterns import erase_dead_ops

__all__ = ["LayoutPass"]

_MODES = ("auto", "nchw", "nhwc", "keep")


@dataclass(frozen=True, eq=False, repr=False)
class LayoutPass(Pass):
    """Choose data layouts: propagate transposes, NHWC conv chains, packed matmuls."""

    name = "strata-layout"
    transposes: bool = option(True, help="Fold and cancel transposes")
    conv_layout: str = option("auto", choices=_MODES, help="Layout of conv chains (auto: the fewest conversions)")
    fold_matmul_transposes: bool = option(True, help="Fold a transposed matmul operand into the matmul")
    pack_matmul: bool = option(False, help="Pack static matmuls into blocks")
    block_m: int = option(8, min=1, help="Block rows of a packed matmul")
    block_n: int = option(16, min=1, help="Block columns of a packed matmul")
    block_k: int = option(1, min=1, help="Block depth (K) of a packed matmul")
    report: bool = option(False, help="Report the conversions removed as a remark")

    def run(self, module: ir.Operation) -> None:
        funcs = []

        def collect(op):
            if op.name == "func.func" and op.regions[0].blocks:
                funcs.append(op)
            return ir.WalkResult.SKIP

        for op in module.regions[0].blocks[0].operations:
            collect(op.operation)
        with module.context, ir.Location.unknown():
            for func in funcs:
                self._run_on(func)

    def _run_on(self, func) -> None:
        before = count_ops(func, "linalg.transpose")
        if self.transposes:
            fold_constant_transposes(func)
            propagate_transposes(func, self.fold_matmul_transposes)
            erase_dead_ops(func)
        res = choose_and_rewrite(func, self.conv_layout)
        if self.transposes:
            propagate_transposes(func, self.fold_matmul_transposes)
        fold_constant_transposes(func)
        if self.pack_matmul:
            try:
                pack_matmuls(func, (self.block_m, self.block_n, self.block_k))
            except PackingError as e:
                self.fail(func, f"strata-layout: packing failed: {e}")
        erase_dead_ops(func)
        after = count_ops(func, "linalg.transpose")
        if self.report and (before != after or res.changed_ops):
            where = "NHWC" if res.convs_nhwc == res.convs and res.convs else (
                f"{res.convs_nhwc} of {res.convs} in NHWC" if res.convs_nhwc else "NCHW")
            verb = "removed" if after <= before else "added"
            text = (f"strata-layout: {verb} {abs(before - after)} layout conversions "
                    f"({before} before, {after} after")
            if res.per_op_conversions:
                text += f"; {before + res.per_op_conversions} with a pair around each op"
            text += ")"
            if res.convs:
                text += f"; convs in {where}"
                if res.per_op_choice_converts != res.convs_nhwc:
                    text += (f" (deciding each conv alone would convert "
                             f"{res.per_op_choice_converts})")
            self.remark(func, text)
