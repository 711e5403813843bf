"""strata-workspace: a function's intermediate buffers become views of one caller-given workspace.

After bufferization a function mallocs its intermediates on every call (and frees
them), so every call of a warm function page-faults through fresh memory. Every
top-level buffer has a static size, so this pass packs them into one byte buffer
the caller passes as a new last argument, reusing bytes between buffers whose
lifetimes do not overlap (first use to last use, through the views taken of them):

    func.func @f(%x: memref<64x64xf32>, %out: memref<64x64xf32>) {
      %a = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
      ...
      memref.dealloc %a : memref<64x64xf32>
  =>
    func.func @f(%x: memref<64x64xf32>, %out: memref<64x64xf32>, %ws: memref<16384xi8>)
        attributes {strata.workspace = 16384 : i64} {
      %c0 = arith.constant 0 : index
      %a = memref.view %ws[%c0][] : memref<16384xi8> to memref<64x64xf32>
      ...                                                   (no dealloc)

Offsets are multiples of 64 bytes; the caller must pass a 64-byte aligned buffer of
``strata.workspace`` bytes, one per concurrent call (the runtime keeps one per
thread, allocated once). Buffers allocated inside loops, of dynamic size, or that
escape (returned, stored, realloc'ed) are left as they are.

A buffer whose last use is a copy of a reshaped view of it into an argument that
nothing else uses (a result bufferization could not hoist into its out-param
because the function returned a reshape of it: conv-to-matmul's 2-D epilogue
expanded back to NCHW) becomes that argument itself, reshaped, and the copy goes:
the result is written in place, not copied at the end (1 MiB per call for a ResNet
block's 4x64x32x32 output)::

      %a = memref.alloc() : memref<4x64x1024xf32>
      ... writes %a ...
      %e = memref.expand_shape %a [[0], [1], [2, 3]] : ... into memref<4x64x32x32xf32>
      memref.copy %e, %out : memref<4x64x32x32xf32> to memref<4x64x32x32xf32>
  =>
      %flat = memref.collapse_shape %out [[0, 1, 2, 3]] : ... into memref<262144xf32>
      %a = memref.expand_shape %flat [[0, 1, 2]] : ... into memref<4x64x1024xf32>
      ... writes %a ...                                          (no copy)
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, func, memref

from .base import Pass, collect_ops

__all__ = ["WorkspacePass", "ALIGNMENT"]

ALIGNMENT = 64
_VIEWS = {"memref.subview", "memref.cast", "memref.collapse_shape", "memref.expand_shape",
          "memref.reinterpret_cast", "memref.view", "memref.transpose"}
_BITS = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16, "i64": 64, "i32": 32, "i8": 8,
         "index": 64}


def _top_level(op: ir.Operation, block_ops: dict) -> int | None:
    """The index in the function body of the top-level op holding ``op``."""
    while op is not None:
        index = block_ops.get(op)
        if index is not None:
            return index
        parent = op.parent
        op = parent.operation if parent is not None and hasattr(parent, "operation") else parent
    return None


def _owner(use) -> ir.Operation:
    owner = use.owner
    return owner.operation if hasattr(owner, "operation") else owner


def _live_range(alloc: ir.Operation, block_ops: dict, end: int):
    """``(first, last)`` top-level indices where the buffer is used, or None if it escapes."""
    first = last = block_ops[alloc]
    deallocs = []
    pending = [alloc.results[0]]
    while pending:
        value = pending.pop()
        for use in value.uses:
            user = _owner(use)
            if user.name == "memref.dealloc":
                deallocs.append(user)
                continue
            if user.name == "func.call" and _CALLEE_WS in alloc.attributes:
                pass  # a callee's workspace (strata-row-blocks' block functions)
            elif user.name in ("func.return", "func.call", "memref.realloc", "memref.store",
                               "llvm.store"):
                return None  # escapes, or is stored as a value
            index = _top_level(user, block_ops)
            if index is None:
                return None
            last = max(last, index)
            if user.name in _VIEWS:
                pending += list(user.results)
            elif any(isinstance(r.type, ir.MemRefType) for r in user.results):
                last = end  # an alias we do not follow: keep it to the end
    return first, last, deallocs


def _size(t: ir.MemRefType) -> int | None:
    bits = _BITS.get(str(t.element_type))
    identity = isinstance(t.layout, ir.AffineMapAttr) and \
        t.layout.value == ir.AffineMap.get_identity(t.rank)
    if bits is None or not t.has_static_shape or not identity:
        return None
    return max(ALIGNMENT, -(-_count(t) * bits // 8 // ALIGNMENT) * ALIGNMENT)


def pack(ranges: list[tuple[int, int, int]]) -> tuple[list[int], int]:
    """Offsets for buffers ``(first, last, size)`` so overlapping lifetimes never share
    bytes (first fit in order of first use); returns ``(offsets, total size)``."""
    placed = []  # (offset, size, last)
    offsets = [0] * len(ranges)
    for i in sorted(range(len(ranges)), key=lambda i: (ranges[i][0], -ranges[i][2])):
        first, last, size = ranges[i]
        busy = sorted((o, s) for o, s, end, start in placed if end >= first and start <= last)
        offset = 0
        for o, s in busy:
            if offset + size <= o:
                break
            offset = max(offset, o + s)
        offsets[i] = offset
        placed.append((offset, size, last, first))
    total = max((o + s for o, s, _, _ in placed), default=0)
    return offsets, total


@dataclass(frozen=True, eq=False, repr=False)
class WorkspacePass(Pass):
    """Turn a function's top-level static buffers into views of one caller-given workspace."""

    name = "strata-workspace"

    def run(self, module: ir.Operation) -> None:
        functions = collect_ops(module, lambda op: op.name == "func.func")
        # private functions (callees) first: their callers pass them a workspace
        functions.sort(key=lambda fn: "sym_visibility" not in fn.attributes)
        for fn in functions:
            if fn.regions and fn.regions[0].blocks and "strata.workspace" not in fn.attributes:
                with fn.location:
                    size = self._function(fn)
                if size and "sym_visibility" in fn.attributes:
                    _pass_workspace(module, fn, size)

    def _function(self, fn: ir.Operation) -> int:
        block = fn.regions[0].blocks[0]
        if "sym_visibility" not in fn.attributes:  # its arguments are the caller's arrays
            _write_results_in_place(block)
        ops = [op.operation for op in block.operations]
        block_ops = {op: i for i, op in enumerate(ops)}
        chosen = []
        for op in ops:
            if op.name != "memref.alloc" or len(op.operands):
                continue
            size = _size(ir.MemRefType(op.results[0].type))
            live = _live_range(op, block_ops, len(ops)) if size else None
            if live is not None:
                chosen.append((op, size, live))
        if not chosen:
            return 0
        offsets, total = pack([(first, last, size) for _, size, (first, last, _) in chosen])
        i8 = ir.IntegerType.get_signless(8)
        ws_type = ir.MemRefType.get([total], i8)
        ws = block.add_argument(ws_type, fn.location)
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            list(ftype.inputs) + [ws_type], list(ftype.results)))
        if "arg_attrs" in fn.attributes:
            attrs = list(ir.ArrayAttr(fn.attributes["arg_attrs"]))
            fn.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs + [ir.DictAttr.get({})])
        fn.attributes["strata.workspace"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                                              total)
        for (alloc, _, (_, _, deallocs)), offset in zip(chosen, offsets, strict=True):
            with ir.InsertionPoint(alloc), alloc.location:
                at = arith.constant(ir.IndexType.get(), offset)
                view = memref.view(alloc.results[0].type, ws, at, [])
            alloc.results[0].replace_all_uses_with(view)
            for dealloc in deallocs:
                dealloc.erase()
            alloc.erase()
        return total


_CALLEE_WS = "strata.callee_workspace"
_RESHAPES = ("memref.expand_shape", "memref.collapse_shape")


def _write_results_in_place(block) -> None:
    """Top-level ``memref.copy (reshape of %a) -> %arg`` where ``%a`` is a static alloc whose
    last use that is, and ``%arg`` an argument used by nothing else: ``%a`` becomes
    ``%arg`` reshaped to its type, the copy goes (see the module docstring)."""
    ops = [op.operation for op in block.operations]
    block_ops = {op: i for i, op in enumerate(ops)}
    for index, copy in enumerate(ops):
        if copy.name != "memref.copy":
            continue
        src, dst = copy.operands[0], copy.operands[1]
        if not isinstance(dst, ir.BlockArgument) or dst.owner != block or \
                len(list(dst.uses)) != 1:
            continue
        reshape = src.owner
        if getattr(reshape, "name", None) not in _RESHAPES:
            continue
        alloc = reshape.operands[0].owner
        if getattr(alloc, "name", None) != "memref.alloc" or len(alloc.operands) or \
                alloc not in block_ops:
            continue
        a_type, d_type = ir.MemRefType(alloc.results[0].type), ir.MemRefType(dst.type)
        if _size(a_type) is None or _size(d_type) is None or \
                a_type.element_type != d_type.element_type or \
                _count(a_type) != _count(d_type) or 0 in (a_type.rank, d_type.rank):
            continue
        live = _live_range(alloc, block_ops, len(ops))
        if live is None or live[1] != index:
            continue  # escapes, or is used after the copy
        with ir.InsertionPoint(alloc), alloc.location:
            value = _reshaped(dst, a_type)
        alloc.results[0].replace_all_uses_with(value)
        for dealloc in live[2]:
            dealloc.erase()
        copy.erase()
        alloc.erase()
        return _write_results_in_place(block)  # the op list changed


def _count(t: ir.MemRefType) -> int:
    count = 1
    for d in t.shape:
        count *= d
    return count


def _reshaped(value, to: ir.MemRefType):
    """``value`` (a static identity-layout memref) as a memref of type ``to`` (the same
    element count): a collapse to one dim, then an expand, each left out where not needed."""
    t = ir.MemRefType(value.type)
    if list(t.shape) == list(to.shape):
        return value
    flat = value
    if t.rank != 1:
        flat = memref.collapse_shape(ir.MemRefType.get([_count(t)], t.element_type), value,
                                     [list(range(t.rank))])
    if to.rank == 1:
        return flat
    return memref.expand_shape(to, flat, [list(range(to.rank))], [], list(to.shape))


def _pass_workspace(module: ir.Operation, callee: ir.Operation, size: int) -> None:
    """Each caller of private function ``callee`` allocates its workspace once (at its
    entry, freed before it returns: packed into the caller's own workspace when the
    caller is processed) and passes it as the new last operand of every call."""
    name = ir.StringAttr(callee.attributes["sym_name"]).value
    calls = collect_ops(module, lambda op: op.name == "func.call" and
                        ir.FlatSymbolRefAttr(op.attributes["callee"]).value == name)
    by_caller: dict = {}
    for call in calls:
        caller = call.parent
        while caller.name != "func.func":
            caller = caller.parent
        by_caller.setdefault(caller, []).append(call)
    with module.context, ir.Location.unknown():
        ws_type = ir.MemRefType.get([size], ir.IntegerType.get_signless(8))
    for caller, sites in by_caller.items():
        block = caller.regions[0].blocks[0]
        with ir.InsertionPoint.at_block_begin(block), caller.location:
            ws = memref.alloc(ws_type, [], [], alignment=ALIGNMENT)
        ws.owner.attributes[_CALLEE_WS] = ir.UnitAttr.get(module.context)
        for ret in [op.operation for op in block.operations if op.operation.name == "func.return"]:
            with ir.InsertionPoint(ret), caller.location:
                memref.dealloc(ws)
        for call in sites:
            with ir.InsertionPoint(call), call.location:
                func.CallOp([r.type for r in call.results], ir.FlatSymbolRefAttr.get(name),
                            list(call.operands) + [ws])
            call.erase()
