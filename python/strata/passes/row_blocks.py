"""strata-row-blocks: a function with a dynamic batch dim runs as blocks of static rows.

Code with dynamic dims is not tiled, vectorized or packed (strata-vectorize and
strata-fuse work on static shapes). When a public function's only dynamic dims are
one batch dim and the function is row-independent along it (dialect/rows.py: rows
of elementwise ops, a matmul's M, reductions, softmax and norms over other axes),
this pass clones it as a private function of ``rows`` static rows, which the rest of
the pipeline compiles like any static function, and makes the public function a
loop that calls it on each block of ``rows`` rows. The last, partial block is
padded with zero rows (they cannot change a real row) and sliced back; with
``tail-rows`` set, the rows left after the full blocks first run in blocks of that
size (a second static clone), so at most ``tail-rows - 1`` padded rows are computed.

    func.func @f(%x: tensor<?x256xf32>, %w: tensor<256x10xf32>) -> tensor<?x10xf32> {
      %0 = "strata.matmul"(%x, %w) ...
  =>
    func.func private @f__rows64(%x: tensor<64x256xf32>, %w: tensor<256x10xf32>)
        -> tensor<64x10xf32> { ... static ... }
    func.func @f(%x: tensor<?x256xf32>, %w: tensor<256x10xf32>) -> tensor<?x10xf32> {
      %n = tensor.dim %x, %c0
      %r = scf.for %i = %c0 to %full step %c64 iter_args(%o = %empty) {
        %xs = tensor.extract_slice %x[%i, 0] [64, 256] [1, 1]
        %y = func.call @f__rows64(%xs, %w)
        %o2 = tensor.insert_slice %y into %o[%i, 0] [64, 10] [1, 1]
        scf.yield %o2
      }
      %out = scf.if %has_tail {        // n - full rows left: padded to 64, sliced back
        %p = tensor.pad %xs_tail low[0, 0] high[%pad, 0]
        ...

Functions that are not row-independent (a reduction over the batch dim, a matmul
with a dynamic K, two dynamic dims) are left as they are (``report=true`` says why).
Runs on strata IR, before strata-to-linalg. The CPU levels inline the block functions
into their loops just before bufferization, once every static decision is made
(pipelines/levels.py: ``inline``, ``eliminate-empty-tensors``): a block then reads
and writes views of the arguments and results, with no copies. (Where a block
function stays a call, strata-workspace passes it its workspace from the caller.)
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, func, scf, tensor

from ..dialect.rows import dynamic_arg_axes, row_plan
from ..dialect.specialize import specialize_function
from ..dialect.types import shape_of
from .base import Pass, collect_ops, option

__all__ = ["RowBlocksPass", "block_name"]

_DYN = ir.ShapedType.get_dynamic_size() if hasattr(ir.ShapedType, "get_dynamic_size") else None


def block_name(name: str, rows: int) -> str:
    """The name of the static block function of ``name`` with ``rows`` rows."""
    return f"{name}__rows{rows}"


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _zero(element: ir.Type) -> ir.Value:
    if isinstance(element, ir.IntegerType):
        return arith.constant(element, 0)
    return arith.constant(element, 0.0)


def _with_rows(t: ir.RankedTensorType, axis: int, rows) -> ir.RankedTensorType:
    shape = list(t.shape)
    shape[axis] = rows if isinstance(rows, int) else _DYN
    return ir.RankedTensorType.get(shape, t.element_type)


def _slice(source: ir.Value, axis: int, offset, size, rows=None) -> ir.Value:
    """``source[.., offset:offset+size, ..]`` along ``axis``; ``size`` an int or a Value."""
    t = ir.RankedTensorType(source.type)
    offsets = [0] * t.rank
    sizes = list(t.shape)
    dyn_offsets, dyn_sizes = [], []
    if isinstance(offset, int):
        offsets[axis] = offset
    else:
        offsets[axis] = _DYN
        dyn_offsets.append(offset)
    if isinstance(size, int):
        sizes[axis] = size
    else:
        sizes[axis] = _DYN
        dyn_sizes.append(size)
    result = _with_rows(t, axis, size)
    return tensor.extract_slice(result, source, dyn_offsets, dyn_sizes, [], offsets, sizes,
                                [1] * t.rank)


def _insert(source: ir.Value, dest: ir.Value, axis: int, offset, size) -> ir.Value:
    t = ir.RankedTensorType(dest.type)
    offsets = [0] * t.rank
    sizes = list(ir.RankedTensorType(source.type).shape)
    dyn_offsets, dyn_sizes = [], []
    if isinstance(offset, int):
        offsets[axis] = offset
    else:
        offsets[axis] = _DYN
        dyn_offsets.append(offset)
    if not isinstance(size, int):
        sizes[axis] = _DYN
        dyn_sizes.append(size)
    return tensor.insert_slice(source, dest, dyn_offsets, dyn_sizes, [], offsets, sizes,
                               [1] * t.rank)


def _pad(source: ir.Value, axis: int, high: ir.Value, rows: int) -> ir.Value:
    t = ir.RankedTensorType(source.type)
    result = _with_rows(t, axis, rows)
    static_high = [0] * t.rank
    static_high[axis] = _DYN
    zero = _zero(t.element_type)
    pad = tensor.PadOp(result, source, [], [high], [0] * t.rank, static_high)
    block = pad.regions[0].blocks.append(*[ir.IndexType.get()] * t.rank)
    with ir.InsertionPoint(block):
        tensor.YieldOp(zero)
    return pad.result


@dataclass(frozen=True, eq=False, repr=False)
class RowBlocksPass(Pass):
    """Run functions with a dynamic batch dim as a loop over static blocks of rows."""

    name = "strata-row-blocks"
    rows: int = option(64, min=1, help="Rows of a block (the static function's batch dim)")
    tail_rows: int = option(8, min=0, help="Rows of the blocks that run what the full "
                            "blocks leave (0: pad the rest to one block of rows)")
    report: bool = option(False, help="Remark on each function: blocked, or why not")

    def run(self, module: ir.Operation) -> None:
        for fn in collect_ops(module, lambda op: op.name == "func.func"):
            if "sym_visibility" in fn.attributes or not fn.regions[0].blocks:
                continue
            axes = dynamic_arg_axes(fn)
            if axes is None:
                self._skip(fn, "an argument has more than one dynamic dim")
                continue
            if all(a is None for a in axes):
                continue
            plan = row_plan(fn, axes)
            if not plan.ok:
                self._skip(fn, plan.reason)
                continue
            self._block(module, fn, plan)

    def _skip(self, fn, reason):
        if self.report:
            self.remark(fn, f"strata-row-blocks: @{_name(fn)} keeps its dynamic dims: {reason}")

    def _block(self, module, fn, plan) -> None:
        name = _name(fn)
        sizes = [self.rows] + ([self.tail_rows] if 0 < self.tail_rows < self.rows else [])
        callees = {rows: self._static_clone(module, fn, plan, rows) for rows in sizes}
        block = fn.regions[0].blocks[0]
        args = list(block.arguments)
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        with fn.context, fn.location:
            for op in list(block.operations)[::-1]:
                op.operation.erase()
            with ir.InsertionPoint(block):
                first = next(i for i, a in enumerate(plan.args) if a is not None)
                n = tensor.dim(args[first], _index(plan.args[first]))
                outs = []
                for t, axis in zip(ftype.results, plan.results, strict=True):
                    t = ir.RankedTensorType(t)
                    dims = [n if i == axis else d for i, d in enumerate(t.shape)]
                    outs.append(tensor.empty(dims, t.element_type))
                start = _index(0)
                for rows in sizes:
                    start, outs = self._loop(callees[rows], rows, args, plan, start, n, outs)
                outs = self._tail(callees[sizes[-1]], sizes[-1], args, plan, start, n, outs)
                func.ReturnOp(outs)
        if self.report:
            self.remark(fn, f"strata-row-blocks: @{name} runs in blocks of "
                        f"{' then '.join(map(str, sizes))} rows")

    def _static_clone(self, module, fn, plan, rows) -> str:
        name = block_name(_name(fn), rows)
        clone = fn.clone(ip=ir.InsertionPoint(fn))
        clone.attributes["sym_name"] = ir.StringAttr.get(name, fn.context)
        clone.attributes["sym_visibility"] = ir.StringAttr.get("private", fn.context)
        specs = []
        for arg, axis in zip(fn.regions[0].blocks[0].arguments, plan.args, strict=True):
            shape, dtype = shape_of(arg.type)
            if axis is not None:
                shape = tuple(rows if i == axis else d for i, d in enumerate(shape))
            specs.append((shape, dtype))
        specialize_function(module, name, specs)
        if "llvm.emit_c_interface" in clone.attributes:
            del clone.attributes["llvm.emit_c_interface"]
        return name

    def _call(self, callee, rows, args, plan, offset):
        """Calls the block function on rows ``offset .. offset + rows`` of the arguments."""
        operands = [a if axis is None else _slice(a, axis, offset, rows)
                    for a, axis in zip(args, plan.args, strict=True)]
        types = self._result_types(args, plan, rows)
        return func.CallOp(types, callee, operands).results

    def _result_types(self, args, plan, rows):
        fn = args[0].owner.owner
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        return [_with_rows(ir.RankedTensorType(t), axis, rows)
                for t, axis in zip(ftype.results, plan.results, strict=True)]

    def _loop(self, callee, rows, args, plan, start, n, outs):
        """Full blocks of ``rows`` from ``start``: returns (the first row left, outputs)."""
        step = _index(rows)
        left = arith.subi(n, start)
        end = arith.addi(start, arith.muli(arith.divui(left, step), step))
        loop = scf.ForOp(start, end, step, outs)
        with ir.InsertionPoint(loop.body):
            i = loop.induction_variable
            results = self._call(callee, rows, args, plan, i)
            new = [_insert(r, o, axis, i, rows) for r, o, axis in
                   zip(results, loop.inner_iter_args, plan.results, strict=True)]
            scf.YieldOp(new)
        return end, list(loop.results)

    def _tail(self, callee, rows, args, plan, start, n, outs):
        """The last ``n - start`` (< rows) rows, padded to ``rows`` with zeros."""
        left = arith.subi(n, start)
        has = arith.cmpi(arith.CmpIPredicate.ugt, left, _index(0))
        branch = scf.IfOp(has, [o.type for o in outs], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            high = arith.subi(_index(rows), left)
            operands = [a if axis is None else _pad(_slice(a, axis, start, left), axis,
                                                    high, rows)
                        for a, axis in zip(args, plan.args, strict=True)]
            results = func.CallOp(self._result_types(args, plan, rows), callee,
                                  operands).results
            new = [_insert(_slice(r, axis, 0, left), o, axis, start, left)
                   for r, o, axis in zip(results, outs, plan.results, strict=True)]
            scf.YieldOp(new)
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp(outs)
        return list(branch.results)


def _name(fn) -> str:
    return ir.StringAttr(fn.attributes["sym_name"]).value
