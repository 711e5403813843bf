"""strata-row-fuse: row reductions and the elementwise op that uses them, as one row kernel.

A normalization (layer_norm, rms_norm, or any user-written one) reaches the
fused level as row reductions over the last dim (``linalg.reduce``, or a
``linalg.generic`` with a trailing reduction loop), scalar arithmetic on the
per-row results (``linalg.generic`` over rows) and one elementwise consumer
that reads the rows again with the per-row values broadcast. Each is its own
loop nest, so every row is read from memory twice. This pass makes the
consumer and everything it needs one loop over rows (an ``scf.forall`` with
``threads`` > 1) whose body sweeps the row twice with vector ops
(passes/row_softmax.py: ``lanes`` x ``unroll`` elements a step, the last step
masked), the second time from cache:

    %s:2 = linalg.generic {parallel, reduction} ins(%x, %x) outs(%f, %f) { subf; addf; mulf; addf }
    %m:2 = linalg.generic {parallel} ins(%s#0, %s#1) { divf; ...; math.rsqrt }
    %y = linalg.generic {parallel, parallel} ins(%x, %x, %m#0, %m#1, %g, %b) { subf; mulf; addf }
  =>
    %y = scf.forall (%i) in (4096) shared_outs(%o = %e) {
      %acc:2 = scf.for %j step 64 iter_args(...) { vector.transfer_read %x[%i, %j]; body on vector<64xf32> }
      %s0 = vector.reduction <add>, %acc#0 ...                   // per-row scalars
      (the row generic's body on scalars)
      %row = scf.for %j step 64 { reads of %x, %g, %b; body on vectors; vector.transfer_write }
      scf.forall.in_parallel { tensor.parallel_insert_slice %row into %o[%i, 0] [1, 4096] [1, 1] }
    }

What it takes: a static f32 all-parallel consumer of rank r >= 2 whose inputs
are rows (the identity map), columns (``(d_last)``), 0-d values, or per-row
values (the leading dims, or those and ``0``) of which at least one comes from
a reduction over the last dim of a tensor of the consumer's shape. Ranks above
2 loop over the flat row index (split back into the leading indices for the
reads) and collapse the output to rows x n around the loop. Per-row values come from reductions (their
combiner ``addf``/``mulf``/``max``/``min`` with a neutral ``linalg.fill`` init;
an elementwise single-use producer of the reduced tensor, like ``x * x``, is
computed in the sweep instead of read), per-row ``linalg.generic`` ops,
``tensor.expand_shape`` to ``R x 1`` and reads of a row's element. A reduction
whose values need per-row results of other reductions (the sum of
``exp(x - max)`` of a softmax written from ops) runs in a later sweep: one sweep
per such phase, each after the first reading the row from cache. Anything else
leaves the ops as they are. A row max (``arith.maximumf``) read straight from a
tensor whose NaNs reach every element of their row of the result by another path
(the sum of a log-softmax written from ops: passes/nan_rows.py) is swept as
``x > m ? x : m``, one ``vmaxps`` instead of four instructions (log-softmax
4096x4096 on 2 threads: 4.35 -> 4.05 ms); the kernel's result is the same.
Consumers are taken last first, so that a producer computed inside a kernel's
sweep gets no kernel of its own. The ops the kernel replaces are erased once
nothing else uses them.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf, tensor, vector

from ..codegen.host import f32_lanes
from .base import Pass, collect_ops, option, threads_option
from .layout_common import indexing_maps
from .nan_rows import spreads_nan
from .nonpositive_exps import mark_nonpositive_exps
from .patterns import erase_dead_ops
from .row_softmax import RowSweep, index, max_ignoring_nan, row_slice

__all__ = ["RowFusePass", "RowProducer"]

_KINDS = {"arith.addf": (vector.CombiningKind.ADD, 0.0),
          "arith.mulf": (vector.CombiningKind.MUL, 1.0),
          "arith.maximumf": (vector.CombiningKind.MAXIMUMF, float("-inf")),
          "arith.maxnumf": (vector.CombiningKind.MAXNUMF, float("-inf")),
          "arith.minimumf": (vector.CombiningKind.MINIMUMF, float("inf")),
          "arith.minnumf": (vector.CombiningKind.MINNUMF, float("inf"))}
_ELEMENTWISE = ("arith.", "math.")


class _Unsupported(Exception):
    """The consumer's inputs are not all of a form the row kernel computes."""


def _op(value):
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return getattr(owner, "operation", owner)


def _iterators(op):
    return [str(a).strip('"').split("<")[-1].rstrip(">") for a in
            ir.ArrayAttr(op.attributes["iterator_types"])]


def _results(amap):
    """An indexing map's results as a tuple of dim positions / ('c', constant)."""
    out = []
    for e in amap.results:
        if isinstance(e, ir.AffineDimExpr):
            out.append(ir.AffineDimExpr(e).position)
        elif isinstance(e, ir.AffineConstantExpr):
            out.append(("c", ir.AffineConstantExpr(e).value))
        else:
            raise _Unsupported("an indexing map with a compound expression")
    return tuple(out)


def _f32_static(t) -> bool:
    return (isinstance(t, ir.RankedTensorType) and ir.RankedTensorType(t).has_static_shape and
            isinstance(ir.RankedTensorType(t).element_type, ir.F32Type))


def _fill_value(value):
    op = _op(value)
    if op is None or op.name != "linalg.fill":
        raise _Unsupported("a reduction whose init is not a linalg.fill")
    scalar = _op(op.operands[0])
    if scalar is None or scalar.name != "arith.constant":
        raise _Unsupported("a reduction init that is not a constant")
    return ir.FloatAttr(scalar.attributes["value"]).value


def _body_ok(block):
    for inner in block.operations:
        name = inner.operation.name
        if name != "linalg.yield" and not name.startswith(_ELEMENTWISE):
            raise _Unsupported(f"'{name}' in a body")


def _delinearize(i, lead):
    """The multi-index of flat row ``i`` over the leading dims ``lead`` (row-major)."""
    if len(lead) == 1:
        return [i]
    idx, rest = [], i
    for k in range(len(lead) - 1, 0, -1):
        idx.append(arith.remui(rest, index(lead[k])))
        rest = arith.divui(rest, index(lead[k]))
    idx.append(rest)
    return idx[::-1]


class _Kernel:
    """Plans and emits the row kernel of one consumer; raises _Unsupported while planning."""

    def __init__(self, consumer, sweep: RowSweep):
        self.consumer = consumer
        self.sweep = sweep
        shape = list(ir.RankedTensorType(consumer.results[0].type).shape)
        self.shape, self.lead, self.n, self.r = shape, shape[:-1], shape[-1], len(shape)
        self.rows = 1
        for d in self.lead:
            self.rows *= d
        self.full = tuple(range(self.r))        # (d0, ..., d_{r-1}): a row input
        self.row_dims = tuple(range(self.r - 1))  # (d0, ..., d_{r-2}): a per-row value
        self.row_scalars = {}
        self.inlined = []        # producers computed in a sweep instead of read
        self.perrow_vec = {}     # per-row value -> its broadcast, for the current sweep
        self.levels = {}
        self.reductions = []     # (op, kind per result, inlined producer or None)
        self.planned = set()     # ids of ops planned (reductions / per-row generics)
        self.values = {}         # per-row scalars during emission: (op, result#) -> Value
        self.captured = {}

    # -- planning ------------------------------------------------------------------
    def plan(self):
        c = self.consumer
        if c.name != "linalg.generic" or len(c.results) != 1 or \
                any(it != "parallel" for it in _iterators(c)):
            raise _Unsupported("not an elementwise generic")
        t = c.results[0].type
        if not _f32_static(t) or ir.RankedTensorType(t).rank < 2:
            raise _Unsupported("not a static f32 result of rank 2 or more")
        maps = indexing_maps(c)
        if _results(maps[-1]) != self.full:
            raise _Unsupported("output map is not the identity")
        _body_ok(c.regions[0].blocks[0])
        n_in = len(c.operands) - 1
        self.inputs = []
        for v, m in zip(list(c.operands)[:n_in], maps[:n_in], strict=True):
            self.inputs.append(self._classify(v, _results(m)))
        if not self.reductions:
            raise _Unsupported("no per-row value from a reduction")
        self.skip_nan = {red[0] for red in self.reductions if self._may_skip_nan(red)}

    def _may_skip_nan(self, reduction) -> bool:
        """A row max read straight from a tensor whose NaNs reach every element of their
        row of the result anyway (passes/nan_rows.py): swept with one vmaxps a step."""
        op, kinds, inline, _ins = reduction
        if inline is not None or kinds != [vector.CombiningKind.MAXIMUMF] or \
                op.name != "linalg.reduce":
            return False
        ops = [o.operation for o in op.regions[0].blocks[0].operations]
        return len(ops) == 2 and spreads_nan(self.consumer.results[0], op.operands[0])

    def _classify(self, value, res):
        if isinstance(value.type, ir.RankedTensorType) and \
                not isinstance(ir.RankedTensorType(value.type).element_type, ir.F32Type):
            raise _Unsupported("an input that is not f32")  # reads pad with f32
        if res == self.full:
            return ("row", value)
        if res == (self.r - 1,):
            return ("col", value)
        if res == ():
            return ("scalar", value)
        if res in (self.row_dims, self.row_dims + (("c", 0),)):
            if res != self.row_dims and ir.RankedTensorType(value.type).shape[-1] != 1:
                return ("element", value)  # x[i, 0] of a row input
            self._plan_row_value(value)
            return ("perrow", value)
        raise _Unsupported(f"an input map {res}")

    def _plan_row_value(self, value):
        """Plans how to compute ``value`` (R or R x 1 elements) per row."""
        op = _op(value)
        if op is None:
            return  # a function argument: read it
        if op in self.planned:
            return
        if op.name == "tensor.expand_shape":
            self._plan_row_value(op.operands[0])
            return
        if op.name == "linalg.reduce":
            self._plan_reduce(op)
        elif op.name == "linalg.generic" and "reduction" in _iterators(op):
            self._plan_reduction_generic(op)
        elif op.name == "linalg.generic":
            self._plan_row_generic(op)
        else:
            return  # computed elsewhere: read it
        self.planned.add(op)

    def _combiners(self, op, block, n_acc):
        kinds = []
        for acc in list(block.arguments)[-n_acc:]:
            users = [u.owner for u in acc.uses]
            users = [getattr(u, "operation", u) for u in users]
            if len(users) != 1 or users[0].name not in _KINDS:
                raise _Unsupported("a reduction without a single known combiner")
            kinds.append(_KINDS[users[0].name])
        for init, (_, neutral) in zip(list(op.operands)[-n_acc:], kinds, strict=True):
            if _fill_value(init) != neutral:
                raise _Unsupported("a reduction init that is not the combiner's neutral value")
        return [k for k, _ in kinds]

    def _check_reduced(self, value):
        t = value.type
        if not _f32_static(t) or list(ir.RankedTensorType(t).shape) != self.shape:
            raise _Unsupported("a reduction over a tensor of another shape")

    def _plan_reduce(self, op):
        if list(ir.DenseI64ArrayAttr(op.attributes["dimensions"])) != [self.r - 1] or \
                len(op.results) != 1:
            raise _Unsupported("a linalg.reduce not over the last dim")
        src = op.operands[0]
        self._check_reduced(src)
        block = op.regions[0].blocks[0]
        _body_ok(block)
        kinds = self._combiners(op, block, 1)
        producer = _op(src)
        inline = None
        if producer is not None and producer.name == "linalg.generic" and \
                len(list(src.uses)) == 1 and len(producer.results) == 1 and \
                all(it == "parallel" for it in _iterators(producer)) and \
                _results(indexing_maps(producer)[-1]) == self.full:
            try:
                pmaps = indexing_maps(producer)
                ins = [self._classify_plain(v, _results(m)) for v, m in
                       zip(list(producer.operands)[:-1], pmaps[:-1], strict=True)]
                _body_ok(producer.regions[0].blocks[0])
                inline = (producer, ins)
                self.inlined.append(producer)
            except _Unsupported:
                inline = None
        self.reductions.append((op, kinds, inline, [("row", src)] if inline is None else None))

    def _classify_plain(self, value, res):
        """Inputs of a reduction's body: rows, columns, 0-d values and row elements."""
        if isinstance(value.type, ir.RankedTensorType) and \
                not isinstance(ir.RankedTensorType(value.type).element_type, ir.F32Type):
            raise _Unsupported("an input that is not f32")  # reads pad with f32
        if res == self.full:
            self._check_reduced(value)
            return ("row", value)
        if res == (self.r - 1,):
            return ("col", value)
        if res == ():
            return ("scalar", value)
        if res == self.row_dims + (("c", 0),) and \
                ir.RankedTensorType(value.type).shape[-1] != 1:
            return ("element", value)
        if res in (self.row_dims, self.row_dims + (("c", 0),)):
            # a per-row value: its reduction runs in an earlier sweep (a later phase)
            self._plan_row_value(value)
            return ("perrow", value)
        raise _Unsupported(f"a reduction input map {res}")

    def _plan_reduction_generic(self, op):
        its = _iterators(op)
        if its != ["parallel"] * (self.r - 1) + ["reduction"]:
            raise _Unsupported("a reduction generic that is not (parallel..., reduction)")
        maps = indexing_maps(op)
        n_out = len(op.results)
        if any(_results(m) != self.row_dims for m in maps[-n_out:]):
            raise _Unsupported("a reduction output map other than the row dims")
        ins = [self._classify_plain(v, _results(m)) for v, m in
               zip(list(op.operands)[:-n_out], maps[:-n_out], strict=True)]
        block = op.regions[0].blocks[0]
        _body_ok(block)
        kinds = self._combiners(op, block, n_out)
        self.reductions.append((op, kinds, None, ins))

    def _plan_row_generic(self, op):
        if any(it != "parallel" for it in _iterators(op)):
            raise _Unsupported("a per-row generic with reductions")
        for r in op.results:
            t = ir.RankedTensorType(r.type)
            if list(t.shape) not in (self.lead, self.lead + [1]):
                raise _Unsupported("a per-row generic of another shape")
        maps = indexing_maps(op)
        rank = len(ir.RankedTensorType(op.results[0].type).shape)
        full = tuple(range(rank))
        for v, m in zip(list(op.operands)[:len(op.operands) - len(op.results)], maps,
                        strict=False):
            res = _results(m)
            if res == ():
                continue
            if res not in (full, self.row_dims, self.row_dims + (("c", 0),)):
                raise _Unsupported(f"a per-row generic input map {res}")
            self._plan_row_value(v)
        _body_ok(op.regions[0].blocks[0])

    # -- emission ------------------------------------------------------------------
    def _capture(self, v, vt):
        """A value from outside a body: itself (scalar mode) or broadcast (vector mode)."""
        if vt is None:
            return v
        key = (v, vt)
        for k, b in self.captured.items():
            if k[0] == v and k[1] == vt:
                return b
        with self.outside:  # before the row loop: v is defined outside it
            b = vector.broadcast(vt, v)
        self.captured[key] = b
        return b

    def _emit_body(self, block, args, vt, mapping=None):
        """Emits ``block``'s ops on ``args`` (values for its block arguments), as vector
        ops of ``vt``'s length (``vt`` not None) or scalars; returns the yielded values."""
        mapping = dict(mapping or {})
        for a, v in zip(block.arguments, args, strict=False):
            mapping[a] = v
        for inner in block.operations:
            inner = inner.operation
            if inner.name == "linalg.yield":
                return [self._value(o, mapping, vt) for o in inner.operands]
            if inner.name == "arith.constant":
                attr = inner.attributes["value"]
                if vt is None:
                    new = arith.ConstantOp(inner.results[0].type, attr).result
                else:
                    vtype = ir.VectorType.get([self.sweep.v], inner.results[0].type)
                    new = arith.ConstantOp(vtype, ir.DenseElementsAttr.get_splat(
                        vtype, attr)).result
                mapping[inner.results[0]] = new
                continue
            operands = [self._value(o, mapping, vt) for o in inner.operands]
            types = [r.type if vt is None else ir.VectorType.get([self.sweep.v], r.type)
                     for r in inner.results]
            attrs = {name: inner.attributes[name] for name in inner.attributes}
            new = ir.Operation.create(inner.name, results=types, operands=operands,
                                      attributes=attrs)
            for old, r in zip(inner.results, new.results, strict=True):
                mapping[old] = r
        raise AssertionError("a body without linalg.yield")

    def _value(self, v, mapping, vt):
        if v in mapping:
            return mapping[v]
        return self._capture(v, vt)

    def _element(self, src, idx, vt):
        """A per-row scalar: ``src[i...]`` or ``src[i..., 0]`` (broadcast in vector mode)."""
        rank = ir.RankedTensorType(src.type).rank
        s = tensor.extract(src, list(idx[:rank]) + [index(0)] * max(0, rank - len(idx)))
        return s if vt is None else vector.broadcast(vt, s)

    def _scalar0d(self, src, vt):
        s = tensor.extract(src, [])
        return s if vt is None else vector.broadcast(vt, s)

    def _read_inputs(self, ins, i, j, full, vt):
        out = []
        for kind, v in ins:
            if kind in ("row", "col"):
                out.append(self.sweep.read(v, self.idx, j, full, 0.0))
            elif kind == "scalar":
                out.append(self.row_scalars[("0d", v)])
            elif kind == "element":
                out.append(self.row_scalars[("el", v)])
            else:
                out.append(self.perrow_vec[v])
        return out

    def _level(self, value):
        """The sweep after which a per-row value is known (0: before any sweep)."""
        op = _op(value)
        if op is None or op not in self.planned:
            if op is not None and op.name == "tensor.expand_shape":
                return self._level(op.operands[0])
            return 0
        if op in self.levels:
            return self.levels[op]
        red = next((r for r in self.reductions if r[0] == op), None)
        if red is None:  # a per-row generic
            n_out = len(op.results)
            level = max([self._level(v) for v in list(op.operands)[:-n_out]], default=0)
        else:
            _red, _kinds, inline, ins = red
            level = 1 + max([self._level(v) for kind, v in self._sweep_inputs(red)
                             if kind == "perrow"], default=0)
        self.levels[op] = level
        return level

    @staticmethod
    def _sweep_inputs(red):
        _op_, _kinds, inline, ins = red
        return inline[1] if inline is not None else ins

    def _broadcast_per_row(self, ins_lists, vt):
        """Broadcasts of the per-row inputs of the next sweep, computed before it."""
        for ins in ins_lists:
            for kind, v in ins:
                if kind == "perrow" and v not in self.perrow_vec:
                    self.perrow_vec[v] = vector.broadcast(vt, self.row_value(v))

    def row_value(self, value):
        """The per-row scalar of ``value`` (emitting its per-row generic when needed)."""
        op = _op(value)
        if op is None or op not in self.planned:
            if op is not None and op.name == "tensor.expand_shape":
                return self.row_value(op.operands[0])
            return self._element(value, self.idx, None)
        k = next(idx for idx, r in enumerate(op.results) if r == value)
        key = (op, k)
        if key in self.values:
            return self.values[key]
        # a per-row generic: its body on scalars
        n_out = len(op.results)
        args = []
        for v, m in zip(list(op.operands)[:-n_out], indexing_maps(op)[:-n_out], strict=True):
            if _results(m) == ():
                args.append(self._scalar0d(v, None))
            else:
                args.append(self.row_value(v))
        outs = self._emit_body(op.regions[0].blocks[0], args, None)
        for idx, y in enumerate(outs):
            self.values[(op, idx)] = y
        return self.values[key]

    def emit(self, init, threads_parallel):
        """The row loop computing the consumer's result into ``init`` (collapsed to
        rows x n around the loop when the rank is above 2)."""
        rows, n = self.rows, self.n
        t = ir.RankedTensorType(init.type)
        groups = [list(range(self.r - 1)), [self.r - 1]]
        if self.r > 2:
            init = tensor.collapse_shape(ir.RankedTensorType.get([rows, n], t.element_type),
                                         init, groups)
        if threads_parallel:
            loop = scf.ForallOp([0], [rows], [1], [init])
            i, out = loop.induction_variables[0], loop.inner_iter_args[0]
            body = loop.body
        else:
            loop = scf.ForOp(index(0), index(rows), index(1), [init])
            i, out = loop.induction_variable, loop.inner_iter_args[0]
            body = loop.body
        self.outside = ir.InsertionPoint(loop)
        with ir.InsertionPoint(body):
            self.idx = _delinearize(i, self.lead)
            row = self._emit_row(i, out)
            if threads_parallel:
                with ir.InsertionPoint(loop.terminator().block):
                    tensor.parallel_insert_slice(row, out, [i], [], [],
                                                 [ir.ShapedType.get_dynamic_size(), 0],
                                                 [1, n], [1, 1])
            else:
                scf.YieldOp([tensor.insert_slice(row, out, [i], [], [],
                                                 [ir.ShapedType.get_dynamic_size(), 0],
                                                 [1, n], [1, 1])])
        loop.operation.attributes["strata.row_kernel"] = ir.StringAttr.get(
            f"{len(self.reductions)} row reduction(s) + elementwise")
        if self.r > 2:
            return tensor.expand_shape(t, loop.results[0], groups, [], self.shape)
        return loop.results[0]

    def _row_scalar_inputs(self, ins_lists, vt):
        for ins in ins_lists:
            for kind, v in ins:
                if kind == "scalar" and ("0d", v) not in self.row_scalars:
                    self.row_scalars[("0d", v)] = self._scalar0d(v, vt)
                elif kind == "element" and ("el", v) not in self.row_scalars:
                    self.row_scalars[("el", v)] = self._element(v, self.idx, vt)

    def _emit_row(self, i, out):
        sweep, vt = self.sweep, self.sweep.vt
        self.row_scalars = {}
        self.perrow_vec = {}
        tail = sweep.n - sweep.main
        mask = None
        if tail:
            mask = vector.create_mask(ir.VectorType.get([sweep.v], ir.IntegerType.get_signless(1)),
                                      [index(tail)])
        # one sweep per phase: the reductions whose per-row inputs the earlier sweeps made
        phases = {}
        for red in self.reductions:
            phases.setdefault(self._level(red[0].results[0]), []).append(red)
        for level in sorted(phases):
            self._reduction_sweep(phases[level], i, mask)
        # per-row scalars of the consumer's inputs, then the writing sweep
        c = self.consumer
        self._row_scalar_inputs([self.inputs], vt)
        self._broadcast_per_row([self.inputs], vt)
        block = c.regions[0].blocks[0]

        def write(j, full, values):
            vals = self._read_inputs(self.inputs, i, j, full, vt)
            y = self._emit_body(block, vals, vt)[0]
            return [sweep.write(y, values[0], j, full)]

        return sweep.sweep([row_slice(out, i, self.n)], write)[0]

    def _reduction_sweep(self, reductions, i, mask):
        """One sweep over the row carrying the vector accumulators of ``reductions``; their
        per-row results go to ``self.values``."""
        sweep, vt = self.sweep, self.sweep.vt
        ins_lists = [self._sweep_inputs(red) for red in reductions]
        self._row_scalar_inputs(ins_lists, vt)
        self._broadcast_per_row(ins_lists, vt)
        inits, spans = [], []
        for _red, kinds, _inline, _ins in reductions:
            spans.append((len(inits), len(kinds)))
            for k in kinds:
                neutral = {vector.CombiningKind.ADD: 0.0, vector.CombiningKind.MUL: 1.0}.get(
                    k, float("-inf") if k in (vector.CombiningKind.MAXIMUMF,
                                               vector.CombiningKind.MAXNUMF) else float("inf"))
                inits.append(arith.ConstantOp(vt, ir.DenseElementsAttr.get_splat(
                    vt, ir.FloatAttr.get(ir.F32Type.get(), neutral))).result)

        def step(j, full, accs):
            new = []
            for (op, _kinds, inline, ins), (start, count) in zip(reductions, spans,
                                                                   strict=True):
                block = op.regions[0].blocks[0]
                acc = accs[start:start + count]
                if inline is not None:
                    producer, pins = inline
                    vals = self._read_inputs(pins, i, j, full, vt)
                    elems = self._emit_body(producer.regions[0].blocks[0], vals, vt)
                else:
                    elems = self._read_inputs(ins, i, j, full, vt)
                if op in self.skip_nan:
                    ys = [max_ignoring_nan(acc[0], elems[0])]
                else:
                    ys = self._emit_body(block, elems + acc, vt)
                if not full:
                    ys = [arith.select(mask, y, a) for y, a in zip(ys, acc, strict=True)]
                new.extend(ys)
            return new

        accs = sweep.sweep(inits, step)
        for (op, kinds, _inline, _ins), (start, _count) in zip(reductions, spans, strict=True):
            for k, kind in enumerate(kinds):
                self.values[(op, k)] = vector.reduction(ir.F32Type.get(), kind,
                                                        accs[start + k])



@dataclass(frozen=True, eq=False, repr=False)
class RowFusePass(Pass):
    """Fuse last-dim row reductions with the elementwise op that uses them into row kernels."""

    name = "strata-row-fuse"
    threads: int = threads_option()
    lanes: int = option(0, min=0, max=64, help="f32 lanes of a vector register (0: the host's)")
    unroll: int = option(4, min=1, max=16, help="Vector registers per step (independent chains)")
    parallel_elements: int = option(1 << 18, min=1, help="Fewest elements of a kernel run on threads")
    report: bool = option(False, help="Report each consumer not fused, and why, as a remark")

    def run(self, module: ir.Operation) -> None:
        lanes = self.lanes or f32_lanes()
        mark_nonpositive_exps(module)  # exp(x - rowmax(x)): the cheaper expansion
        fused = False
        consumed = []  # producers computed inside a kernel: their only user is gone
        # Last consumers first: a kernel may compute its producers (exp(x - max) under a
        # sum) in its sweeps, which then need no kernel of their own.
        # Only ops of a function's body: those inside loops (another kernel's tiles, such as
        # strata-attention's) are that kernel's business.
        for op in reversed(collect_ops(module, lambda o: o.name == "linalg.generic" and
                                       o.parent is not None and o.parent.name == "func.func")):
            if any(op == c for c in consumed):
                continue
            if len(op.results) != 1 or not _f32_static(op.results[0].type):
                continue
            t = ir.RankedTensorType(op.results[0].type)
            if t.rank < 2 or 0 in t.shape:
                continue
            n = t.shape[-1]
            v = lanes * self.unroll if n >= lanes * self.unroll else lanes
            try:
                with op.location:
                    kernel = _Kernel(op, RowSweep(n, v))
                    kernel.plan()
            except _Unsupported as e:
                if self.report and "no per-row value" not in str(e):
                    self.remark(op, f"strata-row-fuse: not fused: {e}")
                continue
            rows = kernel.rows
            parallel = self.threads > 1 and rows > 1 and rows * n >= self.parallel_elements
            with ir.InsertionPoint(op), op.location:
                result = kernel.emit(op.operands[len(op.operands) - 1], parallel)
            op.results[0].replace_all_uses_with(result)
            op.erase()
            consumed.extend(kernel.inlined)
            fused = True
        if fused:
            erase_dead_ops(module)


class RowProducer:
    """An elementwise producer of a rows x n tensor, computed per row step from its inputs
    (rows, columns, 0-d values, row elements) instead of read from memory: strata-row-kernels
    reads a softmax's single-use cheap producer through it.

    ``begin_row(i, outside)`` emits the per-row scalar reads (``outside``: an insertion
    point before the row loop, for broadcasts of values captured by the body), then
    ``load(i, j, full)`` one vector step of the producer's result."""

    def __init__(self, producer, sweep: RowSweep):
        if producer.name != "linalg.generic" or len(producer.results) != 1 or \
                any(it != "parallel" for it in _iterators(producer)) or \
                _results(indexing_maps(producer)[-1]) != (0, 1) or \
                not _f32_static(producer.results[0].type):
            raise _Unsupported("not an elementwise rank-2 f32 producer")
        self.op = producer
        self.k = _Kernel(producer, sweep)
        maps = indexing_maps(producer)
        self.ins = [self.k._classify_plain(v, _results(m)) for v, m in
                    zip(list(producer.operands)[:-1], maps[:-1], strict=True)]
        _body_ok(producer.regions[0].blocks[0])
        if self.k.reductions:
            raise _Unsupported("a producer that needs row reductions of its own")

    @classmethod
    def of(cls, value, sweep: RowSweep):
        """The RowProducer of ``value``'s defining op, or None if it is not one."""
        op = _op(value)
        if op is None:
            return None
        try:
            with op.location:
                return cls(op, sweep)
        except _Unsupported:
            return None

    def begin_row(self, i, outside):
        self.k.idx, self.k.outside, self.k.row_scalars, self.k.perrow_vec = [i], outside, {}, {}
        self.k._row_scalar_inputs([self.ins], self.k.sweep.vt)
        self.k._broadcast_per_row([self.ins], self.k.sweep.vt)

    def load(self, i, j, full):
        vals = self.k._read_inputs(self.ins, i, j, full, self.k.sweep.vt)
        return self.k._emit_body(self.op.regions[0].blocks[0], vals, self.k.sweep.vt)[0]
