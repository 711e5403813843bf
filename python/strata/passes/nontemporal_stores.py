"""strata-nontemporal-stores: write-only outputs larger than the cache with non-temporal stores.

A plain vector store to a line that is not in cache first reads the line (the
"read for ownership"), so a kernel that streams a large output moves three bytes
per byte written: read the input, read the output line, write it back. A
non-temporal store (``vmovntps``) writes whole lines through the write-combining
buffers and skips the read: bench/nt_store_bench.py measured 1.78x on a 64 MiB
``y = 2x + 1``. The line then is not in cache, so only buffers that nothing reads
back qualify, and only where the output is larger than the cache (a smaller one
is better left in cache for whoever reads it next).

This pass works on the bufferized level, before the threading passes. A
function argument qualifies (``min-bytes`` or larger, static shape, identity
layout) when every use of it, through ``memref.subview`` views (and one
``collapse_shape``/``expand_shape`` of the whole buffer), is the
destination of a full (in-bounds, unmasked) 1-D ``vector.transfer_write`` (a
``vector<1x..x1xN>`` counts as 1-D). ``vmovntps`` needs an address aligned to
the vector (64 bytes for a zmm store); each write's offset from the argument's
base is proved a multiple of that (induction variables of ``scf.for`` /
``scf.forall`` with aligned bounds and steps, constants, ``affine.apply``,
``arith.addi``/``muli``, static subview strides), and the base pointer is tested
at run time: the top-level loop that holds the writes is cloned, and the clone,
whose writes become ``vector.store {nontemporal = true, alignment = 64}``, runs
when every qualifying base is 64-byte aligned (the output pool's and the
workspace's are; a caller's ``out=`` array may not be), the original otherwise:

    scf.forall (%i) in (4096) {
      %row = memref.subview %out[%i, 0] [1, 4096] [1, 1]
      scf.for %j = %c0 to %c4096 step %c64 {
        vector.transfer_write %v, %row[%c0, %j] {in_bounds = [true]} : vector<64xf32>, ...
  =>
    %p = memref.extract_aligned_pointer_as_index %out
    %ok = arith.cmpi eq, (arith.andi %p, 63), 0
    scf.if %ok {
      scf.forall (%i) in (4096) { ...
        vector.store %v, %row[%c0, %j] {alignment = 64, nontemporal = true} : ..., vector<64xf32>
    } else {
      scf.forall (%i) in (4096) { ... (unchanged)

A write whose offset cannot be proved aligned keeps its plain store; a buffer
also read in the function (the softmax kernel scales the exponentials it wrote)
keeps every store plain. ``min-bytes=0`` turns the pass off.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from .base import Pass, collect_ops, option

__all__ = ["NontemporalStoresPass", "NT_ALIGNMENT"]

NT_ALIGNMENT = 64  # bytes: the widest vector store (zmm), and a cache line
_VIEWS = ("memref.subview", "memref.collapse_shape", "memref.expand_shape")
_RESHAPES = _VIEWS[1:]


def _owner(value):
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return getattr(owner, "operation", owner)


def _static(attr) -> list[int]:
    return [int(v) for v in ir.DenseI64ArrayAttr(attr)]


def _divisor(value) -> int:
    """A number that ``value`` (an index) is known to be a multiple of (0: it is 0)."""
    op = _owner(value)
    if op is None:
        block = value.owner
        parent = block.owner
        parent = getattr(parent, "operation", parent)
        arg = ir.BlockArgument(value).arg_number
        if parent.name == "scf.for" and arg == 0:
            return math.gcd(_divisor(parent.operands[0]), _divisor(parent.operands[2]))
        if parent.name == "scf.forall":
            rank = len(_static(parent.attributes["staticLowerBound"]))
            if arg < rank:
                lb = _static(parent.attributes["staticLowerBound"])[arg]
                step = _static(parent.attributes["staticStep"])[arg]
                dyn = ir.ShapedType.get_dynamic_size()
                return 1 if dyn in (lb, step) else math.gcd(lb, step)
        return 1
    if op.name == "arith.constant":
        attr = op.attributes["value"]
        return abs(ir.IntegerAttr(attr).value) if isinstance(attr, ir.IntegerAttr) else 1
    if op.name in ("arith.addi", "arith.subi"):
        return math.gcd(_divisor(op.operands[0]), _divisor(op.operands[1]))
    if op.name == "arith.muli":
        return _divisor(op.operands[0]) * _divisor(op.operands[1])
    if op.name == "affine.apply":
        amap = ir.AffineMapAttr(op.attributes["map"]).value
        if len(amap.results) != 1:
            return 1
        divs = [_divisor(v) for v in op.operands]
        return _expr_divisor(amap.results[0], divs, amap.n_dims)
    return 1


def _expr_divisor(expr, divs, n_dims) -> int:
    if isinstance(expr, ir.AffineConstantExpr):
        return abs(expr.value)
    if isinstance(expr, ir.AffineDimExpr):
        return divs[expr.position]
    if isinstance(expr, ir.AffineSymbolExpr):
        return divs[n_dims + expr.position]
    if isinstance(expr, ir.AffineAddExpr):
        return math.gcd(_expr_divisor(expr.lhs, divs, n_dims),
                        _expr_divisor(expr.rhs, divs, n_dims))
    if isinstance(expr, ir.AffineMulExpr):
        return _expr_divisor(expr.lhs, divs, n_dims) * _expr_divisor(expr.rhs, divs, n_dims)
    return 1


class _Linear:
    """An index as ``sum(coef * value) + const`` (values with unknown divisors)."""

    def __init__(self, terms=None, const=0):
        self.terms = list(terms or [])
        self.const = const

    @staticmethod
    def of(value) -> _Linear:
        op = _owner(value)
        if op is not None and op.name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, ir.IntegerAttr):
                return _Linear(const=ir.IntegerAttr(attr).value)
        return _Linear([(value, 1)])

    def scaled(self, k: int) -> _Linear:
        return _Linear([(v, c * k) for v, c in self.terms], self.const * k)

    def plus(self, other: _Linear) -> _Linear:
        return _Linear(self.terms + other.terms, self.const + other.const)

    def divisor(self) -> int:
        g = abs(self.const)
        for v, c in self.terms:
            g = math.gcd(g, _divisor(v) * abs(c))
        return g


def _base_offset(dest, indices):
    """(the root memref, its offset in elements as a _Linear) of ``dest[indices]``, or None."""
    lin = [_Linear.of(v) for v in indices]
    while True:
        op = _owner(dest)
        if op is None or op.name != "memref.subview":
            break
        src = op.operands[0]
        src_t, dst_t = ir.MemRefType(src.type), ir.MemRefType(dest.type)
        if src_t.rank != dst_t.rank:
            return None
        offsets = _static(op.attributes["static_offsets"])
        strides = _static(op.attributes["static_strides"])
        dyn = ir.ShapedType.get_dynamic_size()
        if dyn in strides:
            return None
        dyn_offsets = list(op.opview.offsets)
        new = []
        for k in range(src_t.rank):
            off = _Linear([(dyn_offsets.pop(0), 1)]) if offsets[k] == dyn else _Linear(
                const=offsets[k])
            new.append(off.plus(lin[k].scaled(strides[k])))
        lin, dest = new, src
    t = ir.MemRefType(dest.type)
    op = _owner(dest)
    if op is not None and op.name in _RESHAPES:
        # a reshape of a contiguous buffer into another: the same row-major offsets
        if not (_identity_layout(t) and _identity_layout(ir.MemRefType(op.operands[0].type))):
            return None
        dest = op.operands[0]
    if not isinstance(dest, ir.BlockArgument):
        return None
    total, stride = _Linear(), 1
    for k in range(t.rank - 1, -1, -1):
        total = total.plus(lin[k].scaled(stride))
        stride *= t.shape[k]
    return dest, total


def _full_1d_write(op) -> int | None:
    """Bytes stored by ``op`` if it is a full, unmasked, 1-D-like transfer_write to a memref."""
    if op.name != "vector.transfer_write" or len(op.results) or not isinstance(
            op.operands[1].type, ir.MemRefType):
        return None
    w = op.opview
    if w.mask is not None:
        return None
    vt = ir.VectorType(op.operands[0].type)
    if any(d != 1 for d in vt.shape[:-1]) or vt.scalable:
        return None
    if "in_bounds" in op.attributes and not all(
            ir.BoolAttr(b).value for b in ir.ArrayAttr(op.attributes["in_bounds"])):
        return None
    mt = ir.MemRefType(op.operands[1].type)
    perm = ir.AffineMapAttr(op.attributes["permutation_map"]).value
    if perm != ir.AffineMap.get_minor_identity(mt.rank, vt.rank):
        return None
    if not isinstance(vt.element_type, (ir.F32Type, ir.F16Type, ir.BF16Type, ir.F64Type)):
        return None
    return vt.shape[-1] * ir.FloatType(vt.element_type).width // 8


def _leaf_uses(value, out) -> bool:
    """The non-view users of ``value`` (through subviews) into ``out``; False if one is a
    view of another kind."""
    for use in value.uses:
        user = getattr(use.owner, "operation", use.owner)
        if user.name in _VIEWS and use.operand_number == 0:
            if not _leaf_uses(user.results[0], out):
                return False
        elif user.name.startswith("memref.") and user.name.endswith(("_shape", "cast")):
            return False
        else:
            out.append((user, use.operand_number))
    return True


def _identity_layout(t: ir.MemRefType) -> bool:
    return t.affine_map == ir.AffineMap.get_identity(t.rank)


def _preorder(op, out):
    out.append(op)
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                _preorder(getattr(child, "operation", child), out)
    return out


@dataclass(frozen=True, eq=False, repr=False)
class NontemporalStoresPass(Pass):
    """Stream write-only outputs larger than the cache with aligned non-temporal stores."""

    name = "strata-nontemporal-stores"
    min_bytes: int = option(16 << 20, min=0, help="Fewest bytes of an output written with non-temporal stores (0: never)")

    def run(self, module: ir.Operation) -> None:
        if self.min_bytes == 0:
            return
        for fn in collect_ops(module, lambda o: o.name == "func.func"):
            if fn.regions[0].blocks:
                self._function(fn)

    def _roots(self, fn):
        """{write op: (root argument, alignment bytes)} of the stores that qualify."""
        writes = {}
        for arg in fn.regions[0].blocks[0].arguments:
            if not isinstance(arg.type, ir.MemRefType):
                continue
            t = ir.MemRefType(arg.type)
            if not t.has_static_shape or not _identity_layout(t) or not isinstance(
                    t.element_type, (ir.F32Type, ir.F16Type, ir.BF16Type, ir.F64Type)):
                continue
            ebytes = ir.FloatType(t.element_type).width // 8
            if math.prod(t.shape) * ebytes < self.min_bytes:
                continue
            leaves = []
            if not _leaf_uses(arg, leaves):
                continue
            found = {}
            for user, operand in leaves:
                nbytes = _full_1d_write(user) if operand == 1 else None
                if nbytes is None:
                    found = None  # read, or written some other way: leave it alone
                    break
                align = min(NT_ALIGNMENT, nbytes)
                if align & (align - 1) or align < 16 or nbytes % align:
                    continue
                where = _base_offset(user.operands[1], list(user.opview.indices))
                if where is None or where[0] != arg or where[1].divisor() % (align // ebytes):
                    continue
                found[user] = (arg, align)
            if found:
                writes.update(found)
        return writes

    def _function(self, fn) -> None:
        writes = self._roots(fn)
        if not writes:
            return
        body = fn.regions[0].blocks[0]
        tops = {}
        for w in writes:
            top = w
            while top.parent is not None and top.parent != fn:
                top = top.parent
            top = getattr(top, "operation", top)
            if top == w or len(top.results):
                continue
            tops.setdefault(top, []).append(w)
        for top, ws in tops.items():
            self._dispatch(body, top, {w: writes[w] for w in ws})

    def _dispatch(self, body, top, writes) -> None:
        roots = []
        for arg, _ in writes.values():
            if arg not in roots:
                roots.append(arg)
        with ir.InsertionPoint(top), top.location:
            ok = None
            mask = arith.constant(ir.IndexType.get(), NT_ALIGNMENT - 1)
            zero = arith.constant(ir.IndexType.get(), 0)
            for arg in roots:
                p = memref.extract_aligned_pointer_as_index(arg)
                c = arith.cmpi(arith.CmpIPredicate.eq, arith.andi(p, mask), zero)
                ok = c if ok is None else arith.andi(ok, c)
            branch = scf.IfOp(ok, [], has_else=True)
        with ir.InsertionPoint(branch.then_block), top.location:
            fast = top.clone()
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block), top.location:
            scf.YieldOp([])
        ir.InsertionPoint.at_block_begin(branch.else_block).insert(top.detach_from_parent())
        fast = getattr(fast, "operation", fast)
        for old, new in zip(_preorder(top, []), _preorder(fast, []), strict=True):
            if old in writes:
                self._store(new, writes[old][1])

    @staticmethod
    def _store(write, align) -> None:
        w = write.opview
        value, dest, indices = w.operands[0], w.operands[1], list(w.indices)
        vt = ir.VectorType(value.type)
        with ir.InsertionPoint(write), write.location:
            if vt.rank > 1:
                value = vector.shape_cast(ir.VectorType.get(vt.shape[-1:], vt.element_type),
                                          value)
            vector.store(value, dest, indices, nontemporal=True, alignment=align)
        write.erase()
