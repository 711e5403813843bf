"""strata-vectorize: tile and vectorize matmuls for the CPU's vector registers (on tensors).

Row reductions (option ``reductions``): an f32 ``linalg.generic`` (or
``linalg.reduce``) reducing its last, contiguous dim with one combiner gets
``reduction-width`` partial accumulators per row (``tile_reduction_using_for``),
vectorized and combined once per row — NaN-propagating max included, which
LLVM's loop vectorizer would leave scalar. Other float reductions get
``fastmath<reassoc,contract>`` on their combiners so LLVM may vectorize them.

For every ``linalg.matmul`` / ``linalg.batch_matmul`` with static shapes, a
transform-dialect strategy tiles for cache (``cache-m/n/k``) and then for
registers (``register-m`` x ``register-n``: a vector<MxN> accumulator, K step
1), vectorizes with masks for partial tiles, turns the multiply-reduce into
``vector.contract`` and hoists the accumulator out of the K loop.
``register-n=0`` (the default) makes the accumulator 8 vector registers of the
host (8 f32 lanes with AVX2, 16 with AVX-512): one register per row for 8
rows, two for 4, so accumulators plus operands fit the register file (16 ymm
/ 32 zmm); 8x16 on AVX2 spills and runs at half the speed. With ``threads`` > 1, a matmul of at least ``parallel-flops`` flops
with more than one cache tile gets its M x N cache tiles as an ``scf.forall``
(run on threads by strata-lower-to-llvm), and a row reduction of at least
``parallel-elements`` input elements gets its rows as one. The example below is
the sequential form (8x16 tiles):

    %0 = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x512xf32>) outs(%c)
  =>
    scf.for %i ... scf.for %j ... {               // 64x128x128 cache tiles
      scf.for %ii step 8 ... scf.for %jj step 16 ... {
        %acc = vector.transfer_read ...            // hoisted out of the K loop
        %r = scf.for %k ... iter_args(%v = %acc) { vector.contract ... : vector<8x16xf32> }
        vector.transfer_write %r ...

The contractions are lowered to FMAs later by strata-lower-vectors (after
bufferization). Other linalg ops are left to LLVM's loop vectorizer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..codegen.host import f32_lanes
from ..codegen.transform import ScriptError, apply_script, script
from .base import Pass, collect_ops, drop_attributes, option, threads_option

__all__ = ["VectorizePass", "LowerVectorsPass"]

T = "!transform.any_op"
FOR = '!transform.op<"scf.for">'


def _strategy(tag, cache, reg, batch, parallel=False, peel=None):
    """Tile-and-vectorize script for the one op carrying the attribute ``tag``.

    ``parallel``: the M x N cache tiles (and batch) form an ``scf.forall`` whose
    iterations may run on different threads; the K loop stays sequential.
    ``peel`` = (peel M, peel N), given when the cache tiles divide M and N: the
    register loops that do not divide their cache tile are peeled, so every
    register tile (remainders included) has a static shape and vectorizes
    without masks (masked tiles run about 10x slower). Without it, partial tiles
    are vectorized with masks."""
    lead = "1, " if batch else ""
    loops = 4 if batch else 3
    handles = ", ".join([T] * (loops + 1))
    if parallel:
        zero = "0, " if batch else ""
        outer = f"""
    %t0, %forall = transform.structured.tile_using_forall %op
        tile_sizes [{lead}{cache[0]}, {cache[1]}] : ({T}) -> ({T}, {T})
    %t1, %lk = transform.structured.tile_using_for %t0
        tile_sizes [{zero}0, 0, {cache[2]}] : ({T}) -> ({T}, {T})"""
    else:
        outer = f"""
    %t1, %l1:{loops} = transform.structured.tile_using_for %op
        tile_sizes [{lead}{cache[0]}, {cache[1]}, {cache[2]}] : ({T}) -> ({handles})"""
    m_loop, n_loop = loops - 3, loops - 2
    if peel is None:
        vectorize = (f"    transform.structured.vectorize %t2 vector_sizes "
                     f"[{lead}{reg[0]}, {reg[1]}, 1] : {T}")
    else:
        steps = []
        if peel[1]:
            steps.append(f"    %n_for = transform.cast %l2#{n_loop} : {T} to {FOR}")
            steps.append(f"    %n_main, %n_rest = transform.loop.peel %n_for "
                         f": ({FOR}) -> ({T}, {T})")
        if peel[0]:
            steps.append(f"    %m_for = transform.cast %l2#{m_loop} : {T} to {FOR}")
            steps.append(f"    %m_main, %m_rest = transform.loop.peel %m_for "
                         f": ({FOR}) -> ({T}, {T})")
        # the peeled tiles get static types once their constant sizes fold; every
        # tile still carries the tag
        steps.append(f"    %f0 = transform.structured.match ops{{[\"func.func\"]}} in %root "
                     f": ({T}) -> {T}")
        steps.append(f"    transform.apply_patterns to %f0 {{\n"
                     f"      transform.apply_patterns.canonicalization\n    }} : {T}")
        steps.append(f"    %tiles = transform.structured.match attributes{{\"{tag}\"}} "
                     f"in %root : ({T}) -> {T}")
        steps.append(f"    transform.structured.vectorize %tiles : {T}")
        vectorize = "\n".join(steps)
    return script(f"""
    %op = transform.structured.match attributes{{"{tag}"}} in %root : ({T}) -> {T}{outer}
    %t2, %l2:{loops} = transform.structured.tile_using_for %t1
        tile_sizes [{lead}{reg[0]}, {reg[1]}, 1] : ({T}) -> ({handles})
{vectorize}
    %f = transform.structured.match ops{{["func.func"]}} in %root : ({T}) -> {T}
    transform.apply_patterns to %f {{
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_masked_transfers
      transform.apply_patterns.vector.lower_masks
      transform.apply_patterns.canonicalization
    }} : {T}
    transform.apply_cse to %f : {T}""")


def _cache_tile(dim: int, preferred: int) -> int:
    """A cache tile for ``dim``: all of it when it fits, else a divisor of it no smaller
    than half the preferred size (so tiles stay static), else the preferred size."""
    if dim <= preferred:
        return max(1, dim)
    for t in range(preferred, preferred // 2 - 1, -1):
        if dim % t == 0:
            return t
    return preferred


def _reduction_strategy(tag, n_parallel, width, n_results, parallel=False):
    """Row reductions: partial accumulators of ``width`` lanes, combined once per row.

    ``parallel``: the rows form an ``scf.forall`` (run on threads later)."""
    ones = ", ".join(["1"] * n_parallel)
    zeros = ", ".join(["0"] * n_parallel)
    sizes = f"{ones}, {width}"
    k = n_results
    many = f":{k}" if k > 1 else ""
    handles = ", ".join([T] * (2 * k + 2))
    vectorize = [f"    transform.structured.vectorize %split vector_sizes [{sizes}] : {T}"]
    for name in ("comb", "fill"):
        for j in range(k):
            ref = f"%{name}#{j}" if k > 1 else f"%{name}"
            vectorize.append(f"    transform.structured.vectorize {ref} vector_sizes [{sizes}] "
                             f": {T}")
    vectorize = "\n".join(vectorize)
    if parallel:
        rows = (f"%t, %rows = transform.structured.tile_using_forall %op tile_sizes [{ones}, 0]"
                f" : ({T}) -> ({T}, {T})")
    else:
        rows = (f"%t, %l:{n_parallel} = transform.structured.tile_using_for %op tile_sizes "
                f"[{ones}, 0] : ({T}) -> ({', '.join([T] * (n_parallel + 1))})")
    return script(f"""
    %op = transform.structured.match attributes{{"{tag}"}} in %root : ({T}) -> {T}
    {rows}
    %fill{many}, %split, %comb{many}, %loop = transform.structured.tile_reduction_using_for %t
        by tile_sizes = [{zeros}, {width}] : ({T}) -> ({handles})
{vectorize}
    %f = transform.structured.match ops{{["func.func"]}} in %root : ({T}) -> {T}
    transform.apply_patterns to %f {{
      transform.apply_patterns.vector.lower_masked_transfers
      transform.apply_patterns.vector.lower_masks
      transform.apply_patterns.canonicalization
    }} : {T}""")


def _row_reduction(op, width):
    """Whether ``op`` is a linalg.generic reducing its last loop, contiguously, by one combiner."""
    if op.name != "linalg.generic" or not op.results:
        return False
    iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    if len(iterators) < 2 or "reduction" not in iterators[-1] or \
            any("reduction" in it for it in iterators[:-1]):
        return False
    types = [v.type for v in op.operands]
    if not all(isinstance(t, ir.RankedTensorType) and ir.RankedTensorType(t).has_static_shape
               and isinstance(ir.RankedTensorType(t).element_type, ir.F32Type) for t in types):
        return False
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    last = len(iterators) - 1
    for amap in maps[:-1]:
        results = list(amap.results)
        uses = [i for i, e in enumerate(results)
                if isinstance(e, ir.AffineDimExpr) and e.position == last]
        if uses and uses != [len(results) - 1]:
            return False  # the reduction dim must be the contiguous one (or absent)
    for v, amap in zip(op.operands, maps, strict=True):
        results = list(amap.results)
        if results and isinstance(results[-1], ir.AffineDimExpr) and \
                results[-1].position == last and ir.RankedTensorType(v.type).shape[-1] < width:
            return False
    block = op.regions[0].blocks[0]
    for acc in list(block.arguments)[-len(op.results):]:
        combiners = [o.operation for o in block.operations
                     if any(v == acc for v in o.operation.operands)]
        if not (len(combiners) == 1 and combiners[0].name in _COMBINERS and
                len(list(acc.uses)) == 1):
            return False
    return True


def _mnk(op, batch):
    """(M, N, K) of a static matmul / batch_matmul, from its indexing maps (a folded
    transpose swaps an operand's dims)."""
    if "indexing_maps" in op.attributes:
        sizes = {}
        for v, a in zip(op.operands, ir.ArrayAttr(op.attributes["indexing_maps"]), strict=True):
            shape = ir.RankedTensorType(v.type).shape
            for dim, expr in zip(shape, ir.AffineMapAttr(a).value.results, strict=True):
                if isinstance(expr, ir.AffineDimExpr):
                    sizes[expr.position] = dim
        first = 1 if batch else 0
        return (sizes[first], sizes[first + 1], sizes[first + 2])
    a = ir.RankedTensorType(op.operands[0].type).shape
    b = ir.RankedTensorType(op.operands[1].type).shape
    return (a[-2], b[-1], a[-1])


_LOWER = script(f"""
    %f = transform.structured.match ops{{["func.func"]}} in %root : ({T}) -> {T}
    transform.apply_patterns to %f {{
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerparallel"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_masks
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.vector.lower_broadcast
    }} : {T}""")


def _static_ops(module, name):
    """Matmuls of static shape whose element types vectorize well.

    bf16 operands are left to scalar code: LLVM 22's x86 backend aborts on some
    bf16 vector conversions (``SoftPromoteHalfOperand``) that these tiles produce.
    """
    def ok(op):
        types = [ir.RankedTensorType(v.type) for v in op.operands
                 if isinstance(v.type, ir.RankedTensorType)]
        return (op.name == name and len(types) == len(op.operands) and
                "strata.blas" not in op.attributes and  # a BLAS call (strata-fuse, strata-blas)
                all(t.has_static_shape for t in types) and
                not any(isinstance(t.element_type, ir.BF16Type) for t in types))

    return collect_ops(module, ok)


_COMBINERS = ("arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf",
              "arith.maxnumf", "arith.minnumf")


def mark_reassociable_reductions(module) -> int:
    """Lets LLVM reorder float reductions (``fastmath<reassoc>`` on each combiner).

    A combiner is a body op of a reduction (a ``linalg.reduce``, or a
    ``linalg.generic`` with a reduction loop) that reads the accumulator block
    argument. Reassociation lets the loop vectorizer keep vector partial sums;
    the result differs from the sequential order by rounding only (about
    sqrt(K) ulp for a length-K sum). Returns the number of ops marked.
    """
    marked = 0
    for op in collect_ops(module, lambda o: o.name in ("linalg.generic", "linalg.reduce")):
        if op.name == "linalg.generic":
            iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
            if not any("reduction" in it for it in iterators):
                continue
        block = op.regions[0].blocks[0]
        n_out = len(op.results)
        accumulators = list(block.arguments)[-n_out:] if op.name == "linalg.generic" else \
            list(block.arguments)[len(block.arguments) // 2:]
        for inner in block.operations:
            inner = inner.operation
            if inner.name in _COMBINERS and any(v == a for v in inner.operands
                                                for a in accumulators):
                inner.attributes["fastmath"] = ir.Attribute.parse(
                    "#arith.fastmath<reassoc,contract>", op.context)
                marked += 1
    return marked


@dataclass(frozen=True)
class VectorizePass(Pass):
    """Tile matmuls for caches and registers and vectorize them (on tensors)."""

    name = "strata-vectorize"
    cache_m: int = option(64, min=1)
    cache_n: int = option(128, min=1)
    cache_k: int = option(128, min=1)
    register_m: int = option(8, min=1)
    register_n: int = option(0, min=0)  # 0: from the host's vector width
    reductions: bool = True
    reduction_width: int = option(16, min=1)
    threads: int = threads_option()
    parallel_flops: int = option(1 << 25, min=1)
    parallel_elements: int = option(1 << 20, min=1)

    def run(self, module: ir.Operation) -> None:
        if self.reductions:
            mark_reassociable_reductions(module)
            self._vectorize_reductions(module)
        cache = (self.cache_m, self.cache_n, self.cache_k)
        lanes = f32_lanes()
        tags = []
        for op_name, batch in (("linalg.matmul", False), ("linalg.batch_matmul", True)):
            for op in _static_ops(module, op_name):
                # Tiles no larger than the op, so small matmuls need no remainder masks.
                m, n, k = _mnk(op, batch)
                op_cache = tuple(_cache_tile(dim, c) for c, dim in zip(cache, (m, n, k),
                                                                      strict=True))
                reg_m = max(1, min(self.register_m, op_cache[0]))
                # auto: 8 vector accumulators (8 rows of one register, 4 rows of two, ...)
                reg_n = self.register_n or lanes * max(1, 8 // reg_m)
                op_reg = (reg_m, max(1, min(reg_n, op_cache[1])))
                batches = ir.RankedTensorType(op.operands[0].type).shape[0] if batch else 1
                tiles = batches * -(-m // op_cache[0]) * -(-n // op_cache[1])
                parallel = (self.threads > 1 and tiles > 1 and
                            2 * batches * m * n * k >= self.parallel_flops)
                tag = f"strata.vectorize_{len(tags)}"
                tags.append(tag)
                op.attributes[tag] = ir.UnitAttr.get(module.context)
                location = op.location
                peel = None
                if m % op_cache[0] == 0 and n % op_cache[1] == 0:
                    peel = (op_cache[0] % op_reg[0] != 0, op_cache[1] % op_reg[1] != 0)
                try:
                    apply_script(module, _strategy(tag, op_cache, op_reg, batch, parallel,
                                                   peel))
                except ScriptError as e:
                    self.fail_at(location, f"strata-vectorize: {e}")
        drop_attributes(module, tags)


def _last_dim_reduce(op, width):
    """A linalg.reduce that, as a generic, would be a vectorizable row reduction."""
    if op.name != "linalg.reduce" or len(op.results) != 1:
        return False
    dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    t = ir.RankedTensorType(op.operands[0].type)
    return (dims == [t.rank - 1] and t.rank >= 2 and t.has_static_shape and
            isinstance(t.element_type, ir.F32Type) and t.shape[-1] >= width)


def _vectorize_reductions_impl(self, module):
    # linalg.reduce over the last dim becomes the equivalent generic, so it matches below.
    reduces = collect_ops(module, lambda o: _last_dim_reduce(o, self.reduction_width))
    for i, op in enumerate(reduces):
        op.attributes[f"strata.generalize_{i}"] = ir.UnitAttr.get(module.context)
    if reduces:
        body = "\n".join(
            f'    %r{i} = transform.structured.match attributes{{"strata.generalize_{i}"}} in '
            f"%root : ({T}) -> {T}\n"
            f"    %g{i} = transform.structured.generalize %r{i} : ({T}) -> {T}"
            for i in range(len(reduces)))
        apply_script(module, script(body))
        drop_attributes(module, [f"strata.generalize_{i}" for i in range(len(reduces))])
    ops = collect_ops(module, lambda o: _row_reduction(o, self.reduction_width))
    for i, op in enumerate(ops):
        tag = f"strata.vectorize_reduction_{i}"
        op.attributes[tag] = ir.UnitAttr.get(module.context)
        n_parallel = len(ir.ArrayAttr(op.attributes["iterator_types"])) - 1
        location = op.location
        try:
            elements = ir.RankedTensorType(op.operands[0].type)
            parallel = (self.threads > 1 and
                        np.prod(elements.shape) >= self.parallel_elements and
                        np.prod(elements.shape[:-1]) > 1)
            apply_script(module, _reduction_strategy(tag, n_parallel, self.reduction_width,
                                                     len(op.results), parallel))
        except ScriptError as e:
            self.fail_at(location, f"strata-vectorize: {e}")
    drop_attributes(module, [f"strata.vectorize_reduction_{i}" for i in range(len(ops))])


VectorizePass._vectorize_reductions = _vectorize_reductions_impl


@dataclass(frozen=True)
class LowerVectorsPass(Pass):
    """Lower vector contractions, masks and transfers to FMAs and 1-D vector ops."""

    name = "strata-lower-vectors"

    def run(self, module: ir.Operation) -> None:
        try:
            apply_script(module, _LOWER)
        except ScriptError as e:
            self.fail(module, f"strata-lower-vectors: {e}")
