"""Row softmax as vector code on tensors: the builders strata-row-kernels emits per row.

One row of ``n`` f32 elements is swept in steps of ``v`` elements (a
``vector<v x f32>``: ``v`` = lanes x unroll, so LLVM splits each vector op into
``unroll`` independent register ops); the last ``n mod v`` elements are one
masked step (an out-of-bounds ``vector.transfer_read`` padded with the
reduction's neutral value, a masked ``transfer_write``). Rows that fit in cache
take three sweeps, of which only the first reads memory (the others find the
row in L1/L2), so each element is read once and written once:

    %m = max over x[i, :]                                      // sweep 1
    %s = sum over (out[i, :] = exp(x[i, :] - %m))               // sweep 2
    out[i, :] *= 1 / %s                                         // sweep 3
    (log-softmax: sweep 2 writes nothing, sweep 3 writes x - (m + log s))

Longer rows use the online form (``online_max_sum``): one sweep carries a
running max ``m`` and a sum ``d`` per lane, rescaled whenever the max grows,

    m' = max(m, x);  d' = d * exp(m - m') + exp(x - m')

then the lanes combine (``M = max m``, ``D = sum d * exp(m - M)``) and one more
sweep writes ``exp(x - M) / D``: two reads and one write per element. The
combine rule is the one fused attention uses over key tiles; the helpers here
take any row source so that a caller can reuse them.

An all ``-inf`` row gives NaN (as ``exp(x - max(x))`` does in float64); a NaN
anywhere in a row makes the row NaN (the max sweep skips it, the exp sweep does not).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, math, scf, tensor, vector

from .expand_math import NONPOSITIVE

__all__ = ["RowSweep", "online_max_sum", "combine_lanes", "softmax_row", "index",
           "max_ignoring_nan", "splat", "row_slice"]


def index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def splat(vt: ir.VectorType, value: float) -> ir.Value:
    f32 = ir.F32Type.get()
    return arith.ConstantOp(vt, ir.DenseElementsAttr.get_splat(
        vt, ir.FloatAttr.get(f32, value))).result


def _scalar(value: float) -> ir.Value:
    return arith.constant(ir.F32Type.get(), value)


class RowSweep:
    """Sweeps over one row of ``n`` elements, ``v`` at a time (the last step masked)."""

    def __init__(self, n: int, v: int):
        self.n, self.v = n, v
        self.vt = ir.VectorType.get([v], ir.F32Type.get())
        self.main = n // v * v

    def _in_bounds(self, full: bool) -> ir.ArrayAttr:
        return ir.ArrayAttr.get([ir.BoolAttr.get(full)])

    def read(self, source: ir.Value, row: ir.Value, j: ir.Value, full: bool,
             pad: float) -> ir.Value:
        """``source[row, j : j + v]`` (``row``: one index, or the indices of the leading
        dims; a 1-D ``source`` is read at ``j``), lanes past the end ``pad``."""
        rank = ir.RankedTensorType(source.type).rank
        perm = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(rank - 1)])
        lead = list(row) if isinstance(row, list) else [row] * (rank - 1)
        indices = lead[len(lead) - (rank - 1):] + [j] if rank > 1 else [j]
        return vector.transfer_read(self.vt, source, indices, ir.AffineMapAttr.get(perm),
                                    _scalar(pad), self._in_bounds(full))

    def write(self, value: ir.Value, dest: ir.Value, j: ir.Value, full: bool) -> ir.Value:
        """``dest[0, j : j + v] = value`` on a 1 x n row tensor (lanes past the end dropped)."""
        perm = ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(1)])
        return vector.transfer_write(dest.type, value, dest, [index(0), j],
                                     ir.AffineMapAttr.get(perm), self._in_bounds(full))

    def sweep(self, inits: Sequence[ir.Value],
              step: Callable[[ir.Value, bool, list], list]) -> list:
        """Runs ``step(j, full, values) -> values`` over the row: an ``scf.for`` over
        the full steps, then one partial step (``full`` False) if ``n`` is not a
        multiple of ``v``."""
        values = list(inits)
        if self.main:
            loop = scf.ForOp(index(0), index(self.main), index(self.v), values)
            with ir.InsertionPoint(loop.body):
                scf.YieldOp(step(loop.induction_variable, True, list(loop.inner_iter_args)))
            values = list(loop.results)
        if self.n % self.v:
            values = step(index(self.main), False, values)
        return values


def max_ignoring_nan(m: ir.Value, x: ir.Value) -> ir.Value:
    """``x > m ? x : m``: the x86 max instruction's own semantics, so one ``vmaxps``
    where ``arith.maximumf`` (NaN-propagating) costs a compare, an unordered compare
    and two blends. A NaN ``x`` is skipped here, so it serves where the NaN reaches the
    row's result by another path: softmax's exp sweep reads it again and makes the row
    NaN all the same (strata-row-fuse asks passes/nan_rows.py for its kernels)."""
    return arith.select(arith.cmpf(arith.CmpFPredicate.OGT, x, m), x, m)


def _reduce(kind, acc: ir.Value) -> ir.Value:
    return vector.reduction(ir.F32Type.get(), kind, acc)


def _finite_or_zero(m: ir.Value, like: ir.Value) -> ir.Value:
    """``m``, or 0 where ``m`` is -inf (so that ``exp(x - m)`` of a -inf ``x`` is 0, not NaN)."""
    is_ninf = arith.cmpf(arith.CmpFPredicate.OEQ, m, like)
    return arith.select(is_ninf, splat(m.type, 0.0) if isinstance(m.type, ir.VectorType)
                        else _scalar(0.0), m)


def online_max_sum(m: ir.Value, d: ir.Value, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """One online-softmax step per lane: ``(max(m, x), d * exp(m - m') + exp(x - m'))``."""
    m_new = arith.maximumf(m, x)
    base = _finite_or_zero(m_new, splat(m.type, float("-inf")))
    d_new = math.fma(d, math.exp(arith.subf(m, base)), math.exp(arith.subf(x, base)))
    return m_new, d_new


def combine_lanes(m: ir.Value, d: ir.Value) -> tuple[ir.Value, ir.Value]:
    """Row max and sum from per-lane ``(m, d)``: ``M = max m``, ``D = sum d * exp(m - M)``."""
    big = _reduce(vector.CombiningKind.MAXIMUMF, m)
    base = _finite_or_zero(big, _scalar(float("-inf")))
    scaled = arith.mulf(d, math.exp(arith.subf(m, vector.broadcast(m.type, base))))
    return big, _reduce(vector.CombiningKind.ADD, scaled)


def _exp_shifted(v: ir.Value, shift: ir.Value) -> ir.Value:
    """``exp(v - shift)`` where ``shift`` is the row max (the argument is <= 0 or NaN:
    strata-expand-math's cheaper expansion)."""
    e = math.exp(arith.subf(v, shift))
    e.owner.attributes[NONPOSITIVE] = ir.UnitAttr.get()
    return e


def softmax_row(x: ir.Value, i: ir.Value, out_row: ir.Value, sweep: RowSweep, *,
                online: bool, log: bool = False, load=None, in_place: bool = False,
                write_once: bool = False) -> ir.Value:
    """Softmax (or log-softmax) of row ``i`` of the 2-D tensor ``x`` into the 1 x n
    tensor ``out_row``; returns the written row tensor. ``load(j, full)``, when
    given, computes the row's elements instead of reading ``x`` (lanes past the
    end are then replaced by the padding value here). ``in_place``: ``out_row``
    holds the row's elements (the output takes the input's buffer), and each sweep
    reads them from the row tensor it carries, before overwriting them.
    ``write_once`` (softmax in cache, not in place): the exp-and-sum sweep writes
    nothing and the last sweep computes ``exp(x - max) / sum`` again, so that the
    output is written once and never read (strata-nontemporal-stores can then stream
    it past the cache)."""
    vt, ninf = sweep.vt, float("-inf")
    if load is not None:
        tail = sweep.n - sweep.main
        mask = vector.create_mask(ir.VectorType.get([sweep.v], ir.IntegerType.get_signless(1)),
                                  [index(tail)]) if tail else None

        class _Source:
            @staticmethod
            def read(_x, _i, j, full, pad):
                v = load(j, full)
                return v if full else arith.select(mask, v, splat(vt, pad))

        reader = _Source
    else:
        reader = sweep

    def get(row_t, j, full, pad):
        if in_place:
            return sweep.read(row_t, index(0), j, full, pad)
        return reader.read(x, i, j, full, pad)
    if online:
        def stats(j, full, values):
            return list(online_max_sum(*values, get(out_row, j, full, ninf)))

        m, d = sweep.sweep([splat(vt, ninf), splat(vt, 0.0)], stats)
        big, total = combine_lanes(m, d)
    else:
        def row_max(j, full, values):
            return [max_ignoring_nan(values[0], get(out_row, j, full, ninf))]

        big = _reduce(vector.CombiningKind.MAXIMUMF, sweep.sweep([splat(vt, ninf)], row_max)[0])
    big_v = vector.broadcast(vt, big)
    write_once = write_once and not in_place and not log
    # write once: the exponentials go to a scratch row of their own (in L1, the same
    # bytes for every row once bufferized and hoisted), the output is written only by
    # the last sweep
    scratch = tensor.empty([1, sweep.n], ir.F32Type.get()) if write_once and not online \
        else None
    if not online:
        def exp_sum(j, full, values):
            e = _exp_shifted(get(out_row if log else values[0], j, full, ninf), big_v)
            if log:
                return [arith.addf(values[0], e)]
            return [sweep.write(e, values[0], j, full), arith.addf(values[1], e)]

        inits = [splat(vt, 0.0)] if log else [scratch or out_row, splat(vt, 0.0)]
        values = sweep.sweep(inits, exp_sum)
        if scratch is not None:
            scratch = values[0]
        elif not log:
            out_row = values[0]
        total = _reduce(vector.CombiningKind.ADD, values[-1])
    if log:
        shift = vector.broadcast(vt, arith.addf(big, math.log(total)))

        def write_log(j, full, values):
            y = arith.subf(get(values[0], j, full, 0.0), shift)
            return [sweep.write(y, values[0], j, full)]

        return sweep.sweep([out_row], write_log)[0]
    inv = vector.broadcast(vt, arith.divf(_scalar(1.0), total))
    if scratch is not None:
        def scale_out(j, full, values):
            e = sweep.read(scratch, index(0), j, full, 0.0)
            return [sweep.write(arith.mulf(e, inv), values[0], j, full)]

        return sweep.sweep([out_row], scale_out)[0]
    if online:
        def write_online(j, full, values):
            e = _exp_shifted(get(values[0], j, full, ninf), big_v)
            return [sweep.write(arith.mulf(e, inv), values[0], j, full)]

        return sweep.sweep([out_row], write_online)[0]

    def scale(j, full, values):
        e = sweep.read(values[0], index(0), j, full, 0.0)
        return [sweep.write(arith.mulf(e, inv), values[0], j, full)]

    return sweep.sweep([out_row], scale)[0]


def row_slice(full: ir.Value, i: ir.Value, n: int) -> ir.Value:
    """``full[i, 0:n]`` of a 2-D tensor as a 1 x n tensor."""
    dyn = ir.ShapedType.get_dynamic_size()
    t = ir.RankedTensorType(full.type)
    row_t = ir.RankedTensorType.get([1, n], t.element_type)
    return tensor.extract_slice(row_t, full, [i], [], [], [dyn, 0], [1, n], [1, 1])
