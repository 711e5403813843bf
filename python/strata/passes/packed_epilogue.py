"""A packed matmul's elementwise epilogue, computed in the copy that unpacks C.

strata-fuse leaves a large matmul that runs on packed panels (strata-vectorize) apart
from its elementwise epilogue: the bias add of ``nn.Linear``, an activation, a residual.
The epilogue would then be a loop of its own over all of C, after the unpack's copy of
C, and on one thread where it is below strata-parallelize's threshold. Here it takes
the unpack's place instead: its output tiles (``mr x nr``, by the unpack's row chunks
on threads) each unpack their own tile of C, whose vector then feeds the epilogue
directly (the write of the unpacked tile and its read fold away):

    %c = linalg.unpack %pc inner_tiles = [8, 32] into %c0         // scf.forall of copies
    %e = linalg.generic {parallel} ins(%c, %bias) { addf }
  =>
    %e = scf.forall (%t) in (2) { scf.for %i step 8, %j step 32 {
           %v = vector.transfer_read %pc[%i/8, %j/32, 0, 0] : vector<8x32xf32>
           %b = vector.transfer_read %bias[%j] (broadcast) : vector<8x32xf32>
           vector.transfer_write (arith.addf %v, %b), %e_tile }}

(4 x 64 x 256 encoder layer, its four linear layers' bias adds: a pass over each
result less, and on both threads.)
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects.transform import structured

from ..codegen.transform import match_tagged
from .base import in_loop
from .fusion.merge import is_elementwise_producer, n_inputs
from .layout_common import indexing_maps

__all__ = ["elementwise_epilogue", "fuse_epilogue"]


def elementwise_epilogue(op):
    """The one elementwise ``linalg.generic`` (fusion/merge.py's sense: all-parallel, one
    result written in C's order) that reads ``op``'s result (a matmul's C) once, element
    for element, and is not inside a loop; None for any other use."""
    uses = list(op.results[0].uses)
    if len(uses) != 1:
        return None
    user = uses[0].owner.operation
    if not is_elementwise_producer(user) or in_loop(user):
        return None
    inputs = n_inputs(user)
    reads = [i for i in range(inputs) if user.operands[i] == op.results[0]]
    if len(reads) != 1 or user.operands[inputs] == op.results[0]:
        return None
    c_map = indexing_maps(user)[reads[0]]
    return user if c_map == ir.AffineMap.get_identity(c_map.n_dims) else None


def fuse_epilogue(root, tag, unpack, plan, parallel) -> None:
    """The transform ops that tile the epilogue tagged ``tag`` as ``plan`` tiles C's
    unpack (``(chunks, tile, vector sizes, count)`` of strata-vectorize's
    ``_copy_tiles``; chunks on an ``scf.forall`` when ``parallel``) and fuse the unpack
    (the handle ``unpack``) into each tile. The epilogue's tiles are vectorized at the
    register tile's size: with masks where C ends in a partial tile or the row chunks
    are unequal (43 six-row panels on 2 threads), without where the tile is whole."""
    chunks, tile, vector_sizes, _ = plan
    consumer = match_tagged(root, tag)
    if parallel:
        forall = structured.TileUsingForallOp(consumer, tile_sizes=chunks)
        unpack = structured.FuseIntoContainingOp(unpack, forall.forall_op).fused_op
        consumer = forall.tiled_op
    tiled = structured.TileUsingForOp(consumer, sizes=tile)
    unpack = structured.FuseIntoContainingOp(unpack, tiled.loops[0]).fused_op
    structured.VectorizeOp(unpack, vector_sizes)
    structured.VectorizeOp(tiled.tiled_linalg_op, tile)
