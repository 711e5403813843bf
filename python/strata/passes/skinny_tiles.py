"""Tiles for a matmul of few rows against a large B (strata-vectorize, unpacked).

A matmul of fewer rows than are worth packing (``M < pack-min``: a batch of 1-63
token rows against a weight matrix, ``7 x 4096 @ 4096 x 4096``) reads each element
of B once for M multiply-adds: it streams B from memory and is bound by how fast
it can do that, not by the FMA pipes. Two things decide that speed:

* **the register tile**: the accumulator is ``rows x width`` with ``width`` as wide
  as the register file allows (4 vectors with 32 registers, 2 with 16) and up to 7
  rows, so each K step loads ``width / lanes`` vectors of B and ``rows``
  broadcasts of A for ``rows x width / lanes`` FMAs. The default unpacked tile (8
  vector accumulators, one vector of B per K step with AVX-512) is load-bound.
* **the order B is read in**: a cache tile ``M x (N / threads) x 16`` walks 16 rows
  of B across every column before the next 16. The register tiles of one such
  block read 16 interleaved row streams, which the hardware prefetchers follow;
  a deeper K tile (the default 128) reads each column strip down K first, a new
  4 KiB page per row, and waits on memory for every cache line.

Measured on the 2-core AVX-512 EPYC, ``7 x 4096 x 4096`` f32 (numpy/OpenBLAS
11.2 ms on one thread): default tiles 12.9 ms, 7 x 64 register tile alone 8.7 ms,
with the 16-deep tile across N 5.1 ms (4.9 ms for 7 x 16 with AVX2); ``1 x 4096 x
4096``: 6.6 -> 3.1 ms; ``32 x 4096 x 4096``: 26.3 -> 14.9 ms (6-row tiles; 7 rows
of 4 vectors leave no register for B). K tiles of 8 or 32 were slower on one
thread.
"""

from __future__ import annotations

__all__ = ["skinny_tiles"]

DEPTH = 16          # rows of B per cache tile
MAX_ROWS = 7        # rows of one register tile when M is that small
SPLIT_ROWS = 6      # rows of each register tile when M is split into several
MIN_B_BYTES = 1 << 20  # a smaller B stays in L2 across the K loop: the default tiles do
                       # better there (7 x 512 x 512: 0.043 vs 0.05 ms)


def skinny_tiles(m: int, n: int, k: int, lanes: int, threads: int = 1, batches: int = 1
                 ) -> tuple[tuple[int, int, int], tuple[int, int]] | None:
    """The (cache tile, register tile) for an unpacked ``m x n x k`` matmul of few rows,
    or None where these tiles do not apply: B of at most ``MIN_B_BYTES``, K shorter than
    a cache tile, M no smaller than N, or N not a multiple of a register tile's width.
    ``threads`` > 1 splits N into equal cache tiles (one per thread) unless the batch
    already gives each thread work. The register tile is 4 vectors wide with 32
    registers (2 with 16), or half that where N is only a multiple of half: a
    partial register tile (``7 x 40`` for N = 1000) ran at half the speed of the
    rest (1000 x 4096 B: 1.5 ms, against 0.72 ms for 1024 columns)."""
    if 4 * n * k <= MIN_B_BYTES or k < DEPTH or m >= n:
        return None
    most = 4 if lanes >= 16 else 2   # vectors of B per K step: 32 zmm vs 16 ymm registers
    for vectors in (most, most // 2):
        width = vectors * lanes
        columns = n
        if threads > 1 and batches < threads:
            columns = _divisor(n, -(-n // threads), width) or n
        if columns % width == 0:
            break
    else:
        return None
    if m <= MAX_ROWS:
        rows = m
    else:
        tiles = -(-m // SPLIT_ROWS)
        rows = -(-m // tiles)
    return (m, columns, DEPTH), (rows, width)


def _divisor(n: int, most: int, step: int) -> int | None:
    """The largest divisor of ``n`` that is a multiple of ``step`` and at most ``most``."""
    for d in range(most - most % step, step - 1, -step):
        if n % d == 0:
            return d
    return None
