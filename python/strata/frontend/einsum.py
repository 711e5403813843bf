"""``strata.einsum``: numpy / torch einsum composed of strata's existing ops.

The spec is parsed here and each contraction becomes transposes, reshapes and one
``strata.matmul`` (batched when labels are shared and kept), so matmul-like einsums reach
the packed matmul kernels:

    einsum("bhqd,bhkd->bhqk", q, k)
      =>  k' = transpose(k, [0, 1, 3, 2]); s = matmul(q, k')        (batch b,h; M q; N k)

Labels that only one operand has and the result does not are summed first
(``strata.sum``); a label repeated in one operand takes that operand's diagonal (a
reshape and a strided slice: ``"ii->i"``); ``...`` stands for the dims no letter names
(broadcast between operands as numpy does). Dot-like contractions (no kept label of its
own on either side) are a multiply and a sum; outer products (nothing contracted) a
broadcast multiply. Three or more operands contract left to right.

Bad specs raise a located ``StrataError``
(``model.py:3:5: error: einsum: operand 1 has 2 dims but 'ijk' names 3``).
"""

from __future__ import annotations

import builtins
import math

from ..dialect import shapes as S
from . import ops as O
from .tensor import Tensor

__all__ = ["einsum"]

_ELL = "..."


def _parse(spec: str, n_operands: int):
    """``(input terms, output term or None)``; each term a list of labels (letters, or
    ``"..."`` once)."""
    if not isinstance(spec, str):
        raise S.ShapeError(f"einsum: the spec must be a string, got {type(spec).__name__}")
    text = spec.replace(" ", "")
    if text.count("->") > 1:
        raise S.ShapeError(f"einsum: '{spec}' has more than one '->'")
    lhs, arrow, rhs = text.partition("->")
    inputs = [_term(t, spec) for t in lhs.split(",")]
    if len(inputs) != n_operands:
        raise S.ShapeError(f"einsum: '{spec}' names {len(inputs)} operand(s) but "
                           f"{n_operands} were given")
    out = _term(rhs, spec) if arrow else None
    return inputs, out


def _term(text: str, spec: str) -> list[str]:
    labels = []
    i = 0
    while i < len(text):
        if text.startswith(_ELL, i):
            if _ELL in labels:
                raise S.ShapeError(f"einsum: '{spec}': a term has more than one '...'")
            labels.append(_ELL)
            i += 3
            continue
        c = text[i]
        if not (c.isascii() and c.isalpha()):
            raise S.ShapeError(f"einsum: '{spec}': invalid character {c!r} (labels are "
                               "letters a-z, A-Z, with '...', ',' and '->')")
        labels.append(c)
        i += 1
    return labels


def _expand_ellipsis(term, rank, which, spec):
    """The term with ``...`` replaced by its dims' labels (``(".", k)``, right-aligned so
    that ellipses broadcast as numpy does)."""
    named = [t for t in term if t != _ELL]
    if _ELL not in term:
        if len(named) != rank:
            raise S.ShapeError(f"einsum: operand {which} has {rank} dim(s) but "
                               f"'{''.join(term)}' in '{spec}' names {len(named)}")
        return list(term)
    n = rank - len(named)
    if n < 0:
        raise S.ShapeError(f"einsum: operand {which} has {rank} dim(s) but "
                           f"'{''.join(term)}' in '{spec}' names {len(named)} besides '...'")
    at = term.index(_ELL)
    return term[:at] + [(".", n - j) for j in range(n)] + term[at + 1:]


def _diagonal(x: Tensor, labels: list):
    """``x`` with each repeated label's dims replaced by their diagonal."""
    while True:
        seen = {}
        dup = None
        for i, lab in enumerate(labels):
            if lab in seen:
                dup = (seen[lab], i)
                break
            seen[lab] = i
        if dup is None:
            return x, labels
        i, j = dup
        n = x.shape[i]
        if n is None:
            raise S.ShapeError(f"einsum: the diagonal of repeated label '{labels[i]}' needs "
                               "a static size")
        if x.shape[j] != n:
            raise S.ShapeError(f"einsum: label '{labels[i]}' is repeated with sizes {n} and "
                               f"{x.shape[j]}")
        rest = [k for k in range(x.ndim) if k not in (i, j)]
        x = O.transpose(x, rest + [i, j])
        lead = [x.shape[k] for k in range(len(rest))]
        x = O.reshape(x, lead + [n * n])
        x = O.slice(x, [0] * len(lead) + [0], _static(lead) + [n * n],
                    [1] * len(lead) + [n + 1])
        labels = [labels[k] for k in rest] + [labels[i]]


def _static(lead):
    if any(d is None for d in lead):
        raise S.ShapeError("einsum: a diagonal needs static sizes for the other dims")
    return list(lead)


def _permute(x: Tensor, labels: list, order: list):
    perm = [labels.index(lab) for lab in order]
    if perm != list(range(len(perm))):
        x = O.transpose(x, perm)
    return x


def _prod(sizes):
    if any(s is None for s in sizes):
        return None
    return math.prod(sizes)


def _group_shape(sizes, what):
    """The size of dims merged into one (``None`` only for a single dynamic dim)."""
    if len(sizes) == 1:
        return sizes[0]
    total = _prod(sizes)
    if total is None:
        raise S.ShapeError(f"einsum: {what} dims {list(sizes)} must be static to be merged")
    return total


def _sum_out(x, labels, keep):
    axes = [i for i, lab in enumerate(labels) if lab not in keep]
    if not axes:
        return x, labels
    return O.sum(x, axis=axes), [lab for lab in labels if lab in keep]


def _broadcast_to(x, labels, sizes):
    target = [sizes[lab] for lab in labels]
    if list(x.shape) != target:
        x = O.broadcast_to(x, target)
    return x


def _contract(a, la, b, lb, keep, sizes):
    """``a`` (labels ``la``) times ``b`` (``lb``) summed over the shared labels not in
    ``keep``; returns ``(result, labels)``."""
    a, la = _sum_out(a, la, keep | set(lb))
    b, lb = _sum_out(b, lb, keep | set(la))
    batch = [lab for lab in la if lab in lb and lab in keep]
    contracted = [lab for lab in la if lab in lb and lab not in keep]
    m = [lab for lab in la if lab not in lb]
    n = [lab for lab in lb if lab not in la]
    a = _broadcast_to(a, la, {lab: sizes[lab] if lab in lb else a.shape[la.index(lab)]
                              for lab in la})
    b = _broadcast_to(b, lb, {lab: sizes[lab] if lab in la else b.shape[lb.index(lab)]
                              for lab in lb})
    bsz = [sizes[lab] for lab in batch]
    msz = [sizes[lab] for lab in m]
    nsz = [sizes[lab] for lab in n]
    if not contracted or (not m and not n):
        # outer product / elementwise product: one broadcast multiply (then a sum)
        a2 = _permute(a, la, batch + m + contracted)
        b2 = _permute(b, lb, batch + n + contracted)
        a2 = O.reshape(a2, bsz + msz + [1] * len(n) + [sizes[c] for c in contracted])
        b2 = O.reshape(b2, bsz + [1] * len(m) + nsz + [sizes[c] for c in contracted])
        y = O.mul(a2, b2)
        out = batch + m + n
        if contracted:
            first = len(out)
            y = O.sum(y, axis=list(range(first, first + len(contracted))))
        return y, out
    ksz = [sizes[lab] for lab in contracted]
    a2 = _permute(a, la, batch + m + contracted)
    b2 = _permute(b, lb, batch + contracted + n)
    bg = [_group_shape(bsz, "batch")] if batch else []
    mg = _group_shape(msz, "kept") if m else 1
    ng = _group_shape(nsz, "kept") if n else 1
    kg = _group_shape(ksz, "contracted")
    a3 = O.reshape(a2, bg + [mg, kg])
    b3 = O.reshape(b2, bg + [kg, ng])
    y = O.matmul(a3, b3)
    y = O.reshape(y, bsz + msz + nsz)
    return y, batch + m + n


@O._user_errors
def einsum(spec: str, *operands):
    """numpy / torch ``einsum``: ``einsum("ij,jk->ik", a, b)``, ``"bhqd,bhkd->bhqk"``,
    ``"i,i->"``, ``"ij->ji"``, ``"ii->i"`` (diagonals), ``"...ij,...jk->...ik"``; without
    ``->`` the result has the labels that occur once, in alphabetical order (numpy's
    rule). Operands share a dtype (f32, f16, bf16 or i32)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise S.ShapeError("einsum: needs at least one operand")
    _, tensors = O._as_tensors(*operands)
    terms, out = _parse(spec, len(tensors))
    labels = [_expand_ellipsis(t, x.ndim, i, spec) for i, (t, x) in enumerate(
        zip(terms, tensors, strict=True))]
    ell_dims = builtins.max((builtins.sum(1 for lab in ls if isinstance(lab, tuple))
                             for ls in labels), default=0)
    if out is None:
        counts = {}
        for ls in labels:
            for lab in ls:
                if isinstance(lab, str):
                    counts[lab] = counts.get(lab, 0) + 1
        out_labels = [(".", ell_dims - j) for j in range(ell_dims)] + sorted(
            lab for lab, c in counts.items() if c == 1)
    else:
        seen = set()
        for lab in out:
            if lab in seen:
                raise S.ShapeError(f"einsum: '{spec}': output label '{lab}' appears twice")
            seen.add(lab)
        out_labels = []
        for lab in out:
            if lab == _ELL:
                out_labels += [(".", ell_dims - j) for j in range(ell_dims)]
            else:
                if not any(lab in ls for ls in labels):
                    raise S.ShapeError(f"einsum: '{spec}': output label '{lab}' is not in "
                                       "any operand")
                out_labels.append(lab)
    # sizes of each label, checked across operands (size-1 ellipsis dims broadcast)
    sizes: dict = {}
    for i, (x, ls) in enumerate(zip(tensors, labels, strict=True)):
        for lab, size in zip(ls, x.shape, strict=True):
            if lab not in sizes:
                sizes[lab] = size
                continue
            old = sizes[lab]
            if old == size or isinstance(lab, tuple) and size == 1:
                continue
            if isinstance(lab, tuple) and old == 1 or old is None:
                sizes[lab] = size
            elif size is not None:
                name = "'...'" if isinstance(lab, tuple) else f"'{lab}'"
                raise S.ShapeError(f"einsum: '{spec}': label {name} has size {old} in one "
                                   f"operand and {size} in operand {i}")
    keep_final = set(out_labels)
    # diagonals first, then contract left to right
    items = [_diagonal(x, list(ls)) for x, ls in zip(tensors, labels, strict=True)]
    x, lx = items[0]
    for k in range(1, len(items)):
        later = set(keep_final)
        for _, ls in items[k + 1:]:
            later |= set(ls)
        y, ly = items[k]
        x, lx = _contract(x, lx, y, ly, later, sizes)
    x, lx = _sum_out(x, lx, keep_final)
    return _permute(x, lx, out_labels)
