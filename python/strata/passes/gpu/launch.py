"""strata-gpu-launch: turn the block/thread-mapped scf.forall loops into gpu.launch kernels.

Runs on buffers (after one-shot-bufferize), before kernel outlining. For every
top-level ``scf.forall {mapping = [#gpu.block<...>]}`` left by strata-gpu-map,
chosen by the strategy tag on the linalg op inside:

* elementwise / thread: ``map_forall_to_blocks {generate_gpu_launch}`` +
  ``map_nested_forall_to_threads`` with the block size of the thread forall;
* matmul: the A/B K-tiles are promoted to ``#gpu.address_space<workgroup>``
  (``transform.structured.promote``), the copies and the 4x4-per-thread
  matmul tiles are distributed over 16x16 threads, and ``gpu.barrier`` s
  separate the shared-memory stores from the compute; the shared buffers
  become launch workgroup attributions;
* reduce: one block per row, 32-256 threads; the row generic becomes a
  strided (coalesced) loop, one ``gpu.all_reduce`` and a store by thread 0.
  f16/bf16 accumulate in f32.

    scf.forall (%r) in (128) {
      linalg.generic {strata.gpu = "reduce"} ins(%row : memref<1x1000xf32, strided..>) }
        {mapping = [#gpu.block<x>]}
  =>
    gpu.launch blocks(%bx, ..) in (%c128, %c1, %c1) threads(%tx, ..) in (%c256, %c1, %c1) {
      %p = scf.for %j = %tx to %c1000 step %c256 iter_args(%a = %zero) -> (f32) {
        memref.load; arith.addf }
      %s = gpu.all_reduce add %p uniform {} : (f32) -> f32
      scf.if (%tx == 0) { memref.store (%init + %s) }
    }

Host-level ``memref.copy`` (introduced by bufferization) become linalg.copy
kernels; a linalg op that could not be tiled (0-d results) runs in a
single-thread ``gpu.launch``. Limits: static shapes; a matmul tile must divide
the problem (tile sizes are divisors of M, N, K).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf
from mlir.dialects.transform import gpu as gpu_transform
from mlir.dialects.transform import structured

from ... import settings
from ...codegen.transform import ScriptError, Tags, any_op, build_schedule, match_ops, match_tagged
from ..base import Pass, drop_attributes
from .common import (
    STRATEGY,
    collect,
    divisor_at_most,
    enclosing_forall,
    functions,
    inside_kernel,
    loop_info,
)
from .map import COMBINERS, reduction_combiners, tile_ops

__all__ = ["GpuLaunchPass"]

_TARGET = "strata_gpu_target"
_DONE = "strata_gpu_launch"
_COPY = "strata_gpu_copy"
def _outer_forall(op):
    return op.name == "scf.forall" and not inside_kernel(op) and enclosing_forall(op) is None and \
        "mapping" in op.attributes and "#gpu.block" in str(op.attributes["mapping"])




def _trip_counts(forall):
    """{mapping dim name: trip count} of a static scf.forall."""
    lbs = list(ir.DenseI64ArrayAttr(forall.attributes["staticLowerBound"]))
    ubs = list(ir.DenseI64ArrayAttr(forall.attributes["staticUpperBound"]))
    steps = list(ir.DenseI64ArrayAttr(forall.attributes["staticStep"]))
    dims = [str(a).split("<")[-1].rstrip(">") for a in ir.ArrayAttr(forall.attributes["mapping"])]
    if any(v < -1000000 for v in lbs + ubs + steps):  # dynamic
        return None
    return {d: -(-(u - lb) // s) for d, lb, u, s in zip(dims, lbs, ubs, steps, strict=True)}


def _target(root):
    """The block forall being mapped (tagged by _Launcher.next_target)."""
    return match_tagged(root, _TARGET, ops=["scf.forall"])


def _threads(forall, block_dims, sync=None):
    launch = gpu_transform.MapForallToBlocks(forall, generate_gpu_launch=True).result
    gpu_transform.MapNestedForallToThreads(launch, block_dims=list(block_dims),
                                 sync_after_distribute=sync)


def _map_schedule(block_dims, sync):
    """The tagged forall as a gpu.launch of ``block_dims`` threads per block."""
    return lambda root: _threads(_target(root), block_dims, sync)


def _promote(root):
    """The tagged matmul's A and B tiles staged in workgroup (shared) memory."""
    matmul = match_ops(_target(root), ["linalg.matmul"])
    structured.PromoteOp(any_op(), matmul, operands_to_promote=[0, 1],
                         mapping=ir.ArrayAttr.get([ir.Attribute.parse(
                             "#gpu.memory_space<workgroup>")]))


def _matmul_schedule(tm, tn, copies, block_dims):
    """The matmul in 4x4 (tm x tn) tiles and its tile copies spread over the threads."""
    def body(root):
        threads = ir.ArrayAttr.get([ir.Attribute.parse(f"#gpu.thread<{d}>") for d in "yx"])
        forall = _target(root)
        matmul = match_ops(forall, ["linalg.matmul"])
        structured.TileUsingForallOp(matmul, tile_sizes=[tm, tn], mapping=threads)
        i64 = ir.IntegerType.get_signless(64)
        for i, tiles in enumerate(copies):
            copy = match_tagged(forall, _COPY, ir.IntegerAttr.get(i64, i))
            structured.TileUsingForallOp(copy, tile_sizes=tiles, mapping=threads)
        _threads(forall, block_dims)

    return body


def _strategy_inside(forall):
    tagged = collect(forall, lambda o: STRATEGY in o.attributes)
    if not tagged:
        return None, None
    op = tagged[0]
    return ir.StringAttr(op.attributes[STRATEGY]).value, op


def _new_launch(module):
    """The gpu.launch just created (the one without the done-marker); marks it."""
    for op in collect(module, lambda o: o.name == "gpu.launch" and _DONE not in o.attributes):
        op.attributes[_DONE] = ir.UnitAttr.get()
        return op
    return None


def _copies_to_linalg(root, pred):
    from ..linalg_ops import linalg

    n = 0
    for c in collect(root, lambda o: o.name == "memref.copy" and pred(o)):
        with ir.InsertionPoint(c), c.location:
            linalg.copy(c.operands[0], outs=[c.operands[1]])
        c.erase()
        n += 1
    return n


class _Launcher:
    def __init__(self, pass_, module, tags):
        self.p = pass_
        self.module = module
        self.tags = tags

    def fail(self, message):
        self.p.fail(self.module, f"strata-gpu-launch: {message}")

    def apply(self, body, what):
        try:
            schedule = build_schedule(body, self.module.context)
            if settings.get("STRATA_GPU_DEBUG"):
                sys.stderr.write(f"// strata-gpu-launch: {what}\n{schedule}\n")
                sys.stderr.flush()
            self.tags.apply(schedule)
        except ScriptError as e:
            self.fail(f"{what}: {e}")

    def next_target(self):
        """Marks the next block forall; returns its (kind, config) with no handles kept."""
        for fn in functions(self.module):
            for f in collect(fn, _outer_forall):
                kind, op = _strategy_inside(f)
                inner = [o for o in collect(f, lambda o: o.name == "scf.forall") if o != f]
                self.tags.add(f, _TARGET)
                loc = str(f.location)
                if kind == "matmul":
                    return kind, None, loc
                if kind == "reduce":
                    info = loop_info(op)
                    cols = info[0][-1]
                    t = 32
                    while t < min(cols, 256):
                        t *= 2
                    return kind, (t, 1, 1), loc
                dims = {"x": 1, "y": 1, "z": 1}
                for g in inner:
                    counts = _trip_counts(g)
                    if counts is None:
                        self.fail(f"thread loop with dynamic bounds at {loc}")
                    for d, n in counts.items():
                        dims[d] = max(dims[d], n)
                return kind or "elementwise", (dims["x"], dims["y"], dims["z"]), loc
        return None

    def run(self):
        m = self.module
        with m.context, ir.Location.unknown():
            # Copies bufferization left on the host become kernels too.
            _copies_to_linalg(m, lambda o: not inside_kernel(o) and enclosing_forall(o) is None)
            tile_ops(m, self.p.fail)
            while True:
                target = self.next_target()
                if target is None:
                    break
                kind, dims, loc = target
                if kind == "matmul":
                    self.matmul(loc)
                else:
                    self.apply(_map_schedule(dims, sync=False), f"cannot map the loop at {loc}")
                    launch = _new_launch(m)
                    if kind == "reduce":
                        for op in collect(launch, lambda o: STRATEGY in o.attributes):
                            emit_block_reduce(op, dims[0], self.fail)
            for fn in functions(m):
                for op in collect(fn, lambda o: o.name.startswith("linalg.")
                                  and o.name not in ("linalg.yield", "linalg.index")
                                  and not inside_kernel(o)
                                  and o.parent.name not in _LINALG_REGION_OWNERS):
                    single_thread_launch(op)
            workgroup_allocs_into_launch(m, self.fail)
            drop_attributes(m, (STRATEGY, _DONE))  # _TARGET and _COPY go with self.tags

    def matmul(self, loc):
        m = self.module
        self.apply(_promote, f"cannot promote the matmul at {loc} to shared memory")
        target = collect(m, lambda o: _TARGET in o.attributes)[0]
        _copies_to_linalg(target, lambda o: "workgroup" in str(o.operands[1].type))
        mm = collect(target, lambda o: o.name == "linalg.matmul")[0]
        bm, bn = ir.ShapedType(mm.operands[2].type).shape
        tx, ty = divisor_at_most(bn, 16), divisor_at_most(bm, 16)
        copies = []
        i64 = ir.IntegerType.get_signless(64)
        for i, c in enumerate(collect(target, lambda o: o.name == "linalg.copy")):
            r, col = _copy_shape(c)
            self.tags.add(c, _COPY, ir.IntegerAttr.get(i64, i))
            copies.append([-(-r // ty), -(-col // tx)])
        del target, mm
        self.apply(_matmul_schedule(bm // ty, bn // tx, copies, (tx, ty, 1)),
                   f"cannot distribute the matmul at {loc} over threads")
        _new_launch(m)


def _copy_shape(copy):
    """Static (rows, cols) of a promoted tile copy: its source, else the shared buffer."""
    for v in copy.operands:
        st = ir.ShapedType(v.type)
        if st.has_static_shape:
            return st.shape
    v = copy.operands[1]
    while not ir.ShapedType(v.type).has_static_shape:
        v = getattr(v.owner, "operation", v.owner).operands[0]
    return ir.ShapedType(v.type).shape


_LINALG_REGION_OWNERS = {"linalg.generic", "linalg.reduce", "linalg.map", "linalg.fill",
                         "linalg.matmul", "linalg.batch_matmul", "linalg.softmax", "linalg.copy"}


def _index(v):
    return arith.constant(ir.IndexType.get(), v)


def single_thread_launch(op):
    """Moves ``op`` into a gpu.launch of one block of one thread."""
    with ir.InsertionPoint(op), op.location:
        one = _index(1)
        launch = gpu.LaunchOp((one, one, one), (one, one, one))
        block = launch.regions[0].blocks[0]
        with ir.InsertionPoint(block):
            gpu.terminator()
    op.move_before(list(block.operations)[0])
    launch.operation.attributes[_DONE] = ir.UnitAttr.get()


_WIDEN = {"f16", "bf16"}


def _neutral(kind, t):
    if isinstance(t, ir.FloatType) or str(t) in ("f16", "bf16", "f32", "f64"):
        values = {"add": 0.0, "mul": 1.0, "maximumf": float("-inf"), "maxnumf": float("-inf"),
                  "minimumf": float("inf"), "minnumf": float("inf")}
        return arith.constant(t, values[kind])
    width = ir.IntegerType(t).width
    values = {"add": 0, "mul": 1, "maxsi": -(1 << (width - 1)), "minsi": (1 << (width - 1)) - 1,
              "maxui": 0, "minui": -1, "and": -1, "or": 0, "xor": 0}
    return arith.constant(t, ir.IntegerAttr.get(t, values[kind]))


def emit_block_reduce(op, threads, fail):
    """Replaces a row-reduction generic in a launch by a strided loop + gpu.all_reduce."""
    combs = reduction_combiners(op)
    info = loop_info(op)
    if combs is None or info is None:
        fail(f"not a row reduction: {op.name} at {op.location}")
    ranges, iters, maps = info
    if any(r != 1 for r, it in zip(ranges, iters, strict=True) if it == "parallel"):
        fail(f"row reduction with more than one row per block at {op.location}")
    block = op.regions[0].blocks[0]
    args = list(block.arguments)
    n_out = len(combs)
    n_in = len(args) - n_out
    out_args = args[n_in:]
    kinds = [COMBINERS[c.name] for c in combs]
    elem_ts = [c.results[0].type for c in combs]
    acc_ts = [ir.F32Type.get() if str(t) in _WIDEN else t for t in elem_ts]
    red_dim = len(ranges) - 1
    comb_keys = {_key(c.results[0]) for c in combs}
    with ir.InsertionPoint(op), op.location:
        c0 = _index(0)
        ccols = _index(ranges[-1])
        cstep = _index(threads)
        tx = gpu.thread_id(gpu.Dimension.x)
        zeros = [_neutral(k, t) for k, t in zip(kinds, acc_ts, strict=True)]
        loop = scf.ForOp(tx, ccols, cstep, zeros)
        with ir.InsertionPoint(loop.body):
            j = loop.induction_variable
            mapping = {}
            for k in range(n_in):
                idx = []
                for e in maps[k].results:
                    if isinstance(e, ir.AffineDimExpr):
                        idx.append(j if e.position == red_dim else c0)
                    elif isinstance(e, ir.AffineConstantExpr):
                        idx.append(_index(e.value))
                    else:
                        from mlir.dialects import affine

                        dims = [c0] * (len(ranges) - 1) + [j]
                        idx.append(affine.apply(ir.AffineMap.get(len(ranges), 0, [e]), dims))
                if isinstance(op.operands[k].type, ir.MemRefType):
                    mapping[_key(args[k])] = memref.load(op.operands[k], idx)
                else:
                    mapping[_key(args[k])] = op.operands[k]
            for inner in list(block.operations):
                inner = inner.operation
                if inner.name == "linalg.yield" or any(
                        _key(r) in comb_keys for r in inner.results):
                    continue
                clone = inner.clone()
                for i, v in enumerate(list(clone.operands)):
                    if _key(v) in mapping:
                        clone.operands[i] = mapping[_key(v)]
                for old, new in zip(inner.results, clone.results, strict=True):
                    mapping[_key(old)] = new
            new_accs = []
            for i, comb in enumerate(combs):
                other = [v for v in comb.operands if v != out_args[i]][0]
                v = mapping.get(_key(other), other)
                if acc_ts[i] != elem_ts[i]:
                    v = arith.extf(acc_ts[i], v)
                new_accs.append(ir.Operation.create(
                    comb.name, results=[acc_ts[i]], operands=[loop.inner_iter_args[i], v],
                    attributes={a: comb.attributes[a] for a in comb.attributes}).result)
            scf.yield_(new_accs)
        results = []
        for i, comb in enumerate(combs):
            total = gpu.all_reduce(loop.results[i], op=gpu.AllReduceOperation[kinds[i].upper()],
                                   uniform=True)
            out = op.operands[n_in + i]
            out_idx = [c0] * ir.ShapedType(out.type).rank
            init = memref.load(out, out_idx)
            if acc_ts[i] != elem_ts[i]:
                init = arith.extf(acc_ts[i], init)
            res = ir.Operation.create(comb.name, results=[acc_ts[i]], operands=[init, total],
                                      attributes={a: comb.attributes[a]
                                                  for a in comb.attributes}).result
            if acc_ts[i] != elem_ts[i]:
                res = arith.truncf(elem_ts[i], res)
            results.append((res, out, out_idx))
        is0 = arith.cmpi(arith.CmpIPredicate.eq, tx, c0)
        branch = scf.IfOp(is0)
        with ir.InsertionPoint(branch.then_block):
            for res, out, out_idx in results:
                memref.store(res, out, out_idx)
            scf.yield_([])
    op.erase()


def _key(v):
    """A dict key for an SSA value (Python value objects are not unique per value)."""
    return hash(v)


def workgroup_allocs_into_launch(module, fail):
    """Workgroup-space memref.alloc outside a launch -> workgroup attributions of that launch."""
    allocs = collect(module, lambda o: o.name == "memref.alloc"
                     and "workgroup" in str(o.results[0].type)
                     and (not inside_kernel(o) or o.parent.name == "gpu.launch"))
    i64 = ir.IntegerType.get_signless(64)
    for a in allocs:
        launches = []
        for u in a.results[0].uses:
            launch = u.owner if u.owner.name == "gpu.launch" else None
            p = u.owner
            while p is not None and launch is None:
                if p.name == "gpu.launch":
                    launch = p
                p = p.parent
            if launch is not None and all(launch != x for x in launches):
                launches.append(launch)
        if len(launches) != 1:
            fail(f"a shared-memory buffer is used by {len(launches)} kernels")
        launch = launches[0]
        body = launch.regions[0].blocks[0]
        n = ir.IntegerAttr(launch.attributes["workgroup_attributions"]).value \
            if "workgroup_attributions" in launch.attributes else 0
        arg = body.add_argument(a.results[0].type, a.location)
        launch.attributes["workgroup_attributions"] = ir.IntegerAttr.get(i64, n + 1)
        a.results[0].replace_all_uses_with(arg)
        a.erase()
    # promote's deallocs of the (now attributed) buffers are gone with replace_all_uses_with


@dataclass(frozen=True, eq=False, repr=False)
class GpuLaunchPass(Pass):
    """Map block/thread-mapped scf.forall loops to gpu.launch (shared memory, all_reduce)."""

    name = "strata-gpu-launch"

    def run(self, module: ir.Operation) -> None:
        with Tags(module) as tags:
            _Launcher(self, module, tags).run()
