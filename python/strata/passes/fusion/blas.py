"""The cost model of "generated code or the tuned library" for matmul-like ops.

strata-fuse asks it, per ``linalg.matmul`` / ``linalg.batch_matmul``, whether
strata's own kernel (strata-vectorize's register-tiled loops, with an
elementwise epilogue tiled into it by strata-fuse) or a call of the CBLAS
``sgemm`` of the OpenBLAS that numpy ships (the epilogue then runs as its own
loop over the result) is predicted to be faster. Both predictions are in
microseconds and both are reported.

    generated = max(flops / (GEN_RATE x tile use x out-of-cache factor x threads),
                    bytes of the operands / GEN_BW)
      packed (f32, M and N >= 64, operands in standard order: strata-vectorize's panels):
              = flops / (GEN_PACKED_RATE x panel use x threads)
                + (8 (M K + K N) + 16 M N) bytes / PACKED_COPY_BW
                + (with an epilogue, which then runs as its own loop) 8 M N bytes / MEM_BW
      with an epilogue, the faster of the two (``unfuse``: packed wins), packed only where
      M and N are whole panels and at least UNFUSE_MIN (a 256x196x2304 conv as a matmul
      ran 1.4 ms tiled with its relu and 2.5 ms packed with N = 196 in partial panels,
      2 threads)
    BLAS      = calls x (BLAS_CALL + packing + flops / (BLAS_RATE x tile use x threads))
                + (an epilogue that would be fused) 2 x M x N x 4 bytes / MEM_BW
    an operand that is a transposed matrix (``linalg.transpose`` swapping its last two dims,
    e.g. ``x @ W.T`` of a torch nn.Linear): free for BLAS (strata-layout folds it into the
    call's transpose flag), a copy for generated code: + 8 bytes per element / TRANSPOSE_BW

What the rates say, measured on the project's 2-core AMD EPYC (AVX-512) machines
with strata's own and numpy's calls side by side (bench/blas_bench.py,
docs/benchmarks.md; single thread, best of 5):

* Large matmuls without a fused epilogue (M and N >= 64) run on packed panels
  (strata-vectorize: A and B copied into zero-padded panels, an 8x32 AVX-512 /
  6x16 AVX2 broadcast-FMA micro-kernel, C unpacked): about 0.9 of OpenBLAS from
  128^3 to 2048^3 (1024^3: 26.5 vs 25.5 ms; 2048^3: 212 vs 200 ms; 256 x 1024 x
  1024: 7.2 vs 6.4 ms; single thread, CPU time, bench/matmul_bench.py), the
  packing copies and the unpack a few percent of it. With ``MARGIN`` the
  generated kernel is kept for them. The lines below describe the unpacked
  register tiles, which still run matmuls with a fused epilogue (inside
  strata-fuse's output tiles) and few rows or columns.
* While the K x N operand fits in L2 (1 MiB here), strata's register tiles
  keep up with OpenBLAS (256^3: 0.37 ms generated vs 0.45 ms BLAS; 512^3: 3.2
  vs 3.5 ms; 1024 x 16 x 1024: 0.39 vs 0.55 ms). Beyond it generated code,
  which does not pack, re-reads B from L3 for every row of cache tiles and runs
  at about 55% of OpenBLAS's packed micro-kernel (1024^3: 48 vs 28 ms).
* OpenBLAS packs both operands into panels: ``4 (M K + K N)`` bytes read and
  written per call, which is what makes it lose on skinny matmuls (a few rows
  against a large weight: 4x1024x1024 runs 3x faster generated). Its M = 1 and
  N = 1 products are no faster than generated code either (0.48 vs 0.09 ms for
  1 x 1024 x 1024 with the weight in L3).
* Generated code wastes the part of its register tile (8 rows x 8 registers'
  worth of lanes) that a small M or N leaves empty, and a short K leaves the
  accumulator loads and stores unamortized.
* The unfused epilogue costs one more trip through memory for the matmul
  result (written by sgemm, read back by the epilogue loop).
* A transposed operand: on packed panels strata-layout folds the transpose into the
  op and the packs read it as it is (1024^3 ``x @ w.T``: 11 ms, as fast as ``x @ w``),
  so it costs nothing more. Tiled with its epilogue (unpacked register tiles, where
  strata-layout cannot fold it) the operand goes through a transpose copy that runs
  far below the copy bandwidth at power-of-two strides (512 x 1024 f32: 1.25 ms, 3.4 GB/s;
  256 x 256: 82 us, 6.4 GB/s, against 68 and 18 us for an elementwise op; numpy's
  ``ascontiguousarray(a.T)`` is no faster): the 512 x 1024 x 64 MLP layers of a torch
  nn.Linear (``x @ W.T``) ran 4.6 ms so against 2.0 ms as BLAS calls, and about 0.43 ms
  each packed with the epilogue as its own loop (2 threads, AVX-512). So a transposed
  operand makes the packed way worth pricing below UNFUSE_MIN rows too.
* Threads: generated code splits output tiles over threads from 2^25 flops
  (strata-vectorize's ``parallel-flops``), or from 2^23 when tiled with its epilogue
  (strata-fuse's; a 1x1 conv 64 -> 64 at 56x56, 26 MFLOP: 289 -> 175 us on 2
  threads), and scales about linearly (54 -> 120
  GFLOP/s at 1024^3); OpenBLAS uses its threads from about 2^18 M N K (its
  GEMM_MULTITHREAD_THRESHOLD) at about 90% (98 -> 174), after a wake-up.

Only the ratio of the two rates matters to the choice, and both codes run at
the host's FMA peak times an efficiency, so the same rates stand for AVX2 hosts;
the host's vector width enters through the register tile (``lanes``).

BLAS is chosen only when predicted ``MARGIN`` (15%) faster: the generated
kernel needs no external library, fuses its epilogue and keeps results
bit-identical across thread counts (OpenBLAS's threaded and sequential drivers
block K differently, so its results for 1 and 2 threads agree to rounding
only). The numbers are estimates for ranking, not promises:
``strata.compile(..., fusion="measure")`` times both and keeps the faster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["BlasEstimate", "estimate", "GEN_RATE", "GEN_PACKED_RATE", "BLAS_RATE", "MARGIN",
           "TRANSPOSE_BW"]

GEN_RATE = 85e3      # flop/us, one thread, generated register tiles, B panel in L2
GEN_PACKED_RATE = 85e3  # flop/us, one thread, the packed micro-kernel (any operand size)
PACKED_COPY_BW = 50e3  # bytes/us through the packing copies and the unpack (streaming)
PACKED_MIN = 64      # strata-vectorize's pack-min: fewest rows and columns packed
UNFUSE_MIN = 128     # fewest rows and columns to pack a matmul away from its epilogue
GEN_OUT_OF_CACHE = 0.55  # ... when the K x N operand is larger than L2 (and M > GEN_CACHE_M)
GEN_CACHE_M = 64     # rows of strata-vectorize's cache tile
GEN_BW = 25e3        # bytes/us: generated code reads each operand at least once
BLAS_RATE = 95e3     # flop/us, one thread, OpenBLAS sgemm (its SkylakeX/Haswell kernels)
BLAS_CALL = 0.6      # us per sgemm call (argument checks, kernel dispatch, thread count)
BLAS_WAKE = 15.0     # us to hand a call to OpenBLAS's worker threads
PACK_BW_CACHE = 25e3  # bytes/us through OpenBLAS's packing copies, operands in L2 (read + write)
PACK_BW_MEM = 10e3   # bytes/us reading operands larger than L2 into packed panels
L2_BYTES = 1 << 20
GEMV_BW = 10e3       # bytes/us of OpenBLAS's M = 1 / N = 1 products (measured, matrix in L3)
MEM_BW = 10e3        # bytes/us for the unfused epilogue's extra trip through memory
GEN_PARALLEL_FLOPS = 1 << 25
FUSED_PARALLEL_FLOPS = 1 << 23
GEN_PARALLEL_EFFICIENCY = 1.0
BLAS_PARALLEL_MNK = 1 << 18
BLAS_PARALLEL_EFFICIENCY = 0.9
TRANSPOSE_BW = 4e3   # bytes/us (read + write) of a transpose copy, 512 x 1024 f32 measured
MARGIN = 0.85        # BLAS must be predicted at most 85% of the generated time


@dataclass(frozen=True)
class BlasEstimate:
    """Predicted microseconds of both ways to run one matmul-like op."""

    generated_us: float
    blas_us: float
    epilogue: bool  # the op has an elementwise epilogue that generated code could fuse
    # generated code is predicted faster on packed panels with the epilogue as its own
    # loop than with the epilogue tiled into unpacked register tiles
    unfuse: bool = False

    @property
    def blas_wins(self) -> bool:
        return self.blas_us <= MARGIN * self.generated_us


def _use(size: int, tile: int) -> float:
    """The fraction of ``tile``-wide register tiles that ``size`` fills."""
    return size / (math.ceil(size / tile) * tile)


def estimate(batch: int, m: int, n: int, k: int, *, epilogue: bool, threads: int = 1,
             lanes: int = 16, transposed: int = 0, packable: bool = True,
             im2col: bool = False, dot_rows: bool = False) -> BlasEstimate:
    """The cost model's prediction for a ``batch`` x (M x K) @ (K x N) f32 matmul.

    ``epilogue``: an elementwise consumer would be tiled into the generated kernel
    (so the BLAS call pays for the matmul result's extra trip through memory).
    ``lanes``: f32 lanes per vector register of the host (16 with AVX-512).
    ``transposed``: elements of the operands that reach the op through a matrix transpose
    (BLAS reads them as they are; generated code pays for the transpose copy).
    ``packable``: strata-vectorize could run the op on packed panels (its operands in
    standard order); with an epilogue, generated code then has two ways: the epilogue
    tiled into unpacked register tiles, or packed panels and the epilogue as its own loop
    (one more trip through memory for the result, like a BLAS call's). ``unfuse`` says
    the second is predicted faster, and ``generated_us`` is the faster of the two.
    ``dot_rows``: few rows and B read transposed (strata-vectorize's ``dot_rows``): each
    output a dot product of two contiguous rows, so generated code streams both operands
    once (no transpose copy, no register tiles) at GEN_BW, on threads by rows.
    ``im2col``: B (or A) is a conv's im2col matrix that the epilogue's tiles copy for
    themselves (fusion/im2col.py): tiled with the epilogue, it is read from cache, never
    from beyond L2 (the ResNet 256-channel 14x14 conv as a 256x196x2304 matmul ran 1.19 ms
    so on 2 threads, against 1.41 ms as a BLAS call).
    """
    flops = 2.0 * batch * m * n * k
    operand_bytes = 4.0 * (m * k + k * n)
    packs = packable and min(m, n) >= PACKED_MIN and k >= 8 and lanes >= 8
    unfuse = False
    if dot_rows:
        rows_threads = threads if batch * m * n > 1 and flops >= FUSED_PARALLEL_FLOPS else 1
        generated = batch * (operand_bytes + 4.0 * m * n) / GEN_BW / rows_threads
    elif packs and not epilogue:
        # a transposed operand is folded into the op (strata-layout) and read by its pack
        generated = _packed(batch, m, n, k, threads, lanes)
    else:
        generated = _unpacked(batch, m, n, k, threads, lanes, flops, operand_bytes,
                              in_cache=im2col and epilogue,
                              least=FUSED_PARALLEL_FLOPS if epilogue else GEN_PARALLEL_FLOPS
                              ) + 8.0 * transposed / TRANSPOSE_BW
        mr, nr = _micro_tile(lanes)
        if packs and m % mr == 0 and n % nr == 0 and (min(m, n) >= UNFUSE_MIN or transposed):
            # (a partial panel makes strata-vectorize copy that operand, and C, with a
            # generic pad + transpose on one thread: slower than the tiled epilogue here;
            # with fewer rows or columns than a packed cache tile, packing copies a whole
            # operand for few uses of each element: a 1x1 conv as a 64x3136x256 matmul ran
            # 1.4 ms packed and 0.53 ms tiled with its relu, 2 threads; a transposed operand
            # costs the tiled epilogue a transpose copy, the packed op nothing more)
            unfused = _packed(batch, m, n, k, threads, lanes) + 8.0 * batch * m * n / MEM_BW
            unfuse = unfused < generated
            generated = min(generated, unfused)
    blas = _blas(batch, m, n, k, threads, operand_bytes)
    if epilogue:
        blas += 8.0 * batch * m * n / MEM_BW
    return BlasEstimate(generated, blas, epilogue, unfuse)


def _packed(batch, m, n, k, threads, lanes) -> float:
    """strata-vectorize's packed panels: (mr x nr) = 8 x 32 (AVX-512) or 6 x 16 (AVX2)
    micro-kernel tiles, plus the packing copies of A and B and the unpack of C."""
    mr, nr = _micro_tile(lanes)
    flops = 2.0 * batch * m * n * k
    rate = GEN_PACKED_RATE * _use(m, mr) * _use(n, nr) * k / (k + 16)
    copies = batch * (8.0 * (m * k + k * n) + 16.0 * m * n) / PACKED_COPY_BW
    gen_threads = 1
    if threads > 1 and flops >= GEN_PARALLEL_FLOPS:
        tiles = batch * math.ceil(m / 128) * math.ceil(n / 256)
        gen_threads = max(1.0, min(threads, tiles) * GEN_PARALLEL_EFFICIENCY)
    return flops / rate / gen_threads + copies


def _micro_tile(lanes) -> tuple[int, int]:
    return (8, 2 * lanes) if lanes >= 16 else (6, 2 * lanes)


def _unpacked(batch, m, n, k, threads, lanes, flops, operand_bytes, in_cache=False,
              least=GEN_PARALLEL_FLOPS) -> float:
    # strata-vectorize's register tile: up to 8 rows x (8 registers' worth of lanes)
    reg_m = max(1, min(8, m))
    reg_n = lanes * max(1, 8 // reg_m)
    gen_rate = GEN_RATE * _use(m, reg_m) * (reg_m / 8) ** 0.5 * _use(n, reg_n) * k / (k + 8)
    if 4.0 * k * n > L2_BYTES and m > GEN_CACHE_M and not in_cache:
        # B re-read from beyond L2 for every row of cache tiles; with one row (M no larger
        # than a cache tile) it streams through once, which GEN_BW covers (64 x 3136 x 576,
        # a ResNet conv as a matmul: 2.9 ms generated vs 3.6 ms BLAS, 1 thread)
        gen_rate *= GEN_OUT_OF_CACHE
    gen_threads = 1
    if threads > 1 and flops >= least:
        tiles = batch * math.ceil(m / 64) * math.ceil(n / 128)
        gen_threads = max(1.0, min(threads, tiles) * GEN_PARALLEL_EFFICIENCY)
    return max(flops / gen_rate, batch * (operand_bytes + 4.0 * m * n) / GEN_BW) / \
        gen_threads


def _blas(batch, m, n, k, threads, operand_bytes) -> float:
    if m == 1 or n == 1:  # OpenBLAS forwards these to gemv: the matrix is read once
        per_call = BLAS_CALL + 4.0 * k * max(m, n) / GEMV_BW
    else:
        pack = (2 * operand_bytes / PACK_BW_CACHE if operand_bytes <= L2_BYTES else
                operand_bytes / PACK_BW_MEM)
        rate = BLAS_RATE * _use(m, 4) ** 0.5 * _use(n, 16) ** 0.5 * k / (k + 4)
        work = pack + 2.0 * m * n * k / rate
        if threads > 1 and m * n * k > BLAS_PARALLEL_MNK:
            per_call = BLAS_CALL + BLAS_WAKE + work / (threads * BLAS_PARALLEL_EFFICIENCY)
        else:
            per_call = BLAS_CALL + work
    return batch * per_call
