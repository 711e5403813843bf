"""strata.matmul -> linalg.matmul / linalg.batch_matmul / a contraction linalg.generic.

    [M,K] @ [K,N]                 -> linalg.matmul (output filled with 0)
    [B,M,K] @ [B,K,N]             -> linalg.batch_matmul
    [...,M,K] @ [K]               -> a row reduction over K (rows folded into one dim)
    [1,...,1,K] / [K] @ transpose(W[N,K])
                                  -> W @ x: the same row reduction over W's rows, read
                                     in place (one row of activations against a
                                     weight stored N x K, nn.Linear's, as in decoding
                                     one token)
    [...,M,K] @ [K,N]             -> collapse to [(...)*M, K], linalg.matmul, expand back
                                     (unless several of ...,M are dynamic, or one is and
                                     another is 0: see _foldable_rows)
    1-D operands                  -> expand to 2-D, then one of the above, collapse back
    [...,M,K] @ [...,K,N], static batch dims (broadcast or rank > 3)
                                  -> an rhs with unit batch dims: a matrix, as above;
                                     else each operand broadcast to the full batch
                                     (a copy, where it broadcasts), the batch dims
                                     collapsed into one, linalg.batch_matmul, expand back
    anything else (dynamic batch dims that broadcast or are not one leading dim, ...,M
    not foldable)                 -> linalg.generic with reduction over k (scalar loops)

f16/bf16 accumulate in f32 and round once at the end.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from ..linalg_ops import linalg
from .common import (
    DYN,
    affine_map,
    collapse,
    compute_type,
    convert,
    d,
    dims,
    expand,
    filled,
    from_compute,
    generic,
    is_float,
    map_elementwise,
    rtype,
    zero_expr,
)


def _mm2d(a, b, acc, m=None, n=None):
    m = dims(a)[0] if m is None else m
    n = dims(b)[1] if n is None else n
    return linalg.matmul(a, b, outs=[filled([m, n], acc, 0)])


def _prod(sizes):
    """Product of ints/index Values; an int when all are static."""
    if all(isinstance(s, int) for s in sizes):
        p = 1
        for s in sizes:
            p *= s
        return p
    total = None
    for s in sizes:
        v = arith.constant(ir.IndexType.get(), s) if isinstance(s, int) else s
        total = v if total is None else arith.muli(total, v)
    return total


def _static(sizes):
    return [s if isinstance(s, int) else DYN for s in sizes]


def _contract(a, b, acc, out_shape_sizes):
    """General batched contraction with numpy broadcasting of batch dims (ranks >= 2)."""
    ta, tb = rtype(a), rtype(b)
    nb = len(out_shape_sizes) - 2
    loops = nb + 3  # batch..., m, n, k
    m, n, k = d(nb), d(nb + 1), d(nb + 2)

    def operand_map(t, last_two):
        exprs = []
        r = t.rank - 2
        for i in range(r):
            j = nb - r + i
            if not t.is_dynamic_dim(i) and t.get_dim_size(i) == 1 and (
                    not isinstance(out_shape_sizes[j], int) or out_shape_sizes[j] != 1):
                exprs.append(zero_expr())
            else:
                exprs.append(d(j))
        return affine_map(loops, exprs + last_two)

    maps = [operand_map(ta, [m, k]), operand_map(tb, [k, n]),
            affine_map(loops, [d(i) for i in range(nb)] + [m, n])]
    init = filled(out_shape_sizes, acc, 0)
    iters = ["parallel"] * (nb + 2) + ["reduction"]

    return generic([a, b], [init], maps, iters, _multiply_add(acc))[0]


def _multiply_add(acc):
    """A contraction's body: ``o + x * y`` in the accumulator type."""
    def body(x, y, o):
        x, y = convert(x, acc), convert(y, acc)
        if is_float(acc):
            return arith.addf(o, arith.mulf(x, y))
        return arith.addi(o, arith.muli(x, y))

    return body


def _matrix_vector(a, b, acc):
    """``[...,M,K] @ [K]`` as a row reduction over K (the rows folded into one dim and
    expanded back): strata-vectorize gives each row vector partial sums, where a
    linalg.matmul with one column runs its N=1 register tiles masked."""
    sa = dims(a)
    lead = sa[:-1]
    rank = len(sa)
    if rank > 2:
        a = collapse(a, [list(range(rank - 1)), [rank - 1]],
                     _static([_prod(lead)]) + _static([sa[-1]]))
    rows = dims(a)[0]
    maps = [affine_map(2, [d(0), d(1)]), affine_map(2, [d(1)]), affine_map(2, [d(0)])]
    out = generic([a, b], [filled([rows], acc, 0)], maps, ["parallel", "reduction"],
                  _multiply_add(acc))[0]
    return expand(out, [list(range(rank - 1))], lead) if rank > 2 else out


def _transposed_weight(x, b):
    """``W`` where ``b`` is ``linalg.transpose(W, [1, 0])`` (strata.transpose, lowered
    before this op) of a static W and ``x`` one row (``[K]`` or ``[1,...,1,K]``,
    static); else None. ``x @ W^T`` is then ``W @ x`` (_row_times_weight), reading W's
    rows as they are stored, where a matmul with one row reads W across its rows, a
    strided vector per K step (``[1, 1024] @ W^T``, W 4096 x 1024, 2 threads: 1.7 ms
    so, 0.17 ms as ``W @ x``; numpy 0.15-0.18 ms)."""
    owner = b.owner
    if getattr(owner, "name", None) != "linalg.transpose":
        return None
    if list(ir.DenseI64ArrayAttr(owner.attributes["permutation"])) != [1, 0]:
        return None
    w = owner.operands[0]
    tx, tw = rtype(x), rtype(w)
    if not (tx.has_static_shape and tw.has_static_shape):
        return None
    return w if all(s == 1 for s in tx.shape[:-1]) else None


def _row_times_weight(x, w, acc):
    """``x @ W^T`` for one row ``x`` (``[K]`` or ``[1,...,1,K]``) and ``W`` [N, K]:
    ``W @ x`` as _matrix_vector's row reduction, shaped ``[N]`` / ``[1,...,1,N]``."""
    tx = rtype(x)
    if tx.rank == 1:
        return _matrix_vector(w, x, acc)
    vector = collapse(x, [list(range(tx.rank))], [tx.shape[-1]])
    out = _matrix_vector(w, vector, acc)
    return expand(out, [list(range(tx.rank))], [1] * (tx.rank - 1) + [rtype(w).shape[0]])


def lower_matmul(op):
    a, b = op.operands
    result_type = rtype(op.result)
    elem = result_type.element_type
    acc = compute_type(elem)
    ra, rb = rtype(a).rank, rtype(b).rank
    # static sizes, None for a dynamic one (dims() would build tensor.dim ops)
    shape_a = [None if s == DYN else s for s in rtype(a).shape]
    if rb == 1 and ra >= 2 and _foldable_rows(shape_a[:-1]):
        return from_compute(_matrix_vector(a, b, acc), elem)
    weight = _transposed_weight(a, b) if rb == 2 else None
    if weight is not None:
        return from_compute(_row_times_weight(a, weight, acc), elem)
    # 1-D operands become matrices; the added dim is dropped again at the end.
    if ra == 1:
        a = expand(a, [[0, 1]], [1, dims(a)[0]])
    if rb == 1:
        b = expand(b, [[0, 1]], [dims(b)[0], 1])
    ta, tb = rtype(a), rtype(b)
    sa, sb = dims(a), dims(b)
    if ta.rank == 2 and tb.rank == 2:
        out = _mm2d(a, b, acc, sa[0], sb[1])
    elif tb.rank == 2 and _foldable_rows(sa[:-1]):
        out = _folded_rows(a, b, acc, sa, sb[1])
    elif ta.rank == 3 and tb.rank == 3 and _same_batch(ta, tb):
        batch = sa[0] if isinstance(sa[0], int) or not isinstance(sb[0], int) else sb[0]
        out = linalg.batch_matmul(a, b, outs=[filled([batch, sa[1], sb[2]], acc, 0)])
    elif tb.rank > 2 and _static(sa[:-2]) == sa[:-2] and _static(sb[:-2]) == sb[:-2]:
        out = _static_batches(a, b, acc)
    else:
        out_sizes = _broadcast_batch(sa[:-2], sb[:-2]) + [sa[-2], sb[-1]]
        out = _contract(a, b, acc, out_sizes)
    if ra == 1 and rb == 1:
        out = collapse(out, [], [])
    elif ra == 1:
        out = drop_unit_dim(out, rtype(out).rank - 2)
    elif rb == 1:
        out = drop_unit_dim(out, rtype(out).rank - 1)
    return from_compute(out, elem)


def _static_batches(a, b, acc):
    """``[...,M,K] @ [...,K,N]`` with static batch dims that differ in rank or broadcast:
    one linalg.batch_matmul over the batch dims collapsed into one. An rhs whose batch
    dims are all 1 is a matrix (its dims dropped; the lhs's rows fold into M where they
    can); otherwise an operand whose batch dims broadcast is copied to the full batch
    first (B copies of an M x K or K x N matrix: cheap beside the B matmuls it feeds,
    where the contraction generic it replaces runs as scalar loops, 30-60x slower)."""
    sa, sb = dims(a), dims(b)
    batch = _broadcast_batch(sa[:-2], sb[:-2])
    if all(s == 1 for s in sb[:-2]) and _foldable_rows(sa[:-1]):
        matrix = collapse(b, [list(range(len(sb) - 1)), [len(sb) - 1]], _static(sb[-2:]))
        return _folded_rows(a, matrix, acc, sa, sb[-1])
    full = [_broadcast_to(v, batch) for v in (a, b)]
    n = len(batch)
    groups = [list(range(n)), [n], [n + 1]]
    if n > 1:
        full = [collapse(v, groups, [_prod(batch)] + _static(dims(v)[-2:])) for v in full]
    out = linalg.batch_matmul(*full, outs=[filled([_prod(batch), sa[-2], sb[-1]], acc, 0)])
    return expand(out, groups, batch + [sa[-2], sb[-1]]) if n > 1 else out


def _folded_rows(a, matrix, acc, sa, n):
    """``[..., M, K] @ [K, N]`` (``sa``: a's sizes, ``n``: N): the dims before K folded
    into M (row-major contiguous), one linalg.matmul, expanded back."""
    rank = len(sa)
    lead = sa[:-1]
    groups = [list(range(rank - 1)), [rank - 1]]
    flat = collapse(a, groups, _static([_prod(lead)]) + _static([sa[-1]]))
    return expand(_mm2d(flat, matrix, acc, n=n), groups, lead + [n])


def _broadcast_to(v, batch):
    """``v`` with its batch dims (all but the last two) broadcast to ``batch``."""
    sizes = dims(v)
    if sizes[:-2] == batch:
        return v
    t = rtype(v)
    result = ir.RankedTensorType.get(batch + _static(sizes[-2:]), t.element_type)
    return map_elementwise([v], result, lambda x: x)


def _foldable_rows(lead) -> bool:
    """Whether the row dims ``...,M`` of ``[...,M,K] @ [K,N]`` may be collapsed into one.

    Not with two dynamic sizes (the expand_shape back could not be lowered to memrefs),
    nor a dynamic one beside a static 0 (bufferization folds the collapsed size to a
    static 0, which memref.collapse_shape's verifier rejects for a dynamic group).
    """
    dynamic = sum(not isinstance(s, int) for s in lead)
    zero = any(isinstance(s, int) and s == 0 for s in lead)
    return dynamic == 0 or (dynamic == 1 and not zero)


def drop_unit_dim(v, drop):
    """tensor.collapse_shape removing the size-1 dim ``drop`` (merged into a neighbour)."""
    t = rtype(v)
    groups = [[i] for i in range(t.rank) if i != drop]
    if drop > 0:
        groups[drop - 1].append(drop)
    else:
        groups[0].insert(0, drop)
    shape = [t.shape[i] for i in range(t.rank) if i != drop]
    return collapse(v, groups, shape)


def _same_batch(ta, tb):
    """Whether the batch dims are equal (else one of them is a broadcast 1)."""
    da, db = ta.is_dynamic_dim(0), tb.is_dynamic_dim(0)
    if da and db:
        return True
    if da or db:  # a dynamic dim never broadcasts (is never 1); a static 1 against it does
        return (tb if da else ta).get_dim_size(0) != 1
    return ta.get_dim_size(0) == tb.get_dim_size(0)


def _broadcast_batch(ba, bb):
    n = max(len(ba), len(bb))
    ba = [1] * (n - len(ba)) + list(ba)
    bb = [1] * (n - len(bb)) + list(bb)
    out = []
    for x, y in zip(ba, bb, strict=True):
        if isinstance(x, int) and x == 1:
            out.append(y)
        else:
            out.append(x)
    return out
