"""strata-fuse: decide what to fuse with a cost model, fuse it, and say why.

Two kinds of fusion on linalg on tensors:

1. Elementwise producer -> consumer: an all-parallel linalg.generic is merged
   into the linalg.generic that uses it (chains of any length collapse into one
   loop nest; broadcasts become composed indexing maps):

       %a = linalg.generic {parallel} ins(%x, %bias) { addf }     // x + bias
       %b = linalg.generic {parallel} ins(%a) { maximumf }        // relu
     =>
       %b = linalg.generic {parallel} ins(%x, %bias) { addf; maximumf }

2. Epilogue tile-and-fuse: a linalg.matmul / batch_matmul / conv whose only user
   is an elementwise generic (bias, activation, residual, cast) becomes one tiled
   loop nest that computes the epilogue on each output tile while it is hot
   (``transform.structured.fuse``):

       %m = linalg.matmul ins(%x, %w) outs(%zero)
       %e = linalg.generic {parallel} ins(%m, %bias) { addf; maximumf }
     =>
       scf.for %i, %j { fill; linalg.matmul on the tile; linalg.generic on the tile }

   A conv's im2col matmul (strata-conv-to-matmul) gets output tiles of whole
   rows of pixels, and each tile then copies its own input windows inside the loop
   (passes/fusion/im2col.py): the K x pixels matrix is never materialized (the
   ResNet 3x3 64-channel 56x56 conv + relu, 2 threads: 1.68 -> 1.42 ms). Such a
   matmul with no elementwise epilogue (the conv's result returned, or read by
   several ops) is tiled by itself the same way, its fill fused into each tile:

       %m = linalg.matmul ins(%w, %col_view) outs(fill(0) : tensor<64x3136xf32>)
       return %m
     =>
       scf.forall (%i, %j) { fill the tile; copy the tile's windows; linalg.matmul }

   A conv that strata-vectorize runs direct in register tiles (passes/direct_conv.py)
   gets tiles of whole rows of one image x all its output channels (up to 256), so the
   epilogue writes whole rows, in place into the next conv's padded input once
   eliminate-empty-tensors has made that buffer the destination:

       %c = linalg.conv_2d_nchw_fchw ins(%xp : tensor<4x64x34x34xf32>, %w) outs(fill(0))
       %r = linalg.generic {parallel} ins(%c, %bias) { addf; maximumf }
     =>
       scf.forall (%n, %rows) in (4, 8) { fill; linalg.conv on 1x64x6x34 -> 1x64x4x32;
                                          linalg.generic on the 1x64x4x32 tile }

   Not where the cost model (passes/fusion/blas.py) predicts a large f32 matmul
   faster on strata-vectorize's packed panels (which it uses only outside such
   tiles) with the epilogue as its own loop: the 256x1024x4096 layer of an MLP
   runs 64 ms tiled with its bias + relu and 46 ms packed with them after it (1
   thread). Such a matmul is left alone and the remark says so.

3. Generated code or the tuned library (``blas=auto|always|never``): for each
   f32 linalg.matmul / batch_matmul of static shape, the cost model of
   passes/fusion/blas.py predicts strata's own kernel (with its epilogue tiled
   in, as in 2.) against a call of OpenBLAS's sgemm (the epilogue then stays
   its own loop). A chosen op is marked ``strata.blas``: its epilogue is not
   tiled with it, strata-vectorize leaves it alone and strata-blas (after
   bufferization) turns it into the call. ``always``/``never`` force the
   choice; ``decisions=<key>=on`` forces BLAS for one candidate, ``off`` the
   generated kernel. A matmul inside a loop (a tile of strata-attention's
   kernel) is no candidate: it stays generated code (a call per tile, and
   OpenBLAS's threads nested in an ``scf.forall``'s, cost more than it saves).
   On several threads, a program with more than one contraction keeps them all
   generated: OpenMP's workers (spinning after each parallel loop) and OpenBLAS's
   (spinning after each call) would take the same cores from each other (a stock
   GPT-2 layer pair, 1 x 128 tokens, 2 threads: 184 ms with BLAS calls, 68 ms without):

       %m = linalg.matmul ins(%x, %w : tensor<256x1024xf32>, tensor<1024x4096xf32>) outs(%z)
       %e = linalg.generic {parallel} ins(%m, %bias) { addf; maximumf }
     =>                                                (blas=auto, predicted faster)
       %m = linalg.matmul {strata.blas} ins(%x, %w ...) outs(%z)
       %e = linalg.generic {parallel} ins(%m, %bias) { addf; maximumf }

The cost model (passes/fusion/model.py) refuses a fusion that recomputes more
than it saves: an expensive producer with several users (it stays computed
once), a producer broadcast into a much larger iteration space, or a fused
body over ``max-fused-ops`` ops. With ``report=true`` every decision is a
remark at the consumer's location naming both ops, the decision and why.
Ops that a refused decision leaves apart are never merged by later passes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects.transform import structured

from ..codegen.transform import ScriptError, Tags, match_tagged
from ..errors import format_location
from .base import Pass, collect_ops, in_loop, option, threads_option
from .direct_conv import plan, tile_rows
from .fusion.blas import estimate as blas_estimate
from .fusion.im2col import localize as localize_im2col
from .fusion.im2col import row_width as im2col_row_width
from .fusion.merge import is_elementwise_producer, merge_into, n_inputs, same_fused_maps
from .fusion.model import body_cost, edge_cost, loop_ranges
from .tuning import PATTERN as TUNED_PATTERN
from .tuning import matmul_signature, parse_tuned
from .vectorize import DOT_ROWS

__all__ = ["FusePass", "describe", "blas_sizes", "contraction_maps", "BLAS_MARK"]

BLAS_MODES = ("auto", "always", "never")
BLAS_MARK = "strata.blas"  # on a contraction that strata-blas turns into a BLAS call
_CONTRACTIONS = ("linalg.matmul", "linalg.batch_matmul", "linalg.conv_2d_nchw_fchw",
                 "linalg.conv_2d_nhwc_hwcf")


def describe(op) -> str:
    """``linalg.generic at model.py:12:5`` — the op and the user's line it came from."""
    return f"{op.name} at {format_location(op.location)}"


def _users(value):
    users = []
    for use in value.uses:
        owner = use.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        if not any(u == owner for u in users):
            users.append(owner)
    return users


def _collect(module, names):
    return collect_ops(module, lambda op: op.name in names)


@dataclass(frozen=True, eq=False, repr=False)
class FusePass(Pass):
    """Fuse elementwise chains and matmul/conv epilogues where the cost model says it pays."""

    name = "strata-fuse"
    elementwise: bool = option(True, help="Merge elementwise producers into their consumers")
    epilogue: bool = option(True, help="Tile matmuls and convs with their elementwise epilogue")
    max_fused_ops: int = option(16, min=1, help="Most ops in one fused body")
    max_recompute: float = option(1.0, min=0.0, help="Most recomputation a fusion may add, relative to the bytes it saves")
    # tile-m/n = strata-vectorize cache tile: the tiled matmul vectorizes
    tile_m: int = option(64, min=1, help="Rows of an epilogue-fused output tile")
    tile_n: int = option(128, min=1, help="Columns of an epilogue-fused output tile")
    report: bool = option(False, help="Report every decision as a remark")
    # "key=off,key=on" overrides by candidate key (measure mode)
    decisions: str = option("", pattern=r"([0-9a-f]+=(on|off)(,[0-9a-f]+=(on|off))*)?",
                            form="<key>=on|off,...",
                            help="Decisions forced by key (from a report), overriding the model")
    threads: int = threads_option()
    # an scf.forall of output tiles pays from ~8 MFLOP (fusion/blas.py's
    # FUSED_PARALLEL_FLOPS; a 1x1 conv 64 -> 64 at 56x56, 26 MFLOP: 289 -> 175 us)
    parallel_flops: int = option(1 << 23, min=1, help="Fewest flops of a fused matmul run on threads")
    im2col_parallel_flops: int = option(1 << 23, min=1, help="Fewest flops of a conv's im2col matmul (its tiles copy their own windows) run on threads")
    blas: str = option("never", choices=BLAS_MODES,
                       help="Matmuls as OpenBLAS calls: auto (the cost model), always, never")
    tuned: str = option("", pattern=TUNED_PATTERN, form="SIG:KNOBS[,SIG:KNOBS] (passes/tuning.py)",
                        help="Per-matmul choices of autotuning: with blas=auto, a blas1/blas0 knob overrides the cost model")

    def note(self, op, text):
        if self.report:
            self.remark(op, f"strata-fuse: {text}")

    def _overrides(self):
        out = {}
        for part in filter(None, self.decisions.split(",")):
            k, _, v = part.partition("=")
            out[k] = v
        return out

    def run(self, module: ir.Operation) -> None:
        object.__setattr__(self, "_refused", [])
        object.__setattr__(self, "_seen", {})
        overrides = self._overrides()
        if self.elementwise:
            while self._fuse_one(module, overrides):
                pass
        if self.blas != "never":
            self._choose_blas(module, overrides)
        if self.epilogue:
            self._epilogues(module, overrides)

    # -- elementwise -----------------------------------------------------------------
    def _next_candidate(self, overrides, producer, consumer):
        """A stable key for the edge (its ops and source lines) and any override for it."""
        text = f"{describe(producer)}|{producer.results[0].type}|{describe(consumer)}"
        # Ops from one source line (a decomposed softmax) can make edges that read the
        # same: number the repeats in decision order so each candidate has its own key.
        repeat = self._seen.get(text, 0)
        self._seen[text] = repeat + 1
        if repeat:
            text += f"#{repeat}"
        return self._key(text, overrides)

    def _key(self, text, overrides):
        key = hashlib.sha1(text.encode()).hexdigest()[:8]
        return key, overrides.get(key)

    def _fuse_one(self, module, overrides) -> bool:
        for consumer in _collect(module, ("linalg.generic",)):
            ins = list(consumer.operands)[:n_inputs(consumer)]
            for value in ins:
                producer = value.owner
                producer = producer.operation if hasattr(producer, "operation") else None
                if producer is None or getattr(producer, "name", "") != "linalg.generic":
                    continue
                if any(p == producer and c == consumer for p, c in self._refused):
                    continue
                if not is_elementwise_producer(producer) or not same_fused_maps(producer,
                                                                                consumer):
                    continue
                users = _users(producer.results[0])
                decision, why = self._decide(producer, consumer, len(users))
                number, forced = self._next_candidate(overrides, producer, consumer)
                if forced == "off":
                    decision, why = False, "disabled by the measured decision"
                elif forced == "on":
                    decision, why = True, "enabled by the measured decision"
                if not decision:
                    self.note(consumer, f"[{number}] not fusing {describe(producer)} into "
                                        f"{describe(consumer)}: {why}")
                    self._refused.append((producer, consumer))
                    continue
                self.note(consumer, f"[{number}] fused {describe(producer)} into "
                                    f"{describe(consumer)}: {why}")
                fused = merge_into(producer, consumer)
                for old, new in zip(consumer.results, fused.results, strict=True):
                    old.replace_all_uses_with(new)
                producer_dies = all(u == consumer for u in _users(producer.results[0]))
                # Refusals name ops that are about to be erased: the fused op takes the
                # consumer's place; pairs through a dead producer are gone. (Comparing with
                # an erased op raises, and a refused edge must stay refused.)
                self._refused[:] = [
                    (fused if p == consumer else p, fused if c == consumer else c)
                    for p, c in self._refused
                    if not (producer_dies and (p == producer or c == producer))]
                consumer.erase()
                if producer_dies:
                    producer.erase()
                return True
        return False

    def _decide(self, producer, consumer, users):
        size = body_cost(producer) + body_cost(consumer)
        # The producer's linalg.yield does not survive the merge.
        n_ops = len(producer.regions[0].blocks[0].operations) - 1 + \
            len(consumer.regions[0].blocks[0].operations)
        if n_ops > self.max_fused_ops:
            return False, f"the fused body would have {n_ops} ops (limit {self.max_fused_ops})"
        cost = edge_cost(producer, consumer, users)
        if cost is None:
            if users == 1:
                return True, "single use (dynamic shapes: no cost estimate)"
            return False, f"{users} users and dynamic shapes: recomputation cost unknown"
        if cost.recompute_factor > self.max_recompute and cost.producer_cost > 0.5:
            return False, (f"broadcasts into a {cost.recompute_factor:.0f}x larger iteration "
                           f"space: recomputes {cost.extra_work:.0f} to save "
                           f"{cost.saved_bytes:.0f} bytes")
        if cost.benefit <= 0:
            return False, (f"{users} user{'s' if users > 1 else ''}; recomputing costs {cost.extra_work:.0f}, "
                           f"not less than the {cost.saved_bytes:.0f} bytes it saves")
        what = "single use" if users == 1 else f"{users} users, cheap to recompute"
        del size
        return True, f"{what}; saves {cost.saved_bytes:.0f} bytes of intermediates"

    # -- epilogues -------------------------------------------------------------------
    def _epilogues(self, module, overrides):
        with Tags(module) as tags:
            self._tile_epilogues(module, overrides, tags)
        # a conv's im2col matrix: each output tile copies its own windows, in cache
        for copy, shape, whole in localize_im2col(module):
            tile = "x".join(map(str, shape))
            self.note(copy, f"each output tile copies its own im2col windows ({tile}) "
                            f"while they stay in cache; the {'x'.join(map(str, whole))} "
                            f"matrix is not materialized")

    def _tile_epilogues(self, module, overrides, tags):
        roots = []
        for producer in _collect(module, _CONTRACTIONS):
            if BLAS_MARK in producer.attributes:
                continue  # a BLAS call: its epilogue stays its own loop (see _choose_blas)
            users = _users(producer.results[0])
            if not (len(users) == 1 and users[0].name == "linalg.generic" and
                    is_elementwise_producer(users[0])):
                if len(users) > 1:
                    self.note(producer, f"not tiling {describe(producer)} with its epilogue: "
                                        f"{len(users)} users (it is computed once)")
                self._tile_bare_im2col(producer, roots, tags)
                continue
            consumer = users[0]
            sizes = loop_ranges(consumer)
            if any(s is None for s in sizes):
                self.note(consumer, "not tiling the epilogue: dynamic shapes")
                continue
            if 0 in sizes:
                self.note(consumer, "not tiling the epilogue: it has no elements")
                continue
            unfuse = _packed_unfused(producer, self.threads)
            if unfuse is not None:
                self.note(consumer, f"not tiling {describe(consumer)} with "
                                    f"{describe(producer)}: {unfuse}")
                continue
            row = im2col_row_width(producer)
            tiles = _direct_conv_tiles(producer, sizes) or \
                _tiles(sizes, self.tile_m, self.tile_n, row)
            number, forced = self._next_candidate(overrides, producer, consumer)
            if forced == "off":
                self.note(consumer, f"[{number}] not fusing {describe(producer)} into "
                                    "its epilogue: disabled by the measured decision")
                continue
            self.note(consumer, f"[{number}] tiled {describe(consumer)} by {tiles} with "
                                f"{describe(producer)} fused into each tile: the epilogue "
                                f"runs on the tile while it is in cache")
            i = len(roots)
            tags.add(consumer, f"strata.fuse_root_{i}")
            parallel, fill = self._parallel_tiles(producer, sizes, tiles, row, tags, i)
            if parallel:
                tags.add(producer, f"strata.fuse_producer_{i}")
            roots.append((tiles, parallel, fill, True))
        for i, (tiles, parallel, fill, epilogue) in enumerate(roots):
            if not epilogue:
                schedule, what = _bare_contraction(i, tiles, parallel, fill), "contraction"
            else:
                schedule = (_parallel_epilogue(i, tiles, fill) if parallel
                            else _epilogue(i, tiles))
                what = "epilogue"
            try:
                tags.apply(schedule)
            except ScriptError as e:
                self.fail(module, f"strata-fuse: tiling {what} {i} failed: {e}")

    def _parallel_tiles(self, producer, sizes, tiles, row, tags, i):
        """``(parallel, fill)``: whether the tiles of root ``i`` (a contraction, or its
        epilogue) go to an ``scf.forall`` that may run on threads, and whether the fill
        that initializes the contraction (then tagged) is fused into each tile."""
        n_tiles = 1
        for size, tile in zip(sizes, tiles, strict=True):
            n_tiles *= -(-size // tile)
        # a conv's tiles also copy their windows: worth splitting from fewer flops
        # (small CNN, 8x3x32x32 -> 32 channels, 14 MFLOP: 0.88 -> 0.67 ms a call)
        least = self.parallel_flops if row is None else self.im2col_parallel_flops
        parallel = (self.threads > 1 and n_tiles > 1 and
                    _contraction_flops(producer) >= least)
        fill = False
        if parallel:
            init = producer.operands[len(producer.operands) - 1].owner
            fill = not isinstance(init, ir.Block) and init.name == "linalg.fill"
            if fill:
                init = _own_fill(init, producer)
                tags.add(init, f"strata.fuse_init_{i}")
        return parallel, fill

    def _tile_bare_im2col(self, producer, roots, tags):
        """A conv's im2col matmul with no elementwise epilogue (its result returned, or read
        by several ops) is tiled on its own, by the same whole-row output tiles, so that
        each tile still copies its own windows (fusion/im2col.py) instead of the whole
        matrix being written first (the ResNet 3x3 64-channel 56x56 conv, 2 threads:
        2.1 -> 1.2 ms)."""
        row = im2col_row_width(producer)
        out = ir.RankedTensorType(producer.results[0].type)
        if row is None or not out.has_static_shape or 0 in out.shape:
            return
        if _packed_unfused(producer, self.threads) is not None:
            return  # packed panels, as a matmul without an epilogue
        sizes = list(out.shape)
        tiles = _tiles(sizes, self.tile_m, self.tile_n, row)
        i = len(roots)
        tags.add(producer, f"strata.fuse_root_{i}")
        parallel, fill = self._parallel_tiles(producer, sizes, tiles, row, tags, i)
        self.note(producer, f"tiled {describe(producer)} by {tiles}: it has no elementwise "
                            "epilogue, and its tiles copy their own im2col windows")
        roots.append((tiles, parallel, fill, False))

    # -- generated code or BLAS ------------------------------------------------------
    def _choose_blas(self, module, overrides):
        """Marks the contractions to run as BLAS calls (``strata.blas``), and says why."""
        from ..codegen.host import f32_lanes

        lanes = f32_lanes()
        try:
            tuned = parse_tuned(self.tuned)
        except ValueError as e:
            self.fail(module, f"strata-fuse: option 'tuned': {e}")
        contractions = [op for op in _collect(module, ("linalg.matmul", "linalg.batch_matmul"))
                        if blas_sizes(op) is not None and not in_loop(op)]
        # On several threads, a program of several contractions runs generated code
        # between its BLAS calls, on OpenMP's workers: those spin after each parallel
        # loop while OpenBLAS's own workers spin after each call, and the two pools take
        # the same cores from each other (a stock GPT-2 layer pair, 1 x 128 tokens, 2
        # threads: 184 ms with its matmuls as BLAS calls, 68 ms generated).
        shared_cores = self.threads > 1 and len(contractions) > 1
        for op in contractions:
            sizes = blas_sizes(op)
            batch, m, n, k = sizes
            signature = matmul_signature(op, op.name == "linalg.batch_matmul", (m, n, k))
            chosen = tuned.get(signature, {}).get("blas")
            users = _users(op.results[0])
            epilogue = (self.epilogue and len(users) == 1 and
                        users[0].name == "linalg.generic" and
                        is_elementwise_producer(users[0]) and
                        None not in loop_ranges(users[0]))
            cost = blas_estimate(batch, m, n, k, epilogue=epilogue, threads=self.threads,
                                 lanes=lanes, transposed=_transposed_elements(op),
                                 packable=_standard_order(op),
                                 im2col=im2col_row_width(op) is not None,
                                 dot_rows=_dot_rows(op, m, k, lanes))
            shape = f"{batch}x{m}x{n}x{k}" if op.name == "linalg.batch_matmul" else \
                f"{m}x{n}x{k}"
            predicted = (f"predicted BLAS {_us(cost.blas_us)}, generated "
                         f"{_us(cost.generated_us)}")
            if self.blas == "always":
                use, why, key = True, "blas=always", None
            elif chosen is not None:
                use, why, key = chosen, "the tuning record", None
            else:
                key, forced = self._key(f"blas|{describe(op)}|{op.results[0].type}", overrides)
                use = cost.blas_wins if forced is None else forced == "on"
                why = "the cost model" if forced is None else "the measured decision"
                if use and shared_cores and forced is None:
                    use = False
                    why = (f"{len(contractions)} contractions on {self.threads} threads: "
                           "OpenBLAS's workers would take the cores from the generated "
                           "code's")
            if use:
                op.attributes[BLAS_MARK] = ir.UnitAttr.get(module.context)
            tag = f"[{key}] " if key else ""
            verb = "BLAS sgemm for" if use else "generated code for"
            then = ""
            if epilogue:
                then = (f"; its epilogue {describe(users[0])} " +
                        ("runs as its own loop" if use or cost.unfuse else
                         "is tiled into the generated kernel"))
            self.note(op, f"{tag}{verb} {describe(op)} ({shape}; {why}): {predicted}{then}")


def _standard_order(op) -> bool:
    """Whether the contraction has the default indexing maps ((b,) m x k and (b,) k x n),
    whose operands strata-vectorize packs; a ``linalg.transpose`` feeding one is folded
    into the maps by strata-layout, and the packs read it as it is."""
    if op.name not in ("linalg.matmul", "linalg.batch_matmul"):
        return False
    return contraction_maps(op) == _default_maps(op.name)


def _packed_unfused(producer, threads):
    """Why ``producer`` should run on packed panels (or as dot products of rows) with its
    epilogue as its own loop (the cost model's two predictions), or None where tiling the
    epilogue into it is predicted faster or packing does not apply."""
    from ..codegen.host import f32_lanes

    if producer.name not in ("linalg.matmul", "linalg.batch_matmul") or in_loop(producer):
        return None
    sizes = blas_sizes(producer)
    if sizes is not None and _dot_rows(producer, sizes[1], sizes[3], f32_lanes()):
        return ("the matmul runs as dot products of rows (few rows, B transposed: "
                "strata-vectorize's dot-rows) and the epilogue as its own loop")
    if sizes is None or not _standard_order(producer):
        return None
    lanes = f32_lanes()
    im2col = im2col_row_width(producer) is not None
    transposed = _transposed_elements(producer)
    cost = blas_estimate(*sizes, epilogue=True, threads=threads, lanes=lanes, im2col=im2col,
                         transposed=transposed)
    if not cost.unfuse:
        return None
    fused = blas_estimate(*sizes, epilogue=True, threads=threads, lanes=lanes, packable=False,
                          im2col=im2col, transposed=transposed)
    return (f"the matmul runs on packed panels and the epilogue as its own loop "
            f"(predicted {_us(cost.generated_us)}; tiled together {_us(fused.generated_us)})")


def _dot_rows(op, m, k, lanes) -> bool:
    """Whether strata-vectorize would run the matmul as dot products of rows (its
    ``dot_rows``: at most DOT_ROWS rows, B a transposed matrix that strata-layout folds
    into the op, K at least a vector)."""
    b = op.operands[1].owner
    b = b.operation if hasattr(b, "operation") else None
    if m > DOT_ROWS or k < lanes or b is None or b.name != "linalg.transpose":
        return False
    perm = list(ir.DenseI64ArrayAttr(b.attributes["permutation"]))
    rank = len(perm)
    return rank >= 2 and perm == list(range(rank - 2)) + [rank - 1, rank - 2]


def _transposed_elements(op) -> int:
    """Elements of the matmul's inputs that come from a ``linalg.transpose`` swapping the
    last two dims only (a BLAS call reads those as they are, with its transpose flag)."""
    total = 0
    for value in list(op.operands)[:2]:
        owner = value.owner
        owner = owner.operation if hasattr(owner, "operation") else None
        if owner is None or owner.name != "linalg.transpose":
            continue
        perm = list(ir.DenseI64ArrayAttr(owner.attributes["permutation"]))
        rank = len(perm)
        if rank >= 2 and perm == list(range(rank - 2)) + [rank - 1, rank - 2]:
            total += int(np.prod(ir.RankedTensorType(value.type).shape))
    return total


def _us(t: float) -> str:
    return f"{t / 1000:.3g} ms" if t >= 1000 else f"{t:.3g} us"


def blas_sizes(op):
    """``(batch, M, N, K)`` of an f32 matmul / batch_matmul that a BLAS call can run: static,
    non-empty shapes and indexing maps that permute (b,) m, k / k, n / m, n (an input of a
    batch_matmul may lack b: one matrix for every batch). None otherwise."""
    types = [v.type for v in op.operands]
    if not all(isinstance(t, ir.RankedTensorType) for t in types):
        return None
    types = [ir.RankedTensorType(t) for t in types]
    if not all(t.has_static_shape and isinstance(t.element_type, ir.F32Type) for t in types):
        return None
    batched = op.name == "linalg.batch_matmul"
    expected = [("b", "m", "k"), ("b", "k", "n"), ("b", "m", "n")] if batched else \
        [("m", "k"), ("k", "n"), ("m", "n")]
    order = ("b", "m", "n", "k") if batched else ("m", "n", "k")
    sizes = {}
    for i, (t, names, amap) in enumerate(zip(types, expected, contraction_maps(op),
                                             strict=True)):
        dims = [order[e.position] if isinstance(e, ir.AffineDimExpr) else None
                for e in amap.results]
        if batched and i < 2 and "b" not in dims:  # an input shared by every batch
            names = tuple(n for n in names if n != "b")
        if sorted(d for d in dims if d) != sorted(names) or len(dims) != len(names):
            return None
        for name, size in zip(dims, t.shape, strict=True):
            if sizes.setdefault(name, size) != size:
                return None
    if any(s == 0 for s in sizes.values()):
        return None
    return (sizes.get("b", 1), sizes["m"], sizes["n"], sizes["k"])


def contraction_maps(op):
    """The indexing maps of a linalg.matmul / batch_matmul (its default ones if it has none)."""
    if "indexing_maps" in op.attributes:
        return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    return _default_maps(op.name)


def _default_maps(name):
    d = ir.AffineDimExpr.get
    if name == "linalg.matmul":
        m, n, k = d(0), d(1), d(2)
        return [ir.AffineMap.get(3, 0, e) for e in ([m, k], [k, n], [m, n])]
    b, m, n, k = d(0), d(1), d(2), d(3)
    return [ir.AffineMap.get(4, 0, e) for e in ([b, m, k], [b, k, n], [b, m, n])]



def _epilogue(i, tiles):
    """Tile epilogue ``i`` with scf.for loops and fuse its producers into each tile."""
    def body(root):
        structured.FuseOp(match_tagged(root, f"strata.fuse_root_{i}"), tile_sizes=tiles)

    return body


def _bare_contraction(i, tiles, parallel, fill):
    """Tile contraction ``i`` alone over its output (its reduction whole): one
    ``scf.forall`` with its fill fused in, or ``scf.for`` loops that fuse the fill."""
    def body(root):
        op = match_tagged(root, f"strata.fuse_root_{i}")
        sizes = list(tiles) + [0]
        if not parallel:
            structured.FuseOp(op, tile_sizes=sizes)
            return
        tiled = structured.TileUsingForallOp(op, tile_sizes=sizes)
        if fill:
            init = match_tagged(root, f"strata.fuse_init_{i}")
            structured.FuseIntoContainingOp(init, tiled.forall_op)

    return body


def _parallel_epilogue(i, tiles, fill):
    """The same as one scf.forall (tiles may run on threads): tile the epilogue, then
    fuse the contraction (and the fill that initializes it) into the forall."""
    def body(root):
        epilogue = match_tagged(root, f"strata.fuse_root_{i}")
        producer = match_tagged(root, f"strata.fuse_producer_{i}")
        tiled = structured.TileUsingForallOp(epilogue, tile_sizes=tiles)
        fused = structured.FuseIntoContainingOp(producer, tiled.forall_op)
        if fill:
            init = match_tagged(root, f"strata.fuse_init_{i}")
            structured.FuseIntoContainingOp(init, fused.new_containing_op)

    return body


def _own_fill(init, producer):
    """The fill that initializes ``producer`` and nothing else: CSE merges equal fills, and
    the clone of a shared one fused into one tile loop keeps its tags, so matching them
    for the next contraction would find that clone too (no use there: the fusion fails)."""
    if len(_users(init.results[0])) == 1:
        return init
    with ir.InsertionPoint(producer):
        own = init.clone()
    own = getattr(own, "operation", own)
    producer.operands[len(producer.operands) - 1] = own.results[0]
    return own


def _contraction_flops(op) -> int:
    """2 x output elements x reduction length of a matmul / batch_matmul / conv."""
    out = ir.RankedTensorType(op.results[0].type)
    rhs = ir.RankedTensorType(op.operands[1].type)
    if not (out.has_static_shape and rhs.has_static_shape):
        return 0
    elements = int(np.prod(out.shape))
    if op.name == "linalg.batch_matmul":
        reduction = rhs.shape[-2]
    elif op.name == "linalg.conv_2d_nchw_fchw":
        reduction = int(np.prod(rhs.shape[1:]))
    else:  # matmul (K x N), conv nhwc_hwcf (H x W x C x F)
        reduction = int(np.prod(rhs.shape[:-1]))
    return 2 * elements * reduction


WHOLE_CHANNELS = 256  # output channels an im2col tile takes whole (its copy made once)


def _direct_conv_tiles(producer, sizes) -> list[int] | None:
    """The epilogue tiles of a conv strata-vectorize runs direct (passes/direct_conv.py):
    whole rows of one image (direct_conv.tile_rows) x all output channels (at most
    WHOLE_CHANNELS: the largest divisor that is a multiple of the register tile), so
    the epilogue writes whole rows, in place into a padded buffer if the next conv
    reads one; None for any other producer."""
    from ..codegen.host import f32_lanes

    if producer.name != "linalg.conv_2d_nchw_fchw" or len(sizes) != 4:
        return None
    pieces = plan(producer, f32_lanes())
    if pieces is None:
        return None
    f, step = sizes[1], max(p.reg_m for p in pieces)  # powers of two: each divides step
    channels = max(t for t in range(step, min(f, WHOLE_CHANNELS) + 1, step) if f % t == 0)
    return [1, channels, tile_rows(sizes[2], sizes[3]), sizes[3]]


def _tiles(sizes, tm, tn, row=None):
    """Tile sizes for the epilogue's loops: divisors of the dims so tiles stay static.

    A dim larger than the preferred tile takes its largest divisor no smaller than half
    of it, as strata-vectorize's cache tiles do (3136 = 28 x 112, not 49 x 64; 784 =
    7 x 112, not 49 x 16: a 16-column tile left the matmul inside it 40% slower).
    ``row`` = (dim, OW, OH*OW): that dim (the columns with NCHW, the rows with NHWC)
    runs over the output pixels of a conv's im2col matmul; its tile is whole rows of
    one image (1600 pixels of 40: 80, not 100), so each tile can copy its own input
    windows (fusion/im2col.py): the largest such divisor up to the preferred tile,
    else the smallest."""
    def whole_rows(n, row, pref):  # divisors of one image's pixels: tiles stay in it
        fits = [t for t in range(row, n + 1, row) if n % t == 0]
        small = [t for t in fits if t <= pref]
        return small[-1] if small else fits[0]

    def pick(n, pref):
        for t in range(pref, pref // 2 - 1, -1) if n > pref else ():
            if t and n % t == 0:
                return t
        for t in (pref, pref // 2, pref // 4, 16, 8):
            if t and n % t == 0 and t <= n:
                return t
        return n

    tiles = [1] * (len(sizes) - 2) + [pick(sizes[-2], tm), pick(sizes[-1], tn)]
    if row is not None:
        dim, width, per_image = row
        if per_image % width == 0 and sizes[dim] % per_image == 0:
            tiles[dim] = whole_rows(per_image, width, tm if dim == -2 else tn)
            other = -1 if dim == -2 else -2
            if sizes[other] <= WHOLE_CHANNELS:
                tiles[other] = sizes[other]
    return tiles
