"""strata-attention: fuse softmax(Q Kᵀ · scale [+ causal mask]) V into one tiled loop nest.

Matches, on linalg on tensors (after strata-to-linalg), the ops a user's
``softmax(q @ k.T * s [+ mask]) @ v`` lowers to, 2-d or 3-d (heads first), f32,
static shapes:

    %s  = linalg.batch_matmul ins(%q, %kt) outs(fill 0)                    // H x SQ x SK
    %x  = linalg.generic {parallel} ins(%s, %c : tensor<f32>) { mulf | divf }  (optional)
    %y  = linalg.generic {parallel} ins(%x, %mask : SQ x SK) { addf }          (optional)
    %z  = linalg.generic {parallel} ins(%m : SQ x SK, %ninf, %y) { select }    (optional)
    %p  = linalg.softmax dimension(2) ins(%z)
    %o  = linalg.batch_matmul ins(%p, %v) outs(fill 0)                     // H x SQ x DV
  =>
    %o  = scf.forall (%h, %t) in (H, SQ / BQ) shared_outs(...) {    // scf.for when sequential
            scf.for over key tiles iter_args(max, sum, acc) { online softmax update }
          }

``%kt`` (H x D x SK) is whatever the program made it: ``linalg.transpose %k
[0, 2, 1]`` from ``k.T``, or the head-splitting transpose ``[0, 2, 3, 1]`` of a
PyTorch multi-head attention, collapsed. The scale, mask and softmax may also be
4-d, (batch, heads, SQ, SK), between an ``expand_shape`` of the scores and a
``collapse_shape`` of the probabilities that split and merge batch x heads (as
PyTorch's attention decomposes): the kernel then runs on the merged heads.
(the loop nest: passes/fusion/attention_kernel.py). No SQ x SK tensor is left:
per (head, query tile) there is one pass over K and V, BQ x BK scores at a time.
An added mask, before or after the scale, must be the constant causal mask (0 where
key <= query, -inf above the diagonal); key tiles past a query tile are then
skipped. A selected mask is any SQ x SK bool (or integer) tensor known at run time,
``select(m, -inf, x)`` or ``select(m, x, -inf)`` (PyTorch's ``masked_fill`` of a mask
buffer): it becomes a fourth input of the kernel, read a tile at a time (Mask). A
scale applied after a mask must be positive. Anything else stays on the unfused path: other dtypes (f16/bf16
softmaxes run in f32 between casts, which this does not match), dynamic shapes,
other masks, an intermediate with another user, and a decode step's few queries
(at most strata-vectorize's ``DOT_ROWS`` per head, head dim at least a vector, at least
``DECODE_KEYS`` keys): the
kernel reads a transposed copy of K, made for many query rows; for one query that copy
is the whole cost, while unfused the scores are dot products of K's rows (32 heads x 1
query x 4096 keys x 128, one thread: 157 ms fused, 9.6 ms unfused; numpy 7.1 ms on 2).

Tile sizes come from the host (``choose_tiles``: codegen/host.py's vector width
and L2 size), or from ``block-q``/``block-k``, or per attention from autotuning's
``tuned`` text (passes/tuning.py: ``<heads>x<SQ>x<SK>x<D>x<DV>xf32:bq32.bk128``);
the tiles' matmuls and row reductions are static ops that
strata-vectorize tiles for registers like any other (never BLAS calls:
strata-fuse leaves matmuls inside loops to generated code). The loop nest runs on
threads (``scf.forall``) from ``parallel-flops`` (2 threads were faster than one at
every size measured, from 1 head x 64 x 64 x 32: 38 -> 34 us, to 32 heads: 441 -> 184
us; the default keeps the one-thread form for what is smaller). ``report=true`` (strata-fuse's
``report=true`` in the pipelines) says what was fused, or why a softmax feeding
a matmul was not, as a remark at the softmax's location.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..codegen.host import cache_bytes, f32_lanes
from .base import Pass, collect_ops, option, threads_option, zero_filled
from .fusion.attention_kernel import AttentionShape, Layout, Mask, kernel_text
from .tuning import PATTERN as TUNED_PATTERN
from .tuning import attention_signature, parse_tuned
from .vectorize import DOT_ROWS

__all__ = ["AttentionPass", "choose_tiles"]


# A decode step (few queries, head dim at least a vector) stays unfused from this many keys
# on: below it the transposed copy of K is small, and the fused kernel's one pass wins
DECODE_KEYS = 64


class _NoMatch(Exception):
    """The ops around a softmax are not the attention pattern (the message says why)."""


def _producer(value, name=None):
    if isinstance(value.owner, ir.Block):
        return None
    op = value.owner.operation if hasattr(value.owner, "operation") else value.owner
    if name is not None and op.name != name:
        return None
    return op


def _single_user(value, what):
    users = [u.owner for u in value.uses]
    if len(users) != 1:
        raise _NoMatch(f"the {what} has {len(users)} users")
    return users[0].operation if hasattr(users[0], "operation") else users[0]


def _static_f32(value, rank):
    t = value.type
    if not isinstance(t, ir.RankedTensorType):
        raise _NoMatch("an operand is not a ranked tensor")
    t = ir.RankedTensorType(t)
    if not t.has_static_shape:
        raise _NoMatch("dynamic shapes")
    if not isinstance(t.element_type, ir.F32Type):
        raise _NoMatch(f"element type {t.element_type} (only f32 is fused)")
    if t.rank != rank:
        raise _NoMatch(f"rank {t.rank}")
    return list(t.shape)


def _plain_maps(op):
    """A named matmul without transposing indexing maps."""
    if "indexing_maps" not in op.attributes:
        return True
    maps = [str(a) for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    n = 4 if op.name == "linalg.batch_matmul" else 3
    dims = [f"d{i}" for i in range(n)]
    lead = dims[:-3]
    m, nn, k = dims[-3:]
    want = [f"({', '.join(lead + [m, k])})", f"({', '.join(lead + [k, nn])})",
            f"({', '.join(lead + [m, nn])})"]
    return all(mp.endswith(f"-> {w}>") for mp, w in zip(maps, want, strict=True))


def _splat_scalar(value):
    """The float of a constant rank-0 (or splat) tensor, else None."""
    c = _producer(value, "arith.constant")
    if c is None:
        return None
    attr = c.attributes["value"]
    if not isinstance(attr, ir.DenseFPElementsAttr) or not attr.is_splat:
        return None
    return float(np.array(attr).reshape(-1)[0])


def _body_ops(generic):
    return [o.operation for o in generic.regions[0].blocks[0].operations]


def _all_parallel(generic):
    return all("parallel" in str(a) for a in ir.ArrayAttr(generic.attributes["iterator_types"]))


def _scale_of(generic):
    """``(producer value, scale)`` for an elementwise ``x * c`` / ``c * x`` / ``x / c``."""
    if generic.name != "linalg.generic" or not _all_parallel(generic) or \
            len(generic.operands) != 3 or len(generic.results) != 1:
        return None
    block = generic.regions[0].blocks[0]
    ops = _body_ops(generic)
    if len(ops) != 2 or ops[1].name != "linalg.yield" or ops[1].operands[0] != ops[0].result:
        return None
    args = list(block.arguments)
    body = ops[0]
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    for data, const in ((0, 1), (1, 0)):
        c = _splat_scalar(generic.operands[const])
        if c is None or not maps[data].is_permutation or \
                str(maps[data]) != str(maps[2]):
            continue
        a, b = body.operands[0], body.operands[1]
        if body.name == "arith.mulf" and \
                ((a == args[data] and b == args[const]) or (a == args[const] and b == args[data])):
            return generic.operands[data], c
        if body.name == "arith.divf" and a == args[data] and b == args[const] and c != 0.0:
            return generic.operands[data], 1.0 / c
    return None


def _causal_of(generic, sq, sk):
    """The scores ``x`` of ``x + mask`` where ``mask`` is the constant causal mask
    (0 where key <= query, -inf above the diagonal), else None."""
    if generic.name != "linalg.generic" or not _all_parallel(generic) or \
            len(generic.operands) != 3 or len(generic.results) != 1:
        return None
    ops = _body_ops(generic)
    args = list(generic.regions[0].blocks[0].arguments)
    if len(ops) != 2 or ops[0].name != "arith.addf" or ops[1].name != "linalg.yield" or \
            ops[1].operands[0] != ops[0].result:
        return None
    maps = [str(ir.AffineMapAttr(a).value)
            for a in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    n = ir.RankedTensorType(generic.results[0].type).rank
    for data, mask in ((0, 1), (1, 0)):
        a, b = ops[0].operands[0], ops[0].operands[1]
        if not ((a == args[data] and b == args[mask]) or (a == args[mask] and b == args[data])):
            continue
        if maps[data] != maps[2] or not maps[mask].endswith(f"-> (d{n - 2}, d{n - 1})"):
            continue
        c = _producer(generic.operands[mask], "arith.constant")
        if c is None or not isinstance(c.attributes["value"], ir.DenseFPElementsAttr):
            continue
        values = np.array(c.attributes["value"])
        if values.shape != (sq, sk) or sq != sk:
            continue
        want = np.where(np.tril(np.ones((sq, sk), bool)), np.float32(0), np.float32(-np.inf))
        if np.array_equal(values, want):
            return generic.operands[data]
    return None


def _is_neg_inf(value, generic) -> bool:
    """``value`` (in ``generic``'s body) is -inf: a constant, or the block argument of a
    0-d (splat) constant -inf operand."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        if owner != generic.regions[0].blocks[0]:
            return False
        c = _splat_scalar(generic.operands[value.arg_number])
        return c is not None and c == -np.inf
    op = owner.operation if hasattr(owner, "operation") else owner
    if op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.FloatAttr):
        return False
    return ir.FloatAttr(op.attributes["value"]).value == -np.inf


def _is_zero_int(value) -> bool:
    c = _producer(value, "arith.constant")
    return c is not None and isinstance(c.attributes["value"], ir.IntegerAttr) and \
        ir.IntegerAttr(c.attributes["value"]).value == 0


def _select_mask_of(generic, sq, sk):
    """``(x, mask, Mask)`` for the scores ``x`` of ``select(mask, -inf, x)`` or
    ``select(mask, x, -inf)`` (for an integer mask, its ``!= 0`` or ``== 0``) where
    ``mask`` is an SQ x SK tensor read the same by every head; else None."""
    if generic.name != "linalg.generic" or not _all_parallel(generic) or \
            len(generic.results) != 1:
        return None
    ops = _body_ops(generic)
    body, block = ops[:-1], generic.regions[0].blocks[0]
    if len(body) not in (1, 2) or body[-1].name != "arith.select" or \
            ops[-1].operands[0] != body[-1].result:
        return None
    select = body[-1]
    cond, where = select.operands[0], True
    if len(body) == 2:  # an integer mask compared with 0
        cmp = body[0]
        if cmp.name != "arith.cmpi" or cond != cmp.result or not _is_zero_int(cmp.operands[1]):
            return None
        predicate = ir.IntegerAttr(cmp.attributes["predicate"]).value
        if predicate not in (0, 1):  # eq, ne
            return None
        cond, where = cmp.operands[0], predicate == 1
    n_in = len(generic.operands) - 1
    args = list(block.arguments)
    maps = [str(ir.AffineMapAttr(a).value)
            for a in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    n = ir.RankedTensorType(generic.results[0].type).rank
    if cond not in args[:n_in]:
        return None
    mask = generic.operands[cond.arg_number]
    mt = ir.RankedTensorType(mask.type)
    if not maps[cond.arg_number].endswith(f") -> (d{n - 2}, d{n - 1})") or \
            list(mt.shape) != [sq, sk] or not isinstance(mt.element_type, ir.IntegerType):
        return None
    for data, inf, flip in ((select.operands[2], select.operands[1], False),
                            (select.operands[1], select.operands[2], True)):
        if data in args[:n_in] and maps[data.arg_number] == maps[-1] and \
                _is_neg_inf(inf, generic):
            return (generic.operands[data.arg_number], mask,
                    Mask(str(mt.element_type), where != flip))
    return None


@dataclass
class _Match:
    softmax: ir.Operation
    pv: ir.Operation
    ops: list  # the unfused ops, consumer first
    q: ir.Value
    kt: ir.Value  # H x D x SK (2-d: D x SK)
    v: ir.Value
    shape: AttentionShape
    rank: int
    scale: float
    causal: bool
    layout: Layout = Layout()
    result: ir.Operation | None = None  # whose result the kernel's replaces (None: pv's)
    mask: Mask | None = None
    mask_value: ir.Value | None = None


def _heads_merged(op, rank: int) -> bool:
    """A collapse/expand_shape between rank ``rank`` (>= 3) and 3 that merges the leading
    (batch, head) dims into one: ``[[0, .., rank - 3], [rank - 2], [rank - 1]]``."""
    groups = [[ir.IntegerAttr(i).value for i in ir.ArrayAttr(g)]
              for g in ir.ArrayAttr(op.attributes["reassociation"])]
    return groups == [list(range(rank - 2)), [rank - 2], [rank - 1]]


def match(softmax) -> _Match:
    """The attention pattern around ``softmax``, or raises _NoMatch saying why not."""
    res = softmax.results[0]
    rank = ir.RankedTensorType(res.type).rank
    if rank < 2:
        raise _NoMatch(f"rank {rank} (2 or more is fused)")
    if ir.IntegerAttr(softmax.attributes["dimension"]).value != rank - 1:
        raise _NoMatch("softmax is not over the last dim")
    mm_rank = min(rank, 3)  # more than one leading dim: they are merged into one for the matmuls
    mm = "linalg.batch_matmul" if mm_rank == 3 else "linalg.matmul"
    pv, p = _single_user(res, "softmax"), res
    ops = []
    if rank > 3:  # (batch, heads, SQ, SK) probabilities collapsed to (batch * heads, SQ, SK)
        if pv.name != "tensor.collapse_shape" or not _heads_merged(pv, rank):
            raise _NoMatch("the softmax does not feed a matmul, nor a collapse of its leading "
                           "dims into one")
        ops.append(pv)
        p = pv.results[0]
        pv = _single_user(p, "collapsed softmax")
    if pv.name != mm or pv.operands[0] != p:
        raise _NoMatch("softmax does not feed the left operand of a matmul")
    if not _plain_maps(pv) or not zero_filled(pv.operands[2]):
        raise _NoMatch("the second matmul is not a plain one into zeros")
    ops[:0] = [pv]
    ops.append(softmax)
    x = softmax.operands[0]
    scale, causal, scaled, selected = 1.0, False, False, None
    sq_sk = _static_f32(x, rank)[-2:]
    prod = _producer(x)
    # a causal mask, a runtime mask and a scale, in any order, between the scores and
    # the softmax (walked from the softmax up: a scale met first is applied last)
    while prod is not None and prod.name == "linalg.generic":
        masked = None if causal else _causal_of(prod, *sq_sk)
        chosen = None if selected or masked is not None else _select_mask_of(prod, *sq_sk)
        found = None if scaled or masked is not None or chosen is not None else _scale_of(prod)
        if masked is None and chosen is None and found is None:
            raise _NoMatch("the softmax input is not (scaled, masked) scores of a matmul")
        if found is None and scaled and scale <= 0:
            raise _NoMatch(f"a scale of {scale:g} (not positive) after a mask")
        _single_user(x, "scaled or masked scores")
        ops.append(prod)
        if masked is not None:
            causal, x = True, masked
        elif chosen is not None:
            x, selected = chosen[0], chosen[1:]
        else:
            scaled, (x, scale) = True, found
        prod = _producer(x)
    if rank > 3 and prod is not None and prod.name == "tensor.expand_shape" and \
            _heads_merged(prod, rank):  # scores of (batch * heads) matmuls, split again
        _single_user(x, "scores")
        ops.append(prod)
        x = prod.operands[0]
        prod = _producer(x)
    if prod is None or prod.name != mm or not _plain_maps(prod) or not zero_filled(prod.operands[2]):
        raise _NoMatch("the softmax input is not a matmul into zeros")
    _single_user(x, "scores")
    ops.append(prod)
    q, kt, v = prod.operands[0], prod.operands[1], pv.operands[1]
    qs, kts, vs = (_static_f32(val, mm_rank) for val in (q, kt, v))
    if mm_rank == 2:
        qs, kts, vs = [1] + qs, [1] + kts, [1] + vs
    shape = AttentionShape(qs[0], qs[1], kts[2], qs[2], vs[2])
    if kts[0] != shape.heads or vs[0] != shape.heads or kts[1] != shape.d or \
            vs[1] != shape.sk:
        raise _NoMatch("Q, Kᵀ and V shapes disagree")
    if shape.sq <= DOT_ROWS and shape.d >= f32_lanes() and shape.sk >= DECODE_KEYS:
        raise _NoMatch(f"{shape.sq} queries per head (a decode step): the scores run as "
                       "dot products of K's rows (strata-vectorize's dot rows), not on a "
                       "transposed copy of K")
    mask_value, mask = selected or (None, None)
    m = _Match(softmax, pv, ops, q, kt, v, shape, mm_rank, scale, causal, mask=mask,
               mask_value=mask_value)
    return _with_head_views(m) if mm_rank == 3 else m


def _split_heads(value):
    """``(x, NH)`` when ``value`` (H x rows x cols) is ``x`` (B x rows x NH x cols, static
    f32) made heads-first: ``collapse_shape [[0, 1], [2], [3]]`` of ``linalg.transpose
    [0, 2, 1, 3]``; else None."""
    collapse = _producer(value, "tensor.collapse_shape")
    if collapse is None or not _heads_merged(collapse, 4):
        return None
    tr = _producer(collapse.operands[0], "linalg.transpose")
    if tr is None or list(ir.DenseI64ArrayAttr(tr.attributes["permutation"])) != [0, 2, 1, 3]:
        return None
    x = tr.operands[0]
    try:
        return x, _static_f32(x, 4)[2]
    except _NoMatch:
        return None


def _merged_heads(pv):
    """The ``linalg.transpose [0, 2, 1, 3]`` of the ``expand_shape [[0, 1], [2], [3]]``
    of ``pv``'s result (each the other's only user): the (B, SQ, NH, DV) output, or None."""
    results = list(pv.results[0].uses)
    if len(results) != 1 or _owner_name(results[0]) != "tensor.expand_shape":
        return None
    expand = results[0].owner.operation
    if not _heads_merged(expand, 4) or len(list(expand.results[0].uses)) != 1:
        return None
    user = next(iter(expand.results[0].uses))
    if _owner_name(user) != "linalg.transpose":
        return None
    tr = user.owner.operation
    if list(ir.DenseI64ArrayAttr(tr.attributes["permutation"])) != [0, 2, 1, 3]:
        return None
    return tr


def _with_head_views(m: _Match) -> _Match:
    """``m`` reading Q and V, and writing the output, where PyTorch's multi-head attention
    keeps them, (batch, seq, heads, dim), when the heads-first tensors are transposed
    copies of those (Layout): each copy is then not made."""
    views, split = {}, 0
    for which, value in (("q", m.q), ("v", m.v)):
        found = _split_heads(value)
        if found is not None and (not split or found[1] == split):
            views[which], split = found[0], found[1]
    out = _merged_heads(m.pv)
    if out is not None:
        nh = ir.RankedTensorType(out.results[0].type).shape[2]
        if not split or nh == split:
            views["o"], split = out, nh
    if not views or m.shape.heads % split:
        return m
    ops = ([views["o"], views["o"].operands[0].owner.operation] if "o" in views else []) + m.ops
    return _Match(m.softmax, m.pv, ops, views.get("q", m.q), m.kt, views.get("v", m.v),
                  m.shape, m.rank, m.scale, m.causal, Layout(split, frozenset(views)),
                  views.get("o"), m.mask, m.mask_value)


def choose_tiles(shape: AttentionShape, threads: int, lanes: int | None = None,
                 l2_bytes: int | None = None) -> tuple[int, int]:
    """``(BQ, BK)``: key tiles of whole vectors, up to 256 keys, whose K and V rows
    (BK x (D + DV) f32) take at most a quarter of L2; query tiles of up to 64 rows,
    halved (down to 8) while there are fewer than 4 tiles per thread.

    Measured on the 2-core AVX-512 machine (8x512x64, CPU time of one thread):
    BK 64 -> 10.7 ms, 128 -> 9.8 ms, 256 -> 8.0-9.4 ms; BQ from 32 to 128 within noise.
    """
    lanes = lanes or f32_lanes()
    l2_bytes = l2_bytes or cache_bytes(2)
    bk = min(256, (l2_bytes // 4) // (4 * (shape.d + shape.dv)))
    bk = max(lanes, bk // lanes * lanes)
    bk = min(bk, shape.sk)
    bq = min(64, shape.sq)
    while bq > 8 and shape.heads * -(-shape.sq // bq) < 4 * threads:
        bq //= 2
    return bq, bk


def _with_location(text: str, loc: str) -> str:
    """Puts ``loc`` on every op of the generated text (lines that end an op)."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if s.endswith("{") or s.startswith(("^", "#")):
            out.append(line)
        else:
            out.append(f"{line} {loc}")
    return "\n".join(out)


def splice(m: _Match, bq: int, bk: int, threads: int) -> ir.Value:
    """Builds the fused kernel before the matched consumer; returns its result."""
    text = kernel_text(m.shape, bq, bk, m.scale, m.causal, threads, m.rank, layout=m.layout,
                       mask=m.mask)
    text = _with_location(text, str(m.softmax.location))
    parsed = ir.Module.parse(text, context=m.softmax.context)
    fn = next(op for op in parsed.body.operations if op.operation.name == "func.func")
    block = fn.regions[0].blocks[0]
    values = (m.q, m.kt, m.v) + ((m.mask_value,) if m.mask is not None else ())
    for arg, val in zip(block.arguments, values, strict=True):
        arg.replace_all_uses_with(val)
    body = [o.operation for o in block.operations]
    result = body[-1].operands[0]
    body[-1].erase()  # the func.return: nothing in the parsed module uses the moved ops
    for op in body[:-1]:
        op.move_before(m.pv)
    return result


def _erase_dead(ops):
    """Erases ``ops`` (consumers first) and then the producers they leave unused."""
    dead = list(ops)

    def is_dead(op):
        return any(op == d for d in dead)

    def user(use):
        owner = use.owner
        return owner.operation if hasattr(owner, "operation") else owner

    changed = True
    while changed:
        changed = False
        for op in list(dead):
            for v in op.operands:
                p = _producer(v)
                if p is None or is_dead(p) or p.name not in (
                        "linalg.fill", "tensor.empty", "arith.constant", "linalg.transpose",
                        "tensor.collapse_shape", "tensor.expand_shape"):
                    continue
                if all(is_dead(user(u)) for r in p.results for u in r.uses):
                    dead.append(p)
                    changed = True
    for op in dead:
        op.erase()


@dataclass(frozen=True, eq=False, repr=False)
class AttentionPass(Pass):
    """Fuse softmax(Q Kᵀ · scale [+ causal mask]) V into a tiled online-softmax loop nest."""

    name = "strata-attention"
    threads: int = threads_option()
    block_q: int = option(0, min=0, help="Query rows per tile (0: from the host)")
    block_k: int = option(0, min=0, help="Keys per tile (0: from the host's vector width and L2)")
    report: bool = option(False, help="Say what was fused, and why not, as remarks")
    parallel_flops: int = option(1 << 19, min=1,
                                 help="Fewest flops of an attention run on threads")
    tuned: str = option("", pattern=TUNED_PATTERN, form="SIG:KNOBS[,SIG:KNOBS] (passes/tuning.py)",
                        help="Per-attention tiles of autotuning (bq/bk knobs), overriding block-q/block-k")

    def run(self, module: ir.Operation) -> None:
        try:
            tuned = parse_tuned(self.tuned)
        except ValueError as e:
            self.fail(module, f"strata-attention: option 'tuned': {e}")
        for sm in collect_ops(module, lambda op: op.name == "linalg.softmax"):
            try:
                m = match(sm)
            except _NoMatch as e:
                if self.report and any(_owner_name(u) in ("linalg.matmul", "linalg.batch_matmul",
                                                          "tensor.collapse_shape")
                                       for u in sm.results[0].uses):
                    self.remark(sm, f"strata-attention: not fused: {e}")
                continue
            s, loc = m.shape, m.softmax.location
            flops = 2 * s.heads * s.sq * s.sk * (s.d + s.dv)
            threads = self.threads if flops >= self.parallel_flops else 1
            bq, bk = choose_tiles(s, threads)
            config = tuned.get(attention_signature(s), {})  # autotuning's, else the options'
            bq = min(config.get("block_q") or self.block_q or bq, s.sq)
            bk = min(config.get("block_k") or self.block_k or bk, s.sk)
            value = splice(m, bq, bk, threads)
            (m.result or m.pv).results[0].replace_all_uses_with(value)
            _erase_dead(m.ops)
            if self.report:
                mode = f"scf.forall on {threads} threads" if threads > 1 else "sequential"
                dv = "" if s.dv == s.d else f", value dim {s.dv}"
                masked = "" if m.mask is None else (
                    f", masked where the {m.mask.element} mask is "
                    f"{'nonzero' if m.mask.where else 'zero'}")
                self._report(loc, (
                    f"strata-attention: fused {s.heads}x{s.sq}x{s.sk} attention (head dim {s.d}"
                    f"{dv}, scale {m.scale:g}{', causal' if m.causal else ''}{masked}): tiles {bq} "
                    f"queries x {bk} keys, {mode}, no {s.sq}x{s.sk} scores in memory"), "remark")


def _owner_name(use):
    owner = use.owner
    return (owner.operation if hasattr(owner, "operation") else owner).name
