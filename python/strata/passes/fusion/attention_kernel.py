"""The fused attention loop nest that strata-attention puts in place of the unfused ops.

``kernel_text(shape, tiles, ...)`` is a ``func.func`` on tensors computing
``softmax(Q Kᵀ · scale [masked]) V`` for ``H`` heads (Q: H x SQ x D, Kᵀ: H x D x SK,
V: H x SK x DV) with an online softmax: no SQ x SK intermediate exists. The pass
parses it and moves its body in place of the matched ops (``splice_kernel``). It
takes Kᵀ, the scores matmul's right operand as the user's program made it (a
transpose of K, or a head-splitting transpose that also puts D before SK).

    scf.forall (%h, %t) in (H, SQ / BQ)                      // scf.for nest when threads = 1
      %q = Q[h, t*BQ : +BQ, :] * scale                       // BQ x D
      scf.for %kb iter_args(%m = -inf, %l = 0, %acc = 0) {   // key tiles of BK
        %s  = linalg.matmul %q, %kt[h, :, kb*BK : +BK]       // BQ x BK
        %m' = max(%m, rowmax %s)          %p = exp(%s - %m')
        %a  = exp(%m - %m')               %l' = %a * %l + rowsum %p
        %acc' = linalg.matmul %p, V[h, kb*BK : +BK, :] outs(%a * %acc)
      }
      O[h, t*BQ : +BQ, :] = %acc / %l

Every tile has a static shape: a remainder query tile (SQ % BQ rows) and a
remainder key tile (SK % BK keys) get their own copies of the body, so the
matmuls and row reductions on tiles are vectorized by strata-vectorize like any
other static op. ``causal``: query row i sees keys j <= i; key tiles wholly
past a query tile's last row are skipped, and the tiles that cross the diagonal
are masked with ``-inf`` (row 0 always sees key 0, so every row max is finite).
Both exponentials take arguments <= 0 (``s - m'``, ``m - m'``): their ``math.exp``
carries ``strata.nonpositive``, which strata-expand-math expands more cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AttentionShape", "Layout", "Mask", "kernel_text"]


@dataclass(frozen=True)
class AttentionShape:
    heads: int
    sq: int
    sk: int
    d: int
    dv: int


@dataclass(frozen=True)
class Layout:
    """Where Q, V and the output live. Those named in ``views`` are (H / NH) x rows x NH
    x cols with NH = ``split``: PyTorch's (batch, seq, heads, dim) before the transpose that
    makes heads first (and after the one that undoes it, for the output). The kernel
    reads and writes them there, so neither transposed copy is made. The others (all,
    by default) are H x rows x cols."""

    split: int = 0
    views: frozenset = frozenset()  # of "q", "v", "o"

    def type(self, which: str, s: AttentionShape, rows: int, cols: int) -> str:
        if which in self.views:
            return _t(s.heads // self.split, rows, self.split, cols)
        return _t(s.heads, rows, cols)

    def at(self, which: str, head: tuple, r0: str, rows: int, cols: int) -> str:
        """Offsets, sizes and strides of rows ``r0 ..< r0 + rows`` of ``head`` (h, its
        batch, its head within the batch)."""
        h, b, n = head
        if which in self.views:
            return f"[{b}, {r0}, {n}, 0] [1, {rows}, 1, {cols}] [1, 1, 1, 1]"
        return f"[{h}, {r0}, 0] [1, {rows}, {cols}] [1, 1, 1]"


@dataclass(frozen=True)
class Mask:
    """A runtime SQ x SK mask of ``element`` type (``i1`` or an integer holding a bool)
    shared by every head: a key is masked out (its score made -inf) where the mask is
    nonzero (``where=True``) or zero (``where=False``). A row may then see no key in a
    tile, or at all: the exponentials are guarded so that such a tile adds nothing (a
    row masked everywhere ends 0 / 0, as an unfused softmax of all -inf does)."""

    element: str
    where: bool

    def type(self, s: AttentionShape) -> str:
        return f"tensor<{s.sq}x{s.sk}x{self.element}>"


def _f(x: float) -> str:
    return f"{float(x):.9e}"


class _Writer:
    def __init__(self):
        self.lines: list[str] = []
        self.n = 0

    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"%{stem}{self.n}"

    def __call__(self, line: str) -> None:
        self.lines.append(line)


_T = "tensor<{}xf32>"


def _t(*dims) -> str:
    return _T.format("x".join(str(d) for d in dims)) if dims else "tensor<f32>"


def _step(w: _Writer, s: AttentionShape, layout: Layout, bq: int, bk: int, q: str,
          head: tuple, k0: str, q0: str | None, m: str, l: str, acc: str,
          causal: bool, mask: Mask | None = None) -> tuple[str, str, str]:
    """One key tile of BK keys starting at ``k0`` for the BQ x D query tile ``q``:
    returns the new (m, l, acc). ``q0`` (with ``causal``) masks keys past each row."""
    kts, vs = w.fresh("kt"), w.fresh("v")
    w(f"{kts} = tensor.extract_slice %kT[{head[0]}, 0, {k0}] [1, {s.d}, {bk}] [1, 1, 1] : "
      f"{_t(s.heads, s.d, s.sk)} to {_t(s.d, bk)}")
    w(f"{vs} = tensor.extract_slice %vIn{layout.at('v', head, k0, bk, s.dv)} : "
      f"{layout.type('v', s, s.sk, s.dv)} to {_t(bk, s.dv)}")
    se, sz, sm = w.fresh("se"), w.fresh("sz"), w.fresh("s")
    w(f"{se} = tensor.empty() : {_t(bq, bk)}")
    w(f"{sz} = linalg.fill ins(%zero : f32) outs({se} : {_t(bq, bk)}) -> {_t(bq, bk)}")
    w(f"{sm} = linalg.matmul ins({q}, {kts} : {_t(bq, s.d)}, {_t(s.d, bk)}) "
      f"outs({sz} : {_t(bq, bk)}) -> {_t(bq, bk)}")
    if causal:
        masked = w.fresh("sm")
        w(f"{masked} = linalg.generic {{indexing_maps = [#id2, #id2], iterator_types = "
          f"[\"parallel\", \"parallel\"]}} ins({sm} : {_t(bq, bk)}) outs({se} : {_t(bq, bk)}) {{")
        w("^bb0(%x: f32, %o: f32):")
        w("  %i = linalg.index 0 : index")
        w("  %j = linalg.index 1 : index")
        w(f"  %qi = arith.addi %i, {q0} : index")
        w(f"  %kj = arith.addi %j, {k0} : index")
        w("  %past = arith.cmpi ugt, %kj, %qi : index")
        w("  %y = arith.select %past, %ninf, %x : f32")
        w("  linalg.yield %y : f32")
        w(f"}} -> {_t(bq, bk)}")
        sm = masked
    if mask is not None:
        mt, masked = w.fresh("mt"), w.fresh("sk")
        tile = f"tensor<{bq}x{bk}x{mask.element}>"
        w(f"{mt} = tensor.extract_slice %mIn[{q0}, {k0}] [{bq}, {bk}] [1, 1] : {mask.type(s)} "
          f"to {tile}")
        w(f"{masked} = linalg.generic {{indexing_maps = [#id2, #id2, #id2], iterator_types = "
          f"[\"parallel\", \"parallel\"]}} ins({sm}, {mt} : {_t(bq, bk)}, {tile}) "
          f"outs({se} : {_t(bq, bk)}) {{")
        w(f"^bb0(%x: f32, %b: {mask.element}, %o: f32):")
        c = "%b"
        if mask.element != "i1":
            c = "%c"
            w(f"  %c = arith.cmpi ne, %b, %zero_{mask.element} : {mask.element}")
        w(f"  %y = arith.select {c}, %ninf, %x : f32" if mask.where else
          f"  %y = arith.select {c}, %x, %ninf : f32")
        w("  linalg.yield %y : f32")
        w(f"}} -> {_t(bq, bk)}")
        sm = masked
    mx = w.fresh("mx")
    w(f"{mx}f = linalg.fill ins(%ninf : f32) outs(%rowE{bq} : {_t(bq)}) -> {_t(bq)}")
    w(f"{mx} = linalg.generic {{indexing_maps = [#id2, #row], iterator_types = "
      f"[\"parallel\", \"reduction\"]}} ins({sm} : {_t(bq, bk)}) outs({mx}f : {_t(bq)}) {{")
    w("^bb0(%x: f32, %r: f32):")
    w("  %a = arith.maxnumf %x, %r : f32")
    w("  linalg.yield %a : f32")
    w(f"}} -> {_t(bq)}")
    # m' = max(m, rowmax), alpha = exp(m - m'), alpha * l: m and l are updated in place
    # (the loop's yields must be equivalent to its iter_args for one-shot-bufferize)
    al = w.fresh("al")
    w(f"{al}:3 = linalg.generic {{indexing_maps = [#id1, #id1, #id1, #id1], "
      f"iterator_types = [\"parallel\"]}} ins({mx} : {_t(bq)}) "
      f"outs({m}, %rowE{bq}, {l} : {_t(bq)}, {_t(bq)}, {_t(bq)}) {{")
    w("^bb0(%mx: f32, %mo: f32, %o: f32, %lo: f32):")
    w("  %mn = arith.maxnumf %mo, %mx : f32")
    if mask is None:
        w("  %d = arith.subf %mo, %mn : f32")
    else:  # no key seen yet: -inf - -inf; l and acc are 0, so any finite factor will do
        w("  %d0 = arith.subf %mo, %mn : f32")
        w("  %none = arith.cmpf oeq, %mn, %ninf : f32")
        w("  %d = arith.select %none, %zero, %d0 : f32")
    w("  %a = math.exp %d {strata.nonpositive} : f32")
    w("  %ls = arith.mulf %a, %lo : f32")
    w("  linalg.yield %mn, %a, %ls : f32, f32, f32")
    w(f"}} -> ({_t(bq)}, {_t(bq)}, {_t(bq)})")
    mn = f"{al}#0"
    p = w.fresh("p")
    w(f"{p} = linalg.generic {{indexing_maps = [#id2, #row, #id2], iterator_types = "
      f"[\"parallel\", \"parallel\"]}} ins({sm}, {mn} : {_t(bq, bk)}, {_t(bq)}) "
      f"outs({se} : {_t(bq, bk)}) {{")
    w("^bb0(%x: f32, %mx: f32, %o: f32):")
    if mask is None:
        w("  %d = arith.subf %x, %mx : f32")
    else:  # a row that sees no key of this tile: -inf - -inf; exp(-inf) = 0 instead
        w("  %d0 = arith.subf %x, %mx : f32")
        w("  %none = arith.cmpf oeq, %mx, %ninf : f32")
        w("  %d = arith.select %none, %ninf, %d0 : f32")
    w("  %e = math.exp %d {strata.nonpositive} : f32")
    w("  linalg.yield %e : f32")
    w(f"}} -> {_t(bq, bk)}")
    ln = w.fresh("ln")
    w(f"{ln} = linalg.generic {{indexing_maps = [#id2, #row], iterator_types = "
      f"[\"parallel\", \"reduction\"]}} ins({p} : {_t(bq, bk)}) outs({al}#2 : {_t(bq)}) {{")
    w("^bb0(%x: f32, %r: f32):")
    w("  %a = arith.addf %x, %r : f32")
    w("  linalg.yield %a : f32")
    w(f"}} -> {_t(bq)}")
    accs, accn = w.fresh("accs"), w.fresh("accn")
    w(f"{accs} = linalg.generic {{indexing_maps = [#row, #id2], iterator_types = "
      f"[\"parallel\", \"parallel\"]}} ins({al}#1 : {_t(bq)}) "
      f"outs({acc} : {_t(bq, s.dv)}) {{")
    w("^bb0(%a: f32, %x: f32):")
    w("  %y = arith.mulf %x, %a : f32")
    w("  linalg.yield %y : f32")
    w(f"}} -> {_t(bq, s.dv)}")
    w(f"{accn} = linalg.matmul ins({p}, {vs} : {_t(bq, bk)}, {_t(bk, s.dv)}) "
      f"outs({accs} : {_t(bq, s.dv)}) -> {_t(bq, s.dv)}")
    return mn, ln, accn


def _query_tile(w: _Writer, s: AttentionShape, layout: Layout, bq: int, bk: int, head: tuple,
                q0: str, scale: float, causal: bool, mask: Mask | None = None) -> str:
    """The BQ x DV output tile of the query rows ``q0 ..< q0 + BQ`` of ``head``."""
    qs, qsc = w.fresh("qs"), w.fresh("q")
    w(f"%rowE{bq} = tensor.empty() : {_t(bq)}")
    w(f"%accE{bq} = tensor.empty() : {_t(bq, s.dv)}")
    w(f"{qs} = tensor.extract_slice %qIn{layout.at('q', head, q0, bq, s.d)} : "
      f"{layout.type('q', s, s.sq, s.d)} to {_t(bq, s.d)}")
    qe = w.fresh("qe")
    w(f"{qe} = tensor.empty() : {_t(bq, s.d)}")
    w(f"{qsc} = linalg.generic {{indexing_maps = [#id2, #id2], iterator_types = "
      f"[\"parallel\", \"parallel\"]}} ins({qs} : {_t(bq, s.d)}) outs({qe} : {_t(bq, s.d)}) {{")
    w("^bb0(%x: f32, %o: f32):")
    w("  %y = arith.mulf %x, %scale : f32")
    w("  linalg.yield %y : f32")
    w(f"}} -> {_t(bq, s.d)}")
    m0, l0, a0 = w.fresh("m"), w.fresh("l"), w.fresh("acc")
    w(f"{m0} = linalg.fill ins(%ninf : f32) outs(%rowE{bq} : {_t(bq)}) -> {_t(bq)}")
    w(f"{l0} = linalg.fill ins(%zero : f32) outs(%rowE{bq} : {_t(bq)}) -> {_t(bq)}")
    w(f"{a0} = linalg.fill ins(%zero : f32) outs(%accE{bq} : {_t(bq, s.dv)}) -> {_t(bq, s.dv)}")
    state = (m0, l0, a0)
    n_full = s.sk // bk
    if causal:
        # keys < q0 + bq may be seen: tiles [0, ceil((q0 + bq) / bk)) clipped to the full ones,
        # all masked against the diagonal (the mask is a select per score; tiles below the
        # diagonal pass through it unchanged).
        hi = w.fresh("hi")
        w(f"{hi} = affine.min affine_map<(d0) -> ((d0 + {bq + bk - 1}) floordiv {bk}, "
          f"{n_full})>({q0})")
        bound = hi
    else:
        bound = f"%nk{bk}"
        w(f"{bound} = arith.constant {n_full} : index")
    if n_full:
        kb, res = w.fresh("kb"), w.fresh("r")
        m, l, a = w.fresh("mi"), w.fresh("li"), w.fresh("ai")
        w(f"{res}:3 = scf.for {kb} = %c0 to {bound} step %c1 iter_args({m} = {state[0]}, "
          f"{l} = {state[1]}, {a} = {state[2]}) -> ({_t(bq)}, {_t(bq)}, {_t(bq, s.dv)}) {{")
        k0 = w.fresh("k0")
        w(f"{k0} = arith.muli {kb}, %cbk{bk} : index")
        out = _step(w, s, layout, bq, bk, qsc, head, k0, q0, m, l, a, causal, mask)
        w(f"scf.yield {out[0]}, {out[1]}, {out[2]} : {_t(bq)}, {_t(bq)}, {_t(bq, s.dv)}")
        w("}")
        state = (f"{res}#0", f"{res}#1", f"{res}#2")
    rk = s.sk % bk
    if rk:  # the last SK % BK keys (with ``causal``, rows that see none of them get p = 0)
        k0 = w.fresh("k0")
        w(f"{k0} = arith.constant {n_full * bk} : index")
        state = _step(w, s, layout, bq, rk, qsc, head, k0, q0, *state, causal, mask)
    o = w.fresh("o")
    w(f"{o} = linalg.generic {{indexing_maps = [#id2, #row, #id2], iterator_types = "
      f"[\"parallel\", \"parallel\"]}} ins({state[2]}, {state[1]} : {_t(bq, s.dv)}, {_t(bq)}) "
      f"outs(%accE{bq} : {_t(bq, s.dv)}) {{")
    w("^bb0(%x: f32, %d: f32, %o: f32):")
    w("  %y = arith.divf %x, %d : f32")
    w("  linalg.yield %y : f32")
    w(f"}} -> {_t(bq, s.dv)}")
    return o


def kernel_text(s: AttentionShape, bq: int, bk: int, scale: float, causal: bool = False,
                threads: int = 1, rank: int = 3, name: str = "attention",
                layout: Layout = Layout(), mask: Mask | None = None) -> str:
    """The fused kernel as a ``func.func @name(%q, %kT, %v[, %mask])`` on f32 tensors: 3-d
    (heads first, or as ``layout`` says), or 2-d with ``rank=2`` (one head,
    ``s.heads == 1``); with ``mask``, its SQ x SK mask is a fourth argument."""
    w = _Writer()
    o_type = layout.type("o", s, s.sq, s.dv)
    w("#id1 = affine_map<(d0) -> (d0)>")
    w("#id2 = affine_map<(d0, d1) -> (d0, d1)>")
    w("#row = affine_map<(d0, d1) -> (d0)>")
    shapes = {"qIn": (s.sq, s.d), "kT": (s.d, s.sk), "vIn": (s.sk, s.dv)}
    masked = f", %mIn: {mask.type(s)}" if mask is not None else ""
    if rank == 2:
        w(f"func.func @{name}(%qIn2: {_t(*shapes['qIn'])}, %kT2: {_t(*shapes['kT'])}, "
          f"%vIn2: {_t(*shapes['vIn'])}{masked}) -> {_t(s.sq, s.dv)} {{")
        for n, shape in shapes.items():
            w(f"%{n} = tensor.expand_shape %{n}2 [[0, 1], [2]] output_shape [1, {shape[0]}, "
              f"{shape[1]}] : {_t(*shape)} into {_t(1, *shape)}")
    else:
        w(f"func.func @{name}(%qIn: {layout.type('q', s, *shapes['qIn'])}, "
          f"%kT: {_t(s.heads, *shapes['kT'])}, %vIn: {layout.type('v', s, *shapes['vIn'])}"
          f"{masked}) -> {o_type} {{")
    if mask is not None and mask.element != "i1":
        w(f"%zero_{mask.element} = arith.constant 0 : {mask.element}")
    w("%c0 = arith.constant 0 : index")
    w("%c1 = arith.constant 1 : index")
    w("%zero = arith.constant 0.000000e+00 : f32")
    w("%ninf = arith.constant 0xFF800000 : f32")
    w(f"%scale = arith.constant {_f(scale)} : f32")
    for b in sorted({bk, s.sk % bk} - {0}):
        w(f"%cbk{b} = arith.constant {b} : index")
    w(f"%out0 = tensor.empty() : {o_type}")
    out = "%out0"
    n_full, rq = s.sq // bq, s.sq % bq
    for rows, count, first in ((bq, n_full, 0), (rq, 1 if rq else 0, n_full * bq)):
        if not count:
            continue
        res = w.fresh("res")
        if threads > 1:
            h, t, dst = w.fresh("h"), w.fresh("t"), w.fresh("dst")
            w(f"{res} = scf.forall ({h}, {t}) in ({s.heads}, {count}) shared_outs({dst} = {out}) "
              f"-> ({o_type}) {{")
        else:
            h, t, dst, dst2, inner = (w.fresh("h"), w.fresh("t"), w.fresh("dst"), w.fresh("dst"),
                                      w.fresh("in"))
            w(f"%nh{res[1:]} = arith.constant {s.heads} : index")
            w(f"%nt{res[1:]} = arith.constant {count} : index")
            w(f"{res} = scf.for {h} = %c0 to %nh{res[1:]} step %c1 iter_args({dst} = {out}) "
              f"-> ({o_type}) {{")
            w(f"{inner} = scf.for {t} = %c0 to %nt{res[1:]} step %c1 iter_args({dst2} = {dst}) "
              f"-> ({o_type}) {{")
        q0 = w.fresh("q0")
        w(f"{q0} = affine.apply affine_map<(d0) -> (d0 * {rows} + {first})>({t})")
        head = (h, None, None)
        if layout.views:
            head = (h, w.fresh("b"), w.fresh("n"))
            w(f"{head[1]} = affine.apply affine_map<(d0) -> (d0 floordiv {layout.split})>({h})")
            w(f"{head[2]} = affine.apply affine_map<(d0) -> (d0 mod {layout.split})>({h})")
        tile = _query_tile(w, s, layout, rows, bk, head, q0, scale, causal, mask)
        where = layout.at("o", head, q0, rows, s.dv)
        if threads > 1:
            w("scf.forall.in_parallel {")
            w(f"tensor.parallel_insert_slice {tile} into {dst}{where} : {_t(rows, s.dv)} into "
              f"{o_type}")
            w("}")
            w("}")
        else:
            ins = w.fresh("ins")
            w(f"{ins} = tensor.insert_slice {tile} into {dst2}{where} : {_t(rows, s.dv)} into "
              f"{o_type}")
            w(f"scf.yield {ins} : {o_type}")
            w("}")
            w(f"scf.yield {inner} : {o_type}")
            w("}")
        out = res
    if rank == 2:
        w(f"%out2 = tensor.collapse_shape {out} [[0, 1], [2]] : {o_type} into {_t(s.sq, s.dv)}")
        w(f"func.return %out2 : {_t(s.sq, s.dv)}")
    else:
        w(f"func.return {out} : {o_type}")
    w("}")
    return "\n".join(w.lines)
