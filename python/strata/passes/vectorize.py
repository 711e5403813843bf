"""strata-vectorize: tile and vectorize matmuls for the CPU's vector registers (on tensors).

Also marks float reduction combiners ``fastmath<reassoc,contract>`` (option
``reductions``) so that LLVM's loop vectorizer can vectorize row sums and maxima.

For every ``linalg.matmul`` / ``linalg.batch_matmul`` with static shapes, a
transform-dialect strategy tiles for cache (``cache-tiles``, M x N x K) and then
for registers (``register-tiles``, a vector<MxN> accumulator, K step 1),
vectorizes with masks for partial tiles, turns the multiply-reduce into
``vector.contract`` and hoists the accumulator out of the K loop:

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

from mlir import ir

from ..codegen.transform import apply_script, script
from .base import Pass, collect_ops

__all__ = ["VectorizePass", "LowerVectorsPass"]

T = "!transform.any_op"


def _strategy(tag, cache, reg, batch):
    """Tile-and-vectorize script for the one op carrying the attribute ``tag``."""
    lead = "1, " if batch else ""
    loops = 4 if batch else 3
    handles = ", ".join([T] * (loops + 1))
    return script(f"""
    %op = transform.structured.match attributes{{"{tag}"}} in %root : ({T}) -> {T}
    %t1, %l1:{loops} = transform.structured.tile_using_for %op
        tile_sizes [{lead}{cache[0]}, {cache[1]}, {cache[2]}] : ({T}) -> ({handles})
    %t2, %l2:{loops} = transform.structured.tile_using_for %t1
        tile_sizes [{lead}{reg[0]}, {reg[1]}, 1] : ({T}) -> ({handles})
    transform.structured.vectorize %t2 vector_sizes [{lead}{reg[0]}, {reg[1]}, 1] : {T}
    %f = transform.structured.match ops{{["func.func"]}} in %root : ({T}) -> {T}
    transform.apply_patterns to %f {{
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_masked_transfers
      transform.apply_patterns.vector.lower_masks
      transform.apply_patterns.canonicalization
    }} : {T}
    transform.apply_cse to %f : {T}""")


def _mnk(op, batch):
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
    cache_m: int = 64
    cache_n: int = 128
    cache_k: int = 128
    register_m: int = 8
    register_n: int = 16
    reductions: bool = True

    def run(self, module: ir.Operation) -> None:
        if self.reductions:
            mark_reassociable_reductions(module)
        cache = (self.cache_m, self.cache_n, self.cache_k)
        reg = (self.register_m, self.register_n)
        tags = []
        for op_name, batch in (("linalg.matmul", False), ("linalg.batch_matmul", True)):
            for op in _static_ops(module, op_name):
                # Tiles no larger than the op, so small matmuls need no remainder masks.
                m, n, k = _mnk(op, batch)
                op_cache = tuple(max(1, min(c, dim)) for c, dim in zip(cache, (m, n, k),
                                                                      strict=True))
                op_reg = tuple(max(1, min(r, c)) for r, c in zip(reg, op_cache[:2], strict=True))
                tag = f"strata.vectorize_{len(tags)}"
                tags.append(tag)
                op.attributes[tag] = ir.UnitAttr.get(module.context)
                location = op.location
                try:
                    apply_script(module, _strategy(tag, op_cache, op_reg, batch))
                except ir.MLIRError as e:
                    self.fail_at(location, f"strata-vectorize: {e}")
        for op in collect_ops(module, lambda o: any(t in o.attributes for t in tags)):
            for tag in tags:
                if tag in op.attributes:
                    del op.attributes[tag]


@dataclass(frozen=True)
class LowerVectorsPass(Pass):
    """Lower vector contractions, masks and transfers to FMAs and 1-D vector ops."""

    name = "strata-lower-vectors"

    def run(self, module: ir.Operation) -> None:
        try:
            apply_script(module, _LOWER)
        except ir.MLIRError as e:
            self.fail(module, f"strata-lower-vectors: {e}")
