"""Weight-stationary matmuls: ``A @ W^T`` of few rows as ``(W @ A^T)^T`` (strata-vectorize).

``x @ w.T`` (nn.Linear, a weight stored N x K) reaches strata-vectorize as a
``linalg.matmul`` reading B through a transposed map. The packed kernel copies that
B into K-major column panels on every call: for a batch of 64 rows against a 1024 x
512 weight the copy of the weight is a third of the time (perf, AVX-512, 2 threads),
and it grows as the rows shrink, since the weight is read once for M multiply-adds.
With the roles swapped the weight needs no copy: ``C^T = W @ A^T`` is a matmul in
standard order whose A operand, W, is read in place by the register tiles (each K
step broadcasts one element of mr consecutive rows of W), and only the small A and C
are transposed, as 16 x 16 vector tiles::

    %c = linalg.matmul indexing_maps = [(m, k), (n, k), (m, n)]
           ins(%a, %w : tensor<64x1024xf32>, tensor<512x1024xf32>) outs(%zero)
  =>
    %at = linalg.transpose ins(%a) outs(tensor<1024x64xf32>)        // vector tiles
    %ct = linalg.matmul {strata.in_place} ins(%w, %at) outs(%zero2 : tensor<512x64xf32>)
    %c  = linalg.transpose ins(%ct) outs(tensor<64x512xf32>)         // vector tiles

The ``strata.in_place`` matmul takes strata-vectorize's unpacked register tiles (no
panels). Measured (2-core AVX-512 EPYC, 2 threads, with a bias + relu epilogue):
64 x 512 x 1024 0.47 -> 0.37 ms, 64 x 1024 x 512 0.54 -> 0.39 ms, 96 x 1024 x 1024
1.39 -> 1.13 ms, 128 x 1024 x 4096 7.6 -> 6.0 ms, 256 x 1024 x 1024 4.0 -> 3.6 ms;
the torch MLP of bench/torch_bench.py 1.5-1.6 -> 0.9-1.2 ms. Where the activations'
traffic is not small beside the weight's (``N*K < 2*M*(N+K)``: 256 x 256 x 768, an
encoder layer's projections) the transposes cost what the copy saved, and with AVX2
(8 accumulators of 8 lanes) the unpacked tiles are no faster than the panels (64 x
512 x 1024: 0.56 vs 0.55 ms): those keep the packed kernel.

Limits: f32, static shapes, M N K multiples of the vector width (whole transpose
tiles), a zero-filled result (not an accumulation), not inside strata-fuse's
epilogue tiles, at most ``max_rows`` rows.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor, transform
from mlir.dialects.transform import structured

from ..codegen.transform import apply_patterns, match_ops, match_tagged
from .base import zero_filled
from .linalg_ops import linalg

__all__ = ["IN_PLACE", "swap_transposed_weights", "transpose_strategy"]

IN_PLACE = "strata.in_place"  # a matmul whose A is read in place: no packed panels


def _value(v):
    return v if isinstance(v, ir.Value) else v.results[0]


def worth_swapping(m: int, n: int, k: int, lanes: int, max_rows: int) -> bool:
    """Whether ``[m, k] @ W^T[k, n]`` runs weight-stationary (see the module docstring)."""
    return (lanes >= 16 and 0 < m <= max_rows and not (m % lanes or n % lanes or k % lanes)
            and n * k >= 2 * m * (n + k))


def swap_transposed_weights(matmuls, lanes: int, max_rows: int) -> list:
    """Rewrites each ``(op, (m, n, k))`` of ``matmuls`` (static f32 ``linalg.matmul`` ops
    reading B transposed, outside loops: the caller's choice) that is worth swapping and
    whose output is a ``linalg.fill`` of zero; returns the new ``linalg.transpose`` ops."""
    transposes = []
    f32 = ir.F32Type.get()
    for op, (m, n, k) in matmuls:
        if not worth_swapping(m, n, k, lanes, max_rows) or not zero_filled(op.operands[2]):
            continue
        a, w = op.operands[0], op.operands[1]
        with ir.InsertionPoint(op), op.location:
            at = _value(linalg.transpose(a, outs=[tensor.empty([k, m], f32)],
                                         permutation=[1, 0]))
            zero = arith.constant(f32, 0.0)
            ct = _value(linalg.matmul(w, at, outs=[_value(linalg.fill(
                zero, outs=[tensor.empty([n, m], f32)]))]))
            ct.owner.attributes[IN_PLACE] = ir.UnitAttr.get()
            c = _value(linalg.transpose(ct, outs=[tensor.empty([m, n], f32)],
                                        permutation=[1, 0]))
        op.results[0].replace_all_uses_with(c)
        op.erase()
        transposes += [at.owner, c.owner]
    return transposes


def transpose_strategy(tag, lanes: int):
    """A 2-D ``linalg.transpose`` as ``lanes x lanes`` vector tiles (a transfer_read, a
    vector.transpose, a transfer_write each)."""
    def body(root):
        op = match_tagged(root, tag)
        tiled = structured.TileUsingForOp(op, sizes=[lanes, lanes])
        structured.VectorizeOp(tiled.tiled_linalg_op, [lanes, lanes])
        apply_patterns(match_ops(root, ["func.func"]), transform.ApplyCanonicalizationPatternsOp)

    return body
