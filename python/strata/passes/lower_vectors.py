"""strata-lower-vectors: vector contractions, reductions, masks and transfers to FMAs and
1-D vector ops (after bufferization, before LLVM).

A transform-dialect schedule of upstream's vector lowering patterns: contractions as
outer products (the packed micro-kernel's broadcast FMAs), multi-reductions as inner
reductions, masks, transfers of more than one dim unrolled into 1-D ones, broadcasts and
shape casts. Then a max/min ``vector.reduction`` of more than 2 lanes becomes a tree of
halves (Python patterns over ``mlir.rewrite``): LLVM expands ``llvm.vector.reduce.fmax``
(NaN-ignoring max, no ``nnan``) into one scalar max per lane, each waiting on the last
(15 dependent steps for 16 lanes; a fused attention's row maxima were 6% of its time),
while a vector ``maxnumf`` of two halves is one vector max with its NaN select:

    %m = vector.reduction <maxnumf>, %v, %acc : vector<16xf32> into f32
  =>
    %lo = vector.extract_strided_slice %v {offsets = [0], sizes = [8], strides = [1]}
    %hi = vector.extract_strided_slice %v {offsets = [8], sizes = [8], strides = [1]}
    %h = arith.maxnumf %lo, %hi : vector<8xf32>     ... 4, 2, 1 lanes the same way
    %e = vector.extract %q[0] : f32 from vector<1xf32>
    %m = arith.maxnumf %e, %acc : f32

The order of the comparisons changes, not the result: max and min are exact, and NaN
is treated as before (maxnumf/minnumf ignore it, maximumf/minimumf propagate it).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import vector as vector_ops
from mlir.dialects.transform import vector

from ..codegen.transform import ScriptError, apply_patterns, apply_schedule, match_ops
from .base import Pass
from .patterns import apply_greedily

__all__ = ["LowerVectorsPass"]

# vector.reduction kinds whose combiner is exact in any order -> the arith op
_TREE_KINDS = {"maxnumf": arith.MaxNumFOp, "minnumf": arith.MinNumFOp,
               "maximumf": arith.MaximumFOp, "minimumf": arith.MinimumFOp}


def _lower(root):
    """The schedule of strata-lower-vectors.

    Transfers of more than one dim (the packed kernel's accumulator, read from a
    rank-4 panel) are unrolled into 1-D ones here: convert-vector-to-scf would give
    each a stack buffer inside the loop nest, which overflows the stack."""
    apply_patterns(match_ops(root, ["func.func"]), vector.ApplyRankReducingSubviewPatternsOp,
                   lambda: vector.ApplyTransferToScfPatternsOp(max_transfer_rank=1,
                                                               full_unroll=True))
    apply_patterns(
        match_ops(root, ["func.func"]),
        lambda: vector.ApplyLowerContractionPatternsOp(
            lowering_strategy=vector.VectorContractLowering.OuterProduct),
        vector.ApplyTransferPermutationPatternsOp,
        # a row reduction's partials (vector<1x16> -> vector<1>) become one vector.reduction
        # (an add: a log2(16)-step shuffle tree in LLVM; a max or min: _tree_reduction),
        # not 16 extracts combined serially (InnerParallel)
        lambda: vector.ApplyLowerMultiReductionPatternsOp(
            lowering_strategy=vector.VectorMultiReductionLowering.InnerReduction),
        vector.ApplyLowerOuterProductPatternsOp,
        vector.ApplyLowerMasksPatternsOp,
        lambda: vector.ApplyLowerTransferPatternsOp(max_transfer_rank=1),
        vector.ApplyLowerShapeCastPatternsOp,
        vector.ApplyLowerBroadcastPatternsOp)


def _kind(op) -> str:
    # "#vector.kind<maxnumf>" -> "maxnumf"
    return str(op.attributes["kind"]).split("<", 1)[-1].rstrip(">")


def _tree_reduction(op, rewriter) -> bool:
    """A max/min ``vector.reduction`` of a 1-D vector of more than 2 lanes (a power of
    two) as a tree of halves combined by the vector form of its op."""
    combine = _TREE_KINDS.get(_kind(op))
    source = ir.VectorType(op.operands[0].type)
    lanes = source.shape[0] if source.rank == 1 and not source.scalable else 0
    if combine is None or lanes <= 2 or lanes & (lanes - 1):
        return False
    fastmath = op.attributes["fastmath"] if "fastmath" in op.attributes else None
    value, width = op.operands[0], lanes
    with rewriter.ip, op.location:
        while width > 1:
            width //= 2
            half = ir.VectorType.get([width], source.element_type)
            lo = vector_ops.ExtractStridedSliceOp(half, value, [0], [width], [1]).result
            hi = vector_ops.ExtractStridedSliceOp(half, value, [width], [width], [1]).result
            value = combine(lo, hi, fastmath=fastmath).result
        result = vector_ops.extract(value, [], [0])
        if len(op.operands) > 1:  # the accumulator
            result = combine(result, op.operands[1], fastmath=fastmath).result
    rewriter.replace_op(op, [result])
    return True


@dataclass(frozen=True, eq=False, repr=False)
class LowerVectorsPass(Pass):
    """Lower vector contractions, reductions, masks and transfers to FMAs and 1-D vector ops."""

    name = "strata-lower-vectors"

    def run(self, module: ir.Operation) -> None:
        try:
            apply_schedule(module, _lower)
        except ScriptError as e:
            self.fail(module, f"strata-lower-vectors: {e}")
        apply_greedily(module, [("vector.reduction", _tree_reduction)])
