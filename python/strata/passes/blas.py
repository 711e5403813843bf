"""strata-blas: run the matmuls marked ``strata.blas`` as calls of OpenBLAS's CBLAS sgemm.

strata-fuse (``blas=auto|always``) marks each ``linalg.matmul`` /
``linalg.batch_matmul`` that its cost model gives to the tuned library; after
bufferization, where every operand is a buffer with a pointer and strides, this
pass replaces each marked op with a call of ``scipy_cblas_sgemm64_`` (CBLAS with
64-bit integers, from the OpenBLAS that numpy ships), declared as a private
external function. The runtime links it (runtime/blas.py):

    linalg.fill ins(%zero : f32) outs(%c : memref<256x512xf32>)
    linalg.matmul {strata.blas} ins(%a, %b : memref<256x1024xf32>, memref<512x1024xf32>)
        outs(%c : memref<256x512xf32>)      // %b read through (k, n) -> (n, k): a folded transpose
  =>
    %pa = memref.extract_aligned_pointer_as_index %a ... arith.index_cast to i64 (+ 4 x offset)
    %old = func.call @scipy_openblas_get_num_threads64_() : () -> i32
    func.call @scipy_openblas_set_num_threads64_(%threads) : (i32) -> ()
    func.call @scipy_cblas_sgemm64_(%c101, %c111, %c112, %c256, %c512, %c1024, %one,
        %pa, %c1024, %pb, %c1024, %zero, %pc, %c512) : (i32, i32, i32, i64, ...) -> ()
    func.call @scipy_openblas_set_num_threads64_(%old) : (i32) -> ()
  func.func private @scipy_cblas_sgemm64_(i32, i32, i32, i64, i64, i64, f32, i64, i64, i64,
      i64, f32, i64, i64)

* Row-major (101); an operand read transposed (a transpose strata-layout folded
  into the op's indexing maps, or a column-major view) is passed as ``Trans``
  (112) with its leading dimension; an output that is column-major computes
  ``C^T = B^T A^T`` instead. A view that is neither (two non-unit strides, or
  dynamic ones) is copied into a fresh buffer first (and back, for the output).
* ``beta`` is 0 when the op's output was zero-filled just before it (the fill
  is dropped), else 1 (linalg's ``C += A B``).
* ``linalg.batch_matmul`` becomes an ``scf.for`` over the batch with one call
  per matrix.
* Pointers are passed as ``i64`` (``memref.extract_aligned_pointer_as_index``):
  the bufferized level has no pointer type, and an integer and a pointer
  argument travel in the same registers under the x86-64 and AArch64 C calling
  conventions.
* Threads: OpenBLAS's thread count is process-global. Each call sets it to
  ``threads`` (this pipeline's count) and restores the previous one after, so
  numpy's own calls keep theirs. Concurrent calls from several Python threads
  may see each other's count. Unlike strata's generated code (bit-identical for
  any thread count), OpenBLAS's threaded and sequential drivers block K
  differently: results for different counts agree to rounding, not bit for bit.

Errors: a marked op with tensor operands (run this pass after bufferization),
dynamic shapes, or element types other than f32.

Limits: f32 only (no sgemm for f16/bf16; those matmuls stay generated code).
Convolutions reach this pass as the matmuls strata-conv-to-matmul makes of them
(im2col + ``linalg.matmul``; for NCHW with N > 1 a ``linalg.batch_matmul`` whose
filter operand has no batch dim: its pointer advances by 0 bytes per call); a conv
kept direct stays generated code. A matmul that
``strata-layout{pack-matmul=true}`` packs becomes a ``linalg.generic`` and stays
generated code too.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, func, memref, scf

from .base import Pass, collect_ops, threads_option

__all__ = ["BlasPass", "SGEMM", "GET_THREADS", "SET_THREADS", "SYMBOLS", "MARK"]

MARK = "strata.blas"
SGEMM = "scipy_cblas_sgemm64_"
GET_THREADS = "scipy_openblas_get_num_threads64_"
SET_THREADS = "scipy_openblas_set_num_threads64_"
SYMBOLS = (SGEMM, GET_THREADS, SET_THREADS)
ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112


@dataclass
class _Matrix:
    """One operand as a matrix: its buffer, and which of the buffer's dims are the
    matrix's rows, its columns and (batch_matmul) its batch."""

    buffer: ir.Value
    row_dim: int
    col_dim: int
    batch_dim: int | None = None

    def _stride(self, dim):
        t = ir.MemRefType(self.buffer.type)
        strides, _ = t.get_strides_and_offset()
        return None if t.is_dynamic_stride_or_offset(strides[dim]) else strides[dim]

    @property
    def rows(self) -> int:
        return ir.MemRefType(self.buffer.type).shape[self.row_dim]

    @property
    def cols(self) -> int:
        return ir.MemRefType(self.buffer.type).shape[self.col_dim]

    @property
    def batch_stride(self) -> int | None:
        return 0 if self.batch_dim is None else self._stride(self.batch_dim)

    def transposed(self) -> _Matrix:
        return _Matrix(self.buffer, self.col_dim, self.row_dim, self.batch_dim)

    def on(self, buffer) -> _Matrix:
        """The same matrix of another buffer of the same shape."""
        return _Matrix(buffer, self.row_dim, self.col_dim, self.batch_dim)

    def form(self):
        """``(transposed, leading dimension)`` for CBLAS row-major, or None if neither fits."""
        rows, cols = self.rows, self.cols
        rs, cs = self._stride(self.row_dim), self._stride(self.col_dim)
        if cols == 1 or cs == 1:
            ld = max(1, cols) if rows == 1 else rs
            if ld is not None and ld >= max(1, cols):
                return False, ld
        if rows == 1 or rs == 1:
            ld = max(1, rows) if cols == 1 else cs
            if ld is not None and ld >= max(1, rows):
                return True, ld
        return None

    def fits(self) -> bool:
        """Whether CBLAS can read the matrix where it is (a row- or column-major view)."""
        return self.form() is not None and self.batch_stride is not None


def _operands(op):
    n_in = len(op.operands) - 1
    return list(op.operands)[:n_in], op.operands[n_in]


def _maps(op):
    from .fuse import contraction_maps

    return contraction_maps(op)


def _i32(v):
    return arith.constant(ir.IntegerType.get_signless(32), v)


def _i64(v):
    return arith.constant(ir.IntegerType.get_signless(64), v)


def _declare(module: ir.Operation, name: str, inputs, results) -> None:
    """Declares ``func.func private @name`` at the top of ``module`` (once)."""
    ftype = ir.FunctionType.get(inputs, results)
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and \
                ir.StringAttr(op.attributes["sym_name"]).value == name:
            return
    body = module.regions[0].blocks[0]
    ip = ir.InsertionPoint.at_block_begin(body)
    with ir.Location.unknown():
        f = func.FuncOp(name, ftype, visibility="private", ip=ip)
    del f


@dataclass(frozen=True, eq=False, repr=False)
class BlasPass(Pass):
    """Replace the matmuls marked strata.blas with calls of OpenBLAS's CBLAS sgemm (memrefs)."""

    name = "strata-blas"
    threads: int = threads_option()

    def run(self, module: ir.Operation) -> None:
        marked = collect_ops(module, lambda op: MARK in op.attributes and
                             op.name in ("linalg.matmul", "linalg.batch_matmul"))
        for op in marked:
            self._check(op)
        if not marked:
            return
        with module.context:
            i32, i64, f32 = (ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64),
                             ir.F32Type.get())
            # (each goes first: declared in reverse order of appearance)
            _declare(module, SET_THREADS, [i32], [])
            _declare(module, GET_THREADS, [], [i32])
            _declare(module, SGEMM, [i32, i32, i32, i64, i64, i64, f32, i64, i64, i64, i64, f32,
                                     i64, i64], [])
            for op in marked:
                with op.location, ir.InsertionPoint(op):
                    self._rewrite(op)
                op.erase()

    def _check(self, op) -> None:
        what = f"{op.name} marked {MARK}"
        for v in op.operands:
            if not isinstance(v.type, ir.MemRefType):
                self.fail(op, f"strata-blas: {what} has tensor operands: run strata-blas "
                              "after bufferization")
            t = ir.MemRefType(v.type)
            if not t.has_static_shape:
                self.fail(op, f"strata-blas: {what} has dynamic shapes ({t}); the BLAS path "
                              "needs static shapes")
            if not isinstance(t.element_type, ir.F32Type):
                self.fail(op, f"strata-blas: {what} has {t.element_type} operands; the BLAS "
                              "path is f32 only")
        if self._dims(op) is None:
            self.fail(op, f"strata-blas: {what} has indexing maps that are not a permutation "
                          "of its matrix dims")

    def _dims(self, op):
        """Per operand, the dim name of each of its memref dims (``b``, ``m``, ``n``, ``k``)."""
        batched = op.name == "linalg.batch_matmul"
        order = ("b", "m", "n", "k") if batched else ("m", "n", "k")
        expected = [{"m", "k"}, {"k", "n"}, {"m", "n"}]
        out = []
        for i, (names, amap) in enumerate(zip(expected, _maps(op), strict=True)):
            dims = [order[e.position] if isinstance(e, ir.AffineDimExpr) else None
                    for e in amap.results]
            if batched and (i == 2 or "b" in dims):  # an input without b: shared by all
                names = names | {"b"}
            if None in dims or set(dims) != names or len(dims) != len(names):
                return None
            out.append(dims)
        return out

    def _rewrite(self, op) -> None:
        (a, b), c = _operands(op)
        dims = self._dims(op)
        ma = _matrix(a, dims[0], "m", "k")
        mb = _matrix(b, dims[1], "k", "n")
        mc = _matrix(c, dims[2], "m", "n")
        batch = ir.MemRefType(c.type).shape[dims[2].index("b")] if "b" in dims[2] else 1
        beta = 1.0
        fill = _zero_fill_before(op, c)
        if fill is not None:
            fill.erase()
            beta = 0.0
        copy_out = None
        if not mc.fits():  # compute into a row-major copy, then copy it back
            tmp = _fresh(c)
            if beta:
                memref.copy(c, tmp)
            copy_out = (tmp, c)
            mc = mc.on(tmp)
        if mc.form()[0]:  # a column-major output: compute C^T = B^T A^T
            ma, mb, mc = mb.transposed(), ma.transposed(), mc.transposed()
        copies = []
        for m in (ma, mb):
            if not m.fits():  # neither row- nor column-major: a row-major copy
                copies.append(_fresh(m.buffer))
                memref.copy(m.buffer, copies[-1])
        if copies:
            ma, mb = (m if m.fits() else m.on(copies.pop(0)) for m in (ma, mb))
            copies = [m.buffer for m in (ma, mb) if m.buffer not in (a, b)]
        old = func.CallOp([ir.IntegerType.get_signless(32)],
                          ir.FlatSymbolRefAttr.get(GET_THREADS), []).result
        func.CallOp([], ir.FlatSymbolRefAttr.get(SET_THREADS), [_i32(self.threads)])
        bases = [_address(m.buffer) for m in (ma, mb, mc)]
        if batch == 1:
            _sgemm(ma, mb, mc, bases, beta)
        else:
            index = ir.IndexType.get()
            loop = scf.ForOp(arith.constant(index, 0), arith.constant(index, batch),
                             arith.constant(index, 1))
            with ir.InsertionPoint(loop.body):
                i = arith.index_cast(ir.IntegerType.get_signless(64), loop.induction_variable)
                at = [arith.addi(base, arith.muli(i, _i64(4 * m.batch_stride)))
                      for base, m in zip(bases, (ma, mb, mc), strict=True)]
                _sgemm(ma, mb, mc, at, beta)
                scf.YieldOp([])
        func.CallOp([], ir.FlatSymbolRefAttr.get(SET_THREADS), [old])
        if copy_out is not None:
            memref.copy(*copy_out)
            memref.dealloc(copy_out[0])
        for tmp in copies:
            memref.dealloc(tmp)


def _matrix(value, dims, rows, cols) -> _Matrix:
    """``value`` (a memref whose dims are named by ``dims``) as a ``rows`` x ``cols`` matrix."""
    return _Matrix(value, dims.index(rows), dims.index(cols),
                   dims.index("b") if "b" in dims else None)


def _fresh(value: ir.Value) -> ir.Value:
    """A new buffer of ``value``'s shape and element type, row-major."""
    t = ir.MemRefType(value.type)
    return memref.alloc(ir.MemRefType.get(t.shape, t.element_type), [], [])


def _sgemm(ma: _Matrix, mb: _Matrix, mc: _Matrix, pointers, beta: float) -> None:
    f32 = ir.F32Type.get()
    ta, lda = ma.form()
    tb, ldb = mb.form()
    _, ldc = mc.form()
    args = [_i32(ROW_MAJOR), _i32(TRANS if ta else NO_TRANS), _i32(TRANS if tb else NO_TRANS),
            _i64(mc.rows), _i64(mc.cols), _i64(ma.cols), arith.constant(f32, 1.0),
            pointers[0], _i64(lda), pointers[1], _i64(ldb), arith.constant(f32, beta),
            pointers[2], _i64(ldc)]
    func.CallOp([], ir.FlatSymbolRefAttr.get(SGEMM), args)


def _address(buffer: ir.Value) -> ir.Value:
    """The i64 address of ``buffer``'s first element (aligned pointer + offset)."""
    i64 = ir.IntegerType.get_signless(64)
    t = ir.MemRefType(buffer.type)
    base = arith.index_cast(i64, memref.extract_aligned_pointer_as_index(buffer))
    _, offset = t.get_strides_and_offset()
    if not t.is_dynamic_stride_or_offset(offset):
        return arith.addi(base, _i64(4 * offset)) if offset else base
    meta = memref.ExtractStridedMetadataOp(buffer)
    dynamic = arith.index_cast(i64, meta.offset)
    return arith.addi(base, arith.muli(dynamic, _i64(4)))


def _zero_fill_before(op, buffer):
    """The ``linalg.fill`` of 0.0 into ``buffer`` just before ``op``, if any (ops in
    between may only be ones that touch no buffer: constants, index arithmetic)."""
    prev = _previous(op.operation)
    while prev is not None and prev.name != "linalg.fill":
        if prev.regions or any(isinstance(v.type, ir.MemRefType) for v in
                               list(prev.operands) + list(prev.results)):
            return None
        prev = _previous(prev)
    if prev is None or prev.operands[1] != buffer:
        return None
    scalar = prev.operands[0].owner
    if isinstance(scalar, ir.Block):
        return None
    scalar = getattr(scalar, "operation", scalar)
    if scalar.name != "arith.constant":
        return None
    value = scalar.attributes["value"]
    if not isinstance(value, ir.FloatAttr) or value.value != 0.0:
        return None
    return prev


def _previous(op):
    """The op before ``op`` in its block (None at the start)."""
    prev = None
    for o in op.block.operations:
        o = o.operation
        if o == op:
            return prev
        prev = o
    return None
