"""strata-prefetch-rows: prefetch the next row of a buffer that a row loop streams once.

A vectorized elementwise kernel over a large 2-D buffer (strata-parallelize's row
loops: ``tanh(relu(x*w+b)*.5+.1)*2`` on 4096 x 4096) reads each row once, one vector
at a time, across a 16 KiB row: four 4 KiB pages. The hardware's stream prefetchers
stop at page boundaries and take a few misses to pick up the next page, and a
kernel that spends ~25 vector ops per element leaves them no slack to catch up:
the chain ran 20% slower on one thread from memory than from cache. This pass has
each read of row ``r`` (columns ``c`` on) also prefetch row ``r + step`` at the same
columns into L1 (``memref.prefetch``, locality 3, one per 64-byte line the read
covers), so that row arrives while this one is computed: one more load-port op per
line. On the AVX-512 EPYC, 4096 x 4096, medians of 3-4 fresh processes each: one
thread 9.0 -> 6.4 ms, two 4.63 -> 3.3 ms (one prefetch per two-line read gave 8.15 and
4.19: the second line was left to the hardware); softmax, norms, the MLP and attention
unchanged (none has such a loop, or the prefetch changed nothing measurable). A
process now and then lands in a slow mode (~20% slower, with or without the
prefetches) that follows the process's environment size rather than the code.

A read qualifies when it is a ``vector.transfer_read`` of part of one row (a
``memref.subview`` with unit strides whose second-to-last size is 1, read at index
0) of a buffer of static shape at least ``min-bytes`` large (through any chain of
subviews: a thread's block of rows counts the whole buffer), whose row offset is
the induction variable of an enclosing ``scf.for``, and when no other read of the
same buffer sits in that loop (a row kernel's several sweeps over one row: the
later sweeps find the row in cache). A read that feeds a ``vector.contract`` or
``vector.outerproduct`` (through broadcasts and shape casts) is left alone: it is a
packed matmul micro-kernel's operand panel, packed to stay in cache and read one K
step (its "row") at a time, where three prefetches and their clamped indices per K
step were a quarter of the FMA loop's instructions (1024^3, one thread, AVX-512 Xeon:
138 -> 142 GFLOP/s). The prefetched row is clamped to the last row
of the view (no address past it is formed; ``memref.dim`` - 1 where a thread's block
of an uneven split has a dynamic row count):

    scf.for %r = %c0 to %c2048 step %c1 {
      scf.for %c = %c0 to %c4096 step %c32 {
        %row = memref.subview %x[%r, %c] [1, 32] [1, 1]
        %v = vector.transfer_read %row[%c0, %c0] ... : vector<1x32xf32>
  =>
        %row = memref.subview %x[%r, %c] [1, 32] [1, 1]
        %n = arith.minsi (arith.addi %r, %c1), %c2047
        memref.prefetch %x[%n, %c], read, locality<3>, data
        memref.prefetch %x[%n, %c + 16], read, locality<3>, data   // the second line
        %v = vector.transfer_read %row[%c0, %c0] ...

It runs at the bufferized level, first in strata-lower-to-llvm (before
strata-nontemporal-stores clones the loops it streams). ``min-bytes=0`` turns it off.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref

from .base import Pass, collect_ops, option

__all__ = ["PrefetchRowsPass"]

_DYNAMIC = ir.ShapedType.get_dynamic_stride_or_offset()
LINE_BYTES = 64


def _root(value: ir.Value) -> ir.Value:
    """The buffer a chain of ``memref.subview`` views starts from."""
    while not isinstance(value.owner, ir.Block) and value.owner.name == "memref.subview":
        value = value.owner.operands[0]
    return value


def _bits(element: ir.Type) -> int:
    return element.width if hasattr(element, "width") else 32


def _static_bytes(value: ir.Value) -> int:
    t = ir.MemRefType(value.type)
    if not t.has_static_shape:
        return 0
    n = _bits(t.element_type) // 8
    for d in t.shape:
        n *= d
    return n


def _loop_of(iv: ir.Value):
    """The ``scf.for`` whose induction variable ``iv`` is, else None."""
    if not isinstance(iv.owner, ir.Block):
        return None
    arg = ir.BlockArgument(iv)
    parent = arg.owner.owner
    if parent is None or parent.name != "scf.for" or arg.arg_number != 0:
        return None
    return parent


def _inside(op, loop) -> bool:
    parent = op.parent
    while parent is not None:
        if parent == loop:
            return True
        parent = parent.parent
    return False


def _zero_indices(read) -> bool:
    rank = ir.MemRefType(read.operands[0].type).rank
    for v in list(read.operands)[1:1 + rank]:
        owner = v.owner
        if isinstance(owner, ir.Block) or owner.name != "arith.constant" or \
                ir.IntegerAttr(owner.attributes["value"]).value != 0:
            return False
    return True


# a read feeding these (through vector casts) is a matmul micro-kernel's operand panel:
# packed to be cache-resident, read K step by K step (its "rows"); a prefetch per step
# only adds index arithmetic and load-port ops to the FMA loop
_PRODUCT_OPS = ("vector.contract", "vector.outerproduct")
_VIEW_OPS = ("vector.broadcast", "vector.shape_cast", "vector.extract", "vector.transpose")


def _feeds_product(value: ir.Value, depth: int = 4) -> bool:
    for use in value.uses:
        user = use.owner
        if user.name in _PRODUCT_OPS:
            return True
        if depth and user.name in _VIEW_OPS and _feeds_product(user.results[0], depth - 1):
            return True
    return False


def _row_read(read):
    """``(subview, offsets, row loop)`` when ``read`` reads part of one row of a view
    at a row offset that is an enclosing scf.for's induction variable, else None."""
    source = read.operands[0]
    if isinstance(source.owner, ir.Block) or source.owner.name != "memref.subview":
        return None
    view = source.owner.operation.opview
    base_type = ir.MemRefType(view.source.type)
    sizes = list(view.static_sizes)
    if base_type.rank < 2 or len(sizes) != base_type.rank or sizes[-2] != 1 or \
            any(s != 1 for s in view.static_strides) or not _zero_indices(read):
        return None
    dynamic = iter(view.offsets)
    offsets = [next(dynamic) if o == _DYNAMIC else o for o in view.static_offsets]
    row = offsets[-2]
    loop = _loop_of(row) if isinstance(row, ir.Value) else None
    if loop is None or not _inside(read, loop) or _feeds_product(read.results[0]):
        return None
    return view, offsets, loop


@dataclass(frozen=True, eq=False, repr=False)
class PrefetchRowsPass(Pass):
    """Prefetch the next row of large buffers that row loops read once."""

    name = "strata-prefetch-rows"
    min_bytes: int = option(4 << 20, min=0, help="Fewest bytes of a buffer whose rows are prefetched (0: never)")

    def run(self, module: ir.Operation) -> None:
        if self.min_bytes == 0:
            return
        reads = collect_ops(module, lambda o: o.name == "vector.transfer_read")
        by_root: dict = {}  # buffer -> the reads of it (through views)
        for read in reads:
            by_root.setdefault(_root(read.operands[0]), []).append(read)
        found = []
        for read in reads:
            row_read = _row_read(read)
            if row_read is None:
                continue
            view, offsets, loop = row_read
            root = _root(view.source)
            if _static_bytes(root) >= self.min_bytes:
                found.append((read, view, offsets, loop, by_root[root]))
        for read, view, offsets, loop, same_buffer in found:
            # one sweep over the row: no other read of the same buffer in the row loop
            if not any(o != read and _inside(o, loop) for o in same_buffer):
                self._prefetch(read, view, offsets, loop)

    @staticmethod
    def _prefetch(read, view, offsets, loop) -> None:
        index = ir.IndexType.get()
        source_type = ir.MemRefType(view.source.type)
        rows = source_type.shape[-2]
        with ir.InsertionPoint(read), read.location:
            if ir.ShapedType.is_dynamic_size(rows):  # a thread's block of an uneven split
                dim = memref.dim(view.source, arith.constant(index, source_type.rank - 2))
                last = arith.subi(dim, arith.constant(index, 1))
            else:
                last = arith.constant(index, rows - 1)
            values = [o if isinstance(o, ir.Value) else arith.constant(index, o)
                      for o in offsets]
            step = loop.operands[2]
            # the rows are indices (never negative): a signed min, as the loop bounds are
            values[-2] = arith.minsi(arith.addi(values[-2], step), last)
            # one prefetch per cache line the read covers (a line each was 21% faster than
            # one per read of two lines: the chain, 2 threads, 4.2 -> 3.3 ms)
            vector_type = ir.VectorType(read.results[0].type)
            per_line = max(1, LINE_BYTES * 8 // _bits(vector_type.element_type))
            for first in range(0, vector_type.shape[-1], per_line):
                column = values[-1] if first == 0 else \
                    arith.addi(values[-1], arith.constant(index, first))
                memref.prefetch(view.source, values[:-1] + [column], False, 3, True)
