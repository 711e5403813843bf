"""strata-layout rule 2: choose NCHW or NHWC for whole conv chains, per function.

The "layout ops" are ``linalg.conv_2d_nchw_fchw``, ``linalg.pooling_nchw_{max,sum}``,
the zero/-inf padding ``tensor.insert_slice`` into a ``linalg.fill`` that
strata-to-linalg emits before them, and rank-4 all-parallel ``linalg.generic``
ops (bias, relu, residual adds; broadcast operands are re-indexed, not
converted). Each gets a label, NCHW or NHWC; a value costs one conversion for
every layout its consumers need that its producer does not give for free.
Function arguments, results and every other op are NCHW; an existing
``transpose [0,3,1,2]`` gives its input for free as NHWC, an existing
``transpose [0,2,3,1]`` is a consumer that wants NHWC. A non-constant filter of
an NHWC conv costs one transpose (constant filters are transposed with numpy).
Labels are chosen per connected group of layout ops by exhaustive search to
minimize the conversions; ties go to NHWC convs, then to fewer elements moved.
Beyond 14 free ops, single-op flips from all-NCHW and from all-NHWC (the better
of the two) stand in for the search. A sketch (``conv_layout=nhwc``):

    %p = insert_slice %x into fill(0) : 1x3x16x16 -> 1x3x18x18
    %c = linalg.conv_2d_nchw_fchw ins(%p, %w) ; %r = generic {relu} ins(%c)
    %m = linalg.pooling_nchw_max ins(%r) ; %c2 = linalg.conv_2d_nchw_fchw ins(%m, %w2)
    return %c2
  =>
    %xt = linalg.transpose ins(%x) permutation = [0, 2, 3, 1]     // the one conversion in
    %p = insert_slice %xt into fill(0) : 1x16x16x3 -> 1x18x18x3
    %c = linalg.conv_2d_nhwc_hwcf ins(%p, %w_hwcf_constant) ; relu ; linalg.pooling_nhwc_max
    %c2 = linalg.conv_2d_nhwc_hwcf ...
    %o = linalg.transpose ins(%c2) permutation = [0, 3, 1, 2]     // the one conversion out

Limits: NHWC convs in the input are not turned into NCHW (``nchw`` only keeps
NCHW ones); only static shapes, entry-block ops and unit-batch-independent
rank-4 tensors; a generic whose output block argument is read is not a layout op.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import tensor

from .layout_common import (
    build_generic,
    constant_array,
    empty_like_init,
    fold_constant,
    is_op,
    ops_in,
    perm_of,
    producer,
    reads_loop_indices,
    rtype,
    substitute_map,
    transpose,
)
from .linalg_ops import linalg

__all__ = ["ConvLayoutResult", "choose_and_rewrite"]

C, H = "NCHW", "NHWC"
TO_H, TO_C = [0, 2, 3, 1], [0, 3, 1, 2]
FILTER_TO_HWCF = [2, 3, 1, 0]
# Old (n, c, h, w) loop dims in the new (n, h, w, c) iteration space.
OLD_IN_NEW = [0, 3, 1, 2]
_POOLS = {"linalg.pooling_nchw_max": "pooling_nhwc_max",
          "linalg.pooling_nchw_sum": "pooling_nhwc_sum"}
_EXHAUSTIVE = 14


def _h_shape(shape):
    return [shape[0], shape[2], shape[3], shape[1]]


def _rank4_static(v):
    return isinstance(v.type, ir.RankedTensorType) and rtype(v).rank == 4 and \
        rtype(v).has_static_shape


def _init_ok(v):
    return is_op(v, "tensor.empty") or (is_op(v, "linalg.fill") and
                                        is_op(producer(v).operands[1], "tensor.empty"))


def _generic_data(op):
    """Data operand indices of a rank-4 elementwise generic, or None if it is not one."""
    if len(op.results) != 1 or not _rank4_static(op.results[0]):
        return None
    iters = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    if any("parallel" not in k for k in iters):
        return None
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    ident = ir.AffineMap.get_identity(4)
    if maps[-1] != ident or not _init_ok(op.operands[len(op.operands) - 1]):
        return None
    block = op.regions[0].blocks[0]
    if list(list(block.arguments)[-1].uses) or reads_loop_indices(op):
        return None
    return [i for i in range(len(op.operands) - 1) if maps[i] == ident]


def _kind(op):
    """``(kind, data operand indices)`` of a layout op, or None."""
    name = op.operation.name
    if name == "linalg.conv_2d_nchw_fchw":
        if all(_rank4_static(v) for v in op.operands) and _init_ok(op.operands[2]):
            return "conv", [0]
    elif name in _POOLS:
        if _rank4_static(op.operands[0]) and _init_ok(op.operands[2]):
            return "pool", [0]
    elif name == "tensor.insert_slice":
        src, dst = op.operands[0], op.operands[1]
        if (_rank4_static(src) and _rank4_static(dst) and is_op(dst, "linalg.fill") and
                is_op(producer(dst).operands[1], "tensor.empty") and len(op.operands) == 2):
            return "pad", [0]
    elif name == "linalg.generic":
        data = _generic_data(op)
        if data is not None:
            return "ew", data
    return None


@dataclass
class ConvLayoutResult:
    convs_nhwc: int = 0
    convs: int = 0
    per_op_conversions: int = 0  # what a pair around every converted op would have cost
    changed_ops: int = 0
    per_op_choice_converts: int = 0  # convs a per-op (one op at a time) choice would convert


class _Graph:
    def __init__(self, func):
        self.ops = []  # layout ops in program order
        self.kind = {}
        self.data = {}
        for op in ops_in(func):
            k = _kind(op)
            if k is not None:
                self.ops.append(op)
                self.kind[op] = k[0]
                self.data[op] = k[1]
        self.index = {op.operation: i for i, op in enumerate(self.ops)}
        # Values that matter: data operands and results of layout ops.
        values = []
        seen = set()
        for op in self.ops:
            for v in [op.operands[i] for i in self.data[op]] + [op.results[0]]:
                key = _key(v)
                if key not in seen:
                    seen.add(key)
                    values.append(v)
        self.values = values
        self.uses = {}
        for v in values:
            reqs = []
            for use in v.uses:
                owner = use.owner
                i = self.index.get(owner.operation)
                if i is not None and use.operand_number in self.data[self.ops[i]]:
                    reqs.append(("op", i))
                elif owner.operation.name == "linalg.transpose" and perm_of(owner) == TO_H \
                        and use.operand_number == 0:
                    reqs.append(("fixed", H))
                else:
                    reqs.append(("fixed", C))
            self.uses[_key(v)] = reqs
        self.producer_index = {}
        for v in values:
            p = producer(v)
            self.producer_index[_key(v)] = self.index.get(p.operation) if p is not None \
                else None

    def free_layouts(self, v, labels):
        i = self.producer_index[_key(v)]
        if i is not None:
            return {labels[i]}
        p = producer(v)
        if p is not None and p.operation.name == "linalg.transpose" and perm_of(p) == TO_C:
            return {H}  # the NCHW copy is the existing transpose: it costs one if kept
        return {C}

    def cost(self, labels, members=None, elements=False):
        """Conversions a labelling needs (or the elements they move, with ``elements``)."""
        total = 0
        for v in self.values:
            pi = self.producer_index[_key(v)]
            reqs = self.uses[_key(v)]
            if members is not None and pi not in members and not any(
                    k == "op" and j in members for k, j in reqs):
                continue
            need = {labels[j] if k == "op" else j for k, j in reqs}
            missing = len(need - self.free_layouts(v, labels))
            total += missing * (_numel(v) if elements else 1)
        for i, op in enumerate(self.ops):
            if (members is None or i in members) and self.kind[op] == "conv" and \
                    labels[i] == H and constant_array(op.operands[1])[0] is None:
                total += _numel(op.operands[1]) if elements else 1
        return total

    def components(self):
        parent = list(range(len(self.ops)))

        def find(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for v in self.values:
            pi = self.producer_index[_key(v)]
            for k, j in self.uses[_key(v)]:
                if k == "op" and pi is not None:
                    parent[find(pi)] = find(j)
        groups = {}
        for i in range(len(self.ops)):
            groups.setdefault(find(i), []).append(i)
        return list(groups.values())


def _numel(v):
    n = 1
    for s in rtype(v).shape:
        n *= s
    return n


def _key(v):
    return v  # ir.Value hashes by identity of the underlying value


def _score(graph, labels, members):
    nhwc_convs = sum(1 for i in members if graph.kind[graph.ops[i]] == "conv" and labels[i] == H)
    m = set(members)
    return (graph.cost(labels, m), -nhwc_convs, graph.cost(labels, m, elements=True))


def _solve(graph, mode):
    labels = [C] * len(graph.ops)
    if mode in ("nchw", "keep"):
        return labels
    for members in graph.components():
        free = [i for i in members if not (mode == "nhwc" and graph.kind[graph.ops[i]] == "conv")]
        for i in members:
            if i not in free:
                labels[i] = H
        if len(free) <= _EXHAUSTIVE:
            best = None
            for choice in itertools.product((C, H), repeat=len(free)):
                for i, lab in zip(free, choice, strict=True):
                    labels[i] = lab
                s = _score(graph, labels, members)
                if best is None or s < best[0]:
                    best = (s, choice)
            for i, lab in zip(free, best[1], strict=True):
                labels[i] = lab
        else:
            best_s, best_l = None, None
            for start in (C, H):
                for i in free:
                    labels[i] = start
                improved = True
                while improved:
                    improved = False
                    for i in free:
                        s0 = _score(graph, labels, members)
                        labels[i] = H if labels[i] == C else C
                        if _score(graph, labels, members) < s0:
                            improved = True
                        else:
                            labels[i] = H if labels[i] == C else C
                s = _score(graph, labels, members)
                if best_s is None or s < best_s:
                    best_s, best_l = s, [labels[i] for i in free]
            for i, lab in zip(free, best_l, strict=True):
                labels[i] = lab
    return labels


def _per_op_choice(graph):
    """Convs that would go NHWC if each were decided alone, everything else NCHW."""
    n = 0
    base = [C] * len(graph.ops)
    c0 = graph.cost(base)
    for i, op in enumerate(graph.ops):
        if graph.kind[op] != "conv":
            continue
        trial = list(base)
        trial[i] = H
        # The conv together with its own padding op, as one strata op.
        pad = producer(op.operands[0])
        if pad is not None and pad.operation in graph.index:
            trial[graph.index[pad.operation]] = H
        if graph.cost(trial) < c0:
            n += 1
    return n


class _Rewriter:
    def __init__(self, graph, labels, func):
        self.g = graph
        self.labels = labels
        self.func = func
        self.phys = {}
        self.entry = func.regions[0].blocks[0]

    def _after(self, v):
        p = producer(v)
        if p is None:
            ops = list(self.entry.operations)
            return ir.InsertionPoint(ops[0]) if ops else ir.InsertionPoint(self.entry)
        return _after_op(p)

    def get(self, v, layout):
        key = (_key(v), layout)
        if key in self.phys:
            return self.phys[key]
        other = (_key(v), H if layout == C else C)
        p = producer(v)
        if layout == H and p is not None and p.operation.name == "linalg.transpose" and \
                perm_of(p) == TO_C and other not in self.phys:
            out = p.operands[0]
        elif other in self.phys:  # natively in the other layout: convert once, after it
            src = self.phys[other]
            out = transpose(src, TO_H if layout == H else TO_C, _after_op(producer(src)),
                            producer(src).location)
        else:
            assert layout == H
            out = transpose(v, TO_H, self._after(v), v.location if p is None else p.location)
        self.phys[key] = out
        return out

    def run(self):
        old = []
        for i, op in enumerate(self.g.ops):
            if self.labels[i] == C:
                for j in self.g.data[op]:
                    v = op.operands[j]
                    if (_key(v), H) in self.phys and (_key(v), C) not in self.phys:
                        op.operands[j] = self.get(v, C)
                continue
            new = self._rewrite(op)
            r = op.results[0]
            self.phys[(_key(r), H)] = new
            old.append(op)
        old_set = {op.operation for op in old}
        # Uses of converted results outside the converted ops want NCHW (or were an
        # explicit transpose to NHWC, which now folds away).
        for op in old:
            r = op.results[0]
            for use in list(r.uses):
                owner = use.owner
                if owner.operation in old_set:
                    continue
                if owner.operation.name == "linalg.transpose" and perm_of(owner) == TO_H:
                    owner.results[0].replace_all_uses_with(self.phys[(_key(r), H)])
                    continue
                owner.operands[use.operand_number] = self._nchw_of(r)
        for op in reversed(old):
            for r in op.results:
                for use in list(r.uses):
                    if use.owner.operation.name == "linalg.transpose":
                        use.owner.operation.erase()
            op.operation.erase()

    def _nchw_of(self, r):
        key = (_key(r), C)
        if key not in self.phys:
            src = self.phys[(_key(r), H)]
            self.phys[key] = transpose(src, TO_C, _after_op(producer(src)),
                                       producer(src).location)
        return self.phys[key]

    def _rewrite(self, op):
        kind = self.g.kind[op]
        ip, loc = ir.InsertionPoint(op), op.location
        out_shape = _h_shape(list(rtype(op.results[0]).shape))
        if kind == "pad":
            src = self.get(op.operands[0], H)
            fill = producer(op.operands[1])
            with ip, loc:
                dest = linalg.fill(fill.operands[0], outs=[tensor.empty(
                    out_shape, rtype(op.results[0]).element_type)])
                off = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
                sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
                strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
                return tensor.insert_slice(src, dest, [], [], [], _h_shape(off),
                                           _h_shape(sizes), _h_shape(strides))
        if kind == "ew":
            n_in = len(op.operands) - 1
            maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
            data = self.g.data[op]
            inputs, new_maps = [], []
            for j in range(n_in):
                if j in data:
                    inputs.append(self.get(op.operands[j], H))
                    new_maps.append(ir.AffineMap.get_identity(4))
                else:
                    inputs.append(op.operands[j])
                    new_maps.append(substitute_map(maps[j], OLD_IN_NEW))
            init = empty_like_init(op.operands[n_in], out_shape, ip, loc)
            new_maps.append(ir.AffineMap.get_identity(4))
            t = ir.RankedTensorType.get(out_shape, rtype(op.results[0]).element_type)
            return build_generic(op, inputs, [init], new_maps, ["parallel"] * 4, [t], ip,
                                 loc).results[0]
        x = self.get(op.operands[0], H)
        init = empty_like_init(op.operands[2], out_shape, ip, loc)
        strides = list(_i64s(op.attributes["strides"]))
        dilations = list(_i64s(op.attributes["dilations"]))
        if kind == "pool":
            fn = getattr(linalg, _POOLS[op.operation.name])
            with ip, loc:
                return fn(x, op.operands[1], outs=[init], strides=strides, dilations=dilations)
        w = op.operands[1]
        wshape = [list(rtype(w).shape)[p] for p in FILTER_TO_HWCF]
        wh = fold_constant(w, lambda a: a.transpose(FILTER_TO_HWCF), wshape, ip, loc)
        if wh is None:
            wh = self.get_filter(w)
        with ip, loc:
            return linalg.conv_2d_nhwc_hwcf(x, wh, outs=[init], strides=strides,
                                            dilations=dilations)

    def get_filter(self, w):
        key = (_key(w), "HWCF")
        if key not in self.phys:
            p = producer(w)
            self.phys[key] = transpose(w, FILTER_TO_HWCF, self._after(w),
                                       w.location if p is None else p.location)
        return self.phys[key]


def _i64s(attr):
    return [int(x) for x in ir.DenseIntElementsAttr(attr)]


def _after_op(op):
    block = op.operation.block
    ops = list(block.operations)
    idx = [o.operation for o in ops].index(op.operation)
    return ir.InsertionPoint(ops[idx + 1]) if idx + 1 < len(ops) else ir.InsertionPoint(block)


def choose_and_rewrite(func, mode: str) -> ConvLayoutResult:
    """Labels the function's layout ops (``mode``: auto|nchw|nhwc|keep) and rewrites them."""
    res = ConvLayoutResult()
    if mode == "keep":
        return res
    graph = _Graph(func)
    if not graph.ops:
        return res
    labels = _solve(graph, mode)
    res.convs = sum(1 for op in graph.ops if graph.kind[op] == "conv")
    res.convs_nhwc = sum(1 for i, op in enumerate(graph.ops)
                         if graph.kind[op] == "conv" and labels[i] == H)
    res.per_op_choice_converts = _per_op_choice(graph)
    for i, op in enumerate(graph.ops):
        if labels[i] != H:
            continue
        res.changed_ops += 1
        if graph.kind[op] == "pad":
            continue  # part of the conv/pool it pads, as in the strata op
        res.per_op_conversions += len(graph.data[op]) + 1
        if graph.kind[op] == "conv" and constant_array(op.operands[1])[0] is None:
            res.per_op_conversions += 1
    if res.changed_ops:
        _Rewriter(graph, labels, func).run()
    return res
