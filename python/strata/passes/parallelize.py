"""strata-parallelize: split large elementwise ops across threads (on tensors).

strata-vectorize already makes large matmuls and row reductions parallel; this
pass does the same for the ops it leaves alone: an all-parallel
``linalg.generic`` of static shape, with no 0-d operand, at the top level of a
function whose
arithmetic, elements x per-element body cost (passes/fusion/model.py: 0.25 per
simple op, 4 per exp/div/...), is at least ``parallel-work``. Its outermost loop is
split into ``threads`` chunks of an ``scf.forall`` (run on threads by
strata-lower-to-llvm), and each chunk is vectorized (below). With ``threads=1``
(the default) nothing is split::

    %0 = linalg.generic {parallel, parallel} ins(%x : tensor<1024x1024xf32>) ...
  =>
    %0 = scf.forall (%i) in (2) shared_outs(%o = %init) -> (tensor<1024x1024xf32>) {
      %1 = linalg.generic {parallel, parallel} ins(512x1024 slice of %x) ...
      scf.forall.in_parallel { tensor.parallel_insert_slice %1 into %o[...] }
    }

A 0-d operand (the scalar ``0.5`` of ``x * 0.5``) would become a pointer
argument of the outlined parallel function that LLVM reloads on every element
(measured 3.5x slower), so an op that has one is not split unless the operand
is a splat constant: those are first inlined into the body as scalar
constants (an ``mlir.rewrite`` pattern), which also frees fused chains such as
``tanh(max(x*w+b, 0)*0.5+0.1)*2`` to run on threads::

    %0 = linalg.generic ins(%half, %x : tensor<f32>, tensor<1024x1024xf32>) {
         ^bb0(%h: f32, %a: f32, %o: f32): %m = arith.mulf %a, %h ... }
  =>
    %0 = linalg.generic ins(%x : tensor<1024x1024xf32>) {
         ^bb0(%a: f32, %o: f32): %h = arith.constant 5.000000e-01 : f32; %m = arith.mulf %a, %h ... }

An op that is not split (one thread, or below ``parallel-work``) but whose f32
output is ``stream-bytes`` or larger, with every operand read along its last dim
(or broadcast along it), is vectorized the same way in one loop: LLVM would
vectorize it too, with plain stores, while these full vector writes are what
strata-nontemporal-stores streams past the cache (``x * w + b`` chains on 4096 x
4096, one thread: see the docs' row_kernels.md)::

    %0 = linalg.generic {parallel, parallel} ins(%x ...) -> tensor<4096x4096xf32>
  =>                                                        (threads=1, AVX-512)
    scf.for %i ... scf.for %j step 32 { vector.transfer_read ... vector<1x32xf32>
                                        ... vector.transfer_write ... }

An all-parallel op inside an ``scf.forall`` (a fused kernel's tile step: the
exponentials and rescalings of strata-attention's loop nest) is vectorized the same way,
whatever its size and the thread count, and not split again: the forall becomes an
outlined parallel function, where LLVM leaves the loop scalar (the encoder layer's 32
heads of 64 x 64 x 32 attention, 2 threads: 326 -> 184 us). So is one inside an
``scf.for`` (the same nest on one thread), which LLVM would vectorize at 256 bits on
AVX-512 hosts, its preferred width there (8 x 512 x 64 attention, one thread, Xeon:
about 5% faster)::

    scf.forall (%h) in (32) { ... %p = linalg.generic ins(%s : tensor<64x64xf32>) { exp } ... }
  =>
    scf.forall (%h) in (32) { ... scf.for %i ... scf.for %j step 32 {
                                      vector.transfer_read ... math.exp ... : vector<1x32xf32> } }

Below the threshold waking a worker (50-100 us on the 2-core machines) costs
more than the split saves. Memory-bound ops (copies, adds, transposes) are
left alone whatever their size: their output is a fresh buffer, and two
threads first-touching its pages contend in the kernel and run slower than one
(measured: 2048x1024 add, 431 us on one thread, 833 us on two).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, transform
from mlir.dialects.transform import structured, vector

from ..codegen.host import f32_lanes
from ..codegen.transform import ScriptError, Tags, apply_patterns, match_ops, match_tagged
from .base import Pass, collect_ops, option, threads_option
from .fusion.model import body_cost
from .layout_common import indexing_maps
from .linalg_ops import linalg
from .patterns import apply_greedily

__all__ = ["ParallelizePass"]


def _elements(op) -> int | None:
    t = op.results[0].type if len(op.results) == 1 else None
    if t is None or not isinstance(t, ir.RankedTensorType):
        return None
    t = ir.RankedTensorType(t)
    if not t.has_static_shape or t.rank == 0:
        return None
    n = 1
    for d in t.shape:
        n *= d
    return n


def _candidate(op) -> float:
    """The work of ``op`` if it may be split (0 otherwise)."""
    if op.parent is None or op.parent.name != "func.func":
        return 0.0
    if op.name == "linalg.generic":
        iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
        if any("reduction" in it for it in iterators):
            return 0.0
        # A 0-d operand (a scalar constant like the 0.5 of ``gelu(x) * 0.5``) becomes a
        # pointer argument of the outlined parallel function, which LLVM then
        # reloads on every element: measured 3.5x slower than one thread.
        if any(isinstance(v.type, ir.RankedTensorType) and ir.RankedTensorType(v.type).rank == 0
               for v in op.operands):
            return 0.0
        per_element = body_cost(op)
    else:
        return 0.0
    n = _elements(op)
    if n is None or ir.RankedTensorType(op.results[0].type).shape[0] < 2:
        return 0.0
    return n * per_element


@dataclass(frozen=True, eq=False, repr=False)
class ParallelizePass(Pass):
    """Split large elementwise ops across threads; vectorize large unsplit ones to stream."""

    name = "strata-parallelize"
    threads: int = threads_option()
    parallel_work: int = option(1 << 21, min=1, help="Fewest cost units of an op split across threads")
    vector_width: int = option(0, min=0, help="f32 elements per vector step of a split op (0: 2 host vector registers; 1: leave vectorizing to LLVM)")
    stream_bytes: int = option(16 << 20, min=0, help="Fewest output bytes of an op not split across threads that is still vectorized here, for non-temporal stores (0: never)")

    def _vector_tile(self, op):
        """Tile sizes (1, ..., 1, width) that vectorize a split op's chunks, or None.

        Inside the outlined parallel function LLVM's loop vectorizer gives up on
        these loops (it cannot prove the stores leave the captured buffer
        descriptors alone: measured 4x slower than one thread), so the chunks are
        vectorized here: f32 ops whose last dim is a static multiple of the width."""
        width = self.vector_width or 2 * f32_lanes()
        t = ir.RankedTensorType(op.results[0].type)
        types = [v.type for v in op.operands]
        if width == 1 or t.shape[-1] % width or not all(
                isinstance(ir.RankedTensorType(v).element_type, ir.F32Type) for v in types):
            return None
        maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
        if any(not m.is_projected_permutation for m in maps):
            return None
        return [1] * (t.rank - 1) + [width]

    def _split_here(self, op) -> bool:
        return self.threads > 1 and _candidate(op) >= self.parallel_work

    def _streamed_size(self, op) -> bool:
        n = _elements(op)
        return bool(self.stream_bytes) and n is not None and 4 * n >= self.stream_bytes

    def _stream_here(self, op) -> bool:
        """Not split, but large enough that its vector writes should stream."""
        if _candidate(op) == 0 or self._split_here(op):
            return False
        return self._streamed_size(op) and _reads_rows(op)

    def _inline_scalars(self, op, rewriter) -> bool:
        if self.threads == 1 and not self._streamed_size(op):
            return False  # nothing else changes with one thread
        return _inline_splat_scalars(op, rewriter)

    def run(self, module: ir.Operation) -> None:
        if self.threads == 1 and not self.stream_bytes:
            return
        apply_greedily(module, [("linalg.generic", self._inline_scalars)])
        with Tags(module) as tags:
            plans = []
            for i, op in enumerate(collect_ops(
                    module, lambda o: self._split_here(o) or self._stream_here(o) or
                    _in_loop(o))):
                rank = ir.RankedTensorType(op.results[0].type).rank
                counts = [self.threads] + [0] * (rank - 1) if self._split_here(op) else None
                tile = self._vector_tile(op)
                if counts is None and tile is None:
                    continue
                plans.append((tags.add(op, f"strata.parallelize_{i}"), counts, op.location,
                              tile))
            op = None  # no handle on a payload op outlives the schedules
            for tag, counts, location, vector_tile in plans:
                try:
                    tags.apply(_split(tag, counts, vector_tile))
                except ScriptError as e:
                    self.fail_at(location, f"strata-parallelize: {e}")


def _in_loop(op) -> bool:
    """An all-parallel ``linalg.generic`` of static shape inside an ``scf.forall`` or
    ``scf.for`` (a fused kernel's tile step, e.g. strata-attention's exponentials): the
    forall becomes an outlined parallel function, where LLVM's loop vectorizer leaves such
    loops scalar, and LLVM vectorizes the for's at half the AVX-512 width."""
    if op.name != "linalg.generic" or len(op.results) == 0:
        return False
    iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    if any("reduction" in it for it in iterators) or _elements(op) is None:
        return False
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in ("scf.forall", "scf.for"):
            return _reads_rows(op)
        parent = parent.parent
    return False


def _reads_rows(op) -> bool:
    """Every operand of ``op`` is read along its last dim (the map's last result is the
    op's last loop) or broadcast along it (no result uses that loop): vector reads are
    then contiguous or splats, never gathers."""
    for amap in indexing_maps(op):
        last = ir.AffineDimExpr.get(amap.n_dims - 1)
        results = list(amap.results)
        if last in results and results[-1] != last:
            return False
    return True


def _split(tag, counts, vector_tile=None):
    """The schedule: the tagged op as an scf.forall of ``counts`` chunks (None: not
    split); with ``vector_tile``, each chunk tiled by it and vectorized."""
    def body(root):
        op = match_tagged(root, tag)
        if counts is not None:
            op = structured.TileUsingForallOp(op, num_threads=counts).tiled_op
        if vector_tile is None:
            return
        tiled = structured.TileUsingForOp(op, sizes=vector_tile)
        structured.VectorizeOp(tiled.tiled_linalg_op)
        func = match_ops(root, ["func.func"])
        apply_patterns(func,
                       vector.ApplyTransferPermutationPatternsOp,
                       vector.ApplyLowerMasksPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)

    return body


def _splat_scalar(value):
    """The scalar of a 0-d ``arith.constant`` tensor operand (an ``ir.Attribute``), else None."""
    t = value.type
    if not isinstance(t, ir.RankedTensorType) or ir.RankedTensorType(t).rank != 0:
        return None
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "arith.constant":
        return None
    try:
        attr = ir.DenseElementsAttr(owner.operation.attributes["value"])
    except ValueError:
        return None
    return attr.get_splat_value() if attr.is_splat else None


def _inline_splat_scalars(op, rewriter) -> bool:
    """linalg.generic with 0-d constant inputs -> the same op with them as body constants."""
    if op.parent is None or op.parent.name != "func.func":
        return False
    n_in = len(op.operands) - len(op.results)
    scalars = [_splat_scalar(v) for v in list(op.operands)[:n_in]]
    if not any(s is not None for s in scalars):
        return False
    maps = list(ir.ArrayAttr(op.attributes["indexing_maps"]))
    keep = [i for i, s in enumerate(scalars) if s is None] + list(range(n_in, len(maps)))
    operands = list(op.operands)
    with rewriter.ip, op.location:
        new = linalg.GenericOp([r.type for r in op.results],
                               [operands[i] for i in keep if i < n_in],
                               operands[n_in:],
                               ir.ArrayAttr.get([maps[i] for i in keep]),
                               op.attributes["iterator_types"])
        old_block = op.regions[0].blocks[0]
        block = new.regions[0].blocks.append(*[old_block.arguments[i].type for i in keep])
        mapping = {}
        with ir.InsertionPoint(block):
            for i, s in enumerate(scalars):
                if s is not None:
                    mapping[old_block.arguments[i]] = arith.ConstantOp(s.type, s).result
        for i, arg in zip(keep, block.arguments, strict=True):
            mapping[old_block.arguments[i]] = arg
        for inner in old_block.operations:
            with ir.InsertionPoint(block):
                clone = inner.operation.clone().operation
            for v in list(clone.operands):
                if v in mapping:
                    clone.replace_uses_of_with(v, mapping[v])
            for a, b in zip(inner.operation.results, clone.results, strict=True):
                mapping[a] = b
    rewriter.replace_op(op, list(new.results))
    return True
