"""strata-row-kernels: softmax and log-softmax over the last dim as row-fused vector kernels.

Upstream's decomposition of ``linalg.softmax`` (strata-decompose) makes four
loop nests that each sweep the whole tensor: max, exp, sum, divide, and it
writes the exponentials to a temporary. This pass replaces each static f32
``linalg.softmax`` over the last dim with one loop over rows whose body
computes the row with vector ops (passes/row_softmax.py): a max sweep, an
exp-and-sum sweep that writes the exponentials to the output row, a scaling
sweep, the last two finding the row in cache. A softmax output of ``stream-bytes``
or more (16 MiB: larger than the caches) is instead written once: the exp-and-sum
sweep writes the exponentials to a scratch row of their own (the same bytes for
every row of a thread, in L1) and the last sweep writes ``e * (1 / sum)`` into the
output, which is then never read back, so strata-nontemporal-stores streams it
past the cache: no read-for-ownership of the output's lines (softmax 4096x4096,
Xeon AVX-512, other processes stopped: 11.9 -> 10.5 ms on 1 thread, 6.2 -> 4.7 ms
on 2; with threads, one block of rows per thread, an scf.for over its rows, so the
scratch row is allocated once per block). (An earlier write-once form computed the
exponentials twice instead of keeping them: on the AMD EPYC machines the second exp
cost more than the streamed stores saved, 4.4 -> 6.1 ms on 2 threads.) Rows longer than
``online-bytes`` use the online max/sum instead (two sweeps). A
``linalg.generic`` that only takes the ``math.log`` of a softmax's single use
becomes a log-softmax kernel (``x - max - log(sum(exp(x - max)))``: no
exponentials written, and accurate where the softmax underflows). A cheap
single-use elementwise producer of the input (``x * scale``, ``relu(x + b)``:
at most ``max-producer-cost``) is computed in the sweeps from its own inputs
instead of being written and read back; else, when the input is an
intermediate with no other reader, the output takes its buffer (the sweeps read
each element before they overwrite it). ``fuse=false`` (the pipeline's
``fusion`` off) does neither. Runs after strata-fuse, on the softmaxes that
``strata-decompose{keep-row-softmax}`` left.

    %s = linalg.softmax dimension(1) ins(%x : tensor<4096x4096xf32>) outs(%e : tensor<4096x4096xf32>)
  =>                                                        (threads=2)
    %s = scf.forall (%i) in (4096) shared_outs(%o = %e) -> (tensor<4096x4096xf32>) {
      %row = tensor.extract_slice %o[%i, 0] [1, 4096] [1, 1]
      %m = scf.for %j = 0 to 4096 step 64 iter_args(%a = -inf) {     // vector<64xf32>
        %v = vector.transfer_read %x[%i, %j] ...; arith.maximumf %a, %v }
      %r, %sum = scf.for ... { math.exp; vector.transfer_write ... %row; arith.addf }
      %w = scf.for ... { vector.transfer_read %r; arith.mulf; vector.transfer_write }
      scf.forall.in_parallel { tensor.parallel_insert_slice %w into %o[%i, 0] [1, 4096] [1, 1] }
    }

With one thread (or fewer than ``parallel-elements`` elements) the row loop is
an ``scf.for`` carrying the output tensor. Vector steps are ``lanes`` x
``unroll`` elements (``lanes`` 0: the host's f32 lanes, 16 with AVX-512, 8
with AVX2). The ``math.exp``/``math.log`` on vectors are expanded into
polynomials by strata-expand-math. Inputs of rank > 2 are collapsed to rows
first. Other softmaxes (another dim, dynamic shapes) are left to
strata-decompose.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf, tensor

from ..codegen.host import f32_lanes
from .base import Pass, collect_ops, option, threads_option
from .fusion.model import body_cost
from .patterns import erase_dead_ops
from .row_fuse import RowProducer
from .row_softmax import RowSweep, index, row_slice, softmax_row

__all__ = ["RowKernelsPass", "softmax_kernel_fits", "KERNEL_MARK"]

# On each row loop: what it computes (strata.explain labels the kernel with it).
KERNEL_MARK = "strata.row_kernel"


def softmax_kernel_fits(op) -> bool:
    """A linalg.softmax this pass rewrites: static f32 tensors, over the last dim."""
    if op.name != "linalg.softmax":
        return False
    t = op.operands[0].type
    if not isinstance(t, ir.RankedTensorType):
        return False
    t = ir.RankedTensorType(t)
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    return (t.has_static_shape and t.rank >= 1 and dim == t.rank - 1 and
            isinstance(t.element_type, ir.F32Type) and 0 not in t.shape and
            op.results[0].type == t)


def _log_user(op):
    """The linalg.generic that takes only ``math.log`` of ``op``'s result, if that is its
    one use."""
    uses = list(op.results[0].uses)
    if len(uses) != 1:
        return None
    user = uses[0].owner
    user = getattr(user, "operation", user)
    if user.name != "linalg.generic" or len(user.operands) != 2 or \
            user.operands[0] != op.results[0] or user.operands[1].type != op.results[0].type:
        return None
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(user.attributes["indexing_maps"])]
    identity = ir.AffineMap.get_identity(ir.RankedTensorType(op.results[0].type).rank)
    if any(m != identity for m in maps):
        return None
    body = [o.operation for o in user.regions[0].blocks[0].operations]
    block_args = list(user.regions[0].blocks[0].arguments)
    if len(body) != 2 or body[0].name != "math.log" or body[0].operands[0] != block_args[0] or \
            body[1].operands[0] != body[0].results[0]:
        return None
    return user


@dataclass(frozen=True, eq=False, repr=False)
class RowKernelsPass(Pass):
    """Rewrite last-dim f32 softmax (and log of softmax) into row-fused vector kernels."""

    name = "strata-row-kernels"
    threads: int = threads_option()
    lanes: int = option(0, min=0, max=64, help="f32 lanes of a vector register (0: the host's)")
    unroll: int = option(4, min=1, max=16, help="Vector registers per step (independent chains)")
    online_bytes: int = option(1 << 17, min=1, help="Row bytes above which the online max/sum (two reads) is used")
    parallel_elements: int = option(1 << 18, min=1, help="Fewest elements of a softmax run on threads")
    fuse: bool = option(True, help="Fuse a log user and a cheap single-use elementwise producer")
    stream_bytes: int = option(16 << 20, min=0, help="Softmax outputs of at least this many bytes are written once, never read back (the exponentials kept in a scratch row), so strata-nontemporal-stores streams them (0: never)")
    max_producer_cost: float = option(1.0, min=0.0, help="Most per-element cost (passes/fusion/model.py) of a producer computed in the kernel")

    def run(self, module: ir.Operation) -> None:
        lanes = self.lanes or f32_lanes()
        done = False
        for op in collect_ops(module, softmax_kernel_fits):
            log_user = _log_user(op) if self.fuse else None
            target = log_user if log_user is not None else op
            with ir.InsertionPoint(target), target.location:
                result = self._kernel(op.operands[0], target.operands[1], lanes,
                                      log=log_user is not None)
            target.results[0].replace_all_uses_with(result)
            target.erase()
            if log_user is not None:
                op.erase()
            done = True
        if done:
            erase_dead_ops(module)

    def _producer(self, x, sweep):
        """The elementwise producer of ``x`` to compute in the kernel, if any."""
        if not self.fuse or len(list(x.uses)) != 1:
            return None
        producer = RowProducer.of(x, sweep)
        if producer is None or body_cost(producer.op) > self.max_producer_cost:
            return None
        return producer

    def _kernel(self, x, init, lanes, *, log):
        t = ir.RankedTensorType(x.type)
        # The output takes the input's buffer when nothing else reads the input and it is
        # not a function argument (the caller's array).
        sole_reader = len(list(x.uses)) == 1 and not isinstance(x.owner, ir.Block)
        shape = list(t.shape)
        n = shape[-1]
        rows = 1
        for s in shape[:-1]:
            rows *= s
        if t.rank != 2:
            groups = [list(range(t.rank - 1)), [t.rank - 1]] if t.rank > 1 else [[0]]
            flat_t = ir.RankedTensorType.get([rows, n], t.element_type)
            if t.rank == 1:
                # a single row: 1 x n
                x = tensor.expand_shape(flat_t, x, [[0, 1]], [], [1, n])
                init = tensor.expand_shape(flat_t, init, [[0, 1]], [], [1, n])
            else:
                x = tensor.collapse_shape(flat_t, x, groups)
                init = tensor.collapse_shape(flat_t, init, groups)
        sweep = RowSweep(n, lanes * self.unroll if n >= lanes * self.unroll else lanes)
        producer = self._producer(x, sweep) if t.rank == 2 else None
        # Only without a masked last step: with one, the in-place form miscompiled (rows
        # of 17 and 24 gave wrong values once a one-iteration sweep folded away; the
        # out-of-place form is right), so such rows get an output buffer of their own.
        in_place = producer is None and sole_reader and n % sweep.v == 0
        if in_place:
            init = x
        online = 4 * n > self.online_bytes
        parallel = self.threads > 1 and rows > 1 and rows * n >= self.parallel_elements
        write_once = 0 < self.stream_bytes <= 4 * rows * n and not in_place and not log
        chunks = self.threads
        if parallel and write_once and not online and rows % chunks == 0:
            # one chunk of rows per thread, an scf.for over its rows: the scratch row of
            # the exponentials is then allocated once per chunk (buffer-loop-hoisting),
            # not once per row
            loop = self._row_chunks(x, init, rows, n, chunks, sweep, producer, t)
        elif parallel:
            loop = scf.ForallOp([0], [rows], [1], [init])
            i, out = loop.induction_variables[0], loop.inner_iter_args[0]
            with ir.InsertionPoint(loop.body):
                row = self._row(x, i, out, n, sweep, online, log, producer, loop, in_place,
                                write_once)
                with ir.InsertionPoint(loop.terminator().block):
                    tensor.parallel_insert_slice(row, out, [i], [], [],
                                                 [ir.ShapedType.get_dynamic_size(), 0],
                                                 [1, n], [1, 1])
        else:
            loop = scf.ForOp(index(0), index(rows), index(1), [init])
            i, out = loop.induction_variable, loop.inner_iter_args[0]
            with ir.InsertionPoint(loop.body):
                row = self._row(x, i, out, n, sweep, online, log, producer, loop, in_place,
                                write_once)
                scf.YieldOp([tensor.insert_slice(row, out, [i], [], [],
                                                 [ir.ShapedType.get_dynamic_size(), 0],
                                                 [1, n], [1, 1])])
        loop.operation.attributes[KERNEL_MARK] = ir.StringAttr.get(
            "log_softmax" if log else "softmax")
        result = loop.results[0]
        if t.rank == 1:
            result = tensor.collapse_shape(t, result, [[0, 1]])
        elif t.rank != 2:
            result = tensor.expand_shape(t, result, [list(range(t.rank - 1)), [t.rank - 1]],
                                         [], shape)
        return result

    def _row_chunks(self, x, init, rows, n, chunks, sweep, producer, t):
        """``scf.forall`` over ``chunks`` equal blocks of rows, each an ``scf.for`` over
        its rows writing the softmax once (``write_once``)."""
        dyn = ir.ShapedType.get_dynamic_size()
        per = rows // chunks
        loop = scf.ForallOp([0], [chunks], [1], [init])
        c, out = loop.induction_variables[0], loop.inner_iter_args[0]
        with ir.InsertionPoint(loop.body):
            first = arith.muli(c, index(per))
            slab_t = ir.RankedTensorType.get([per, n], t.element_type)
            slab = tensor.extract_slice(slab_t, out, [first], [], [], [dyn, 0], [per, n],
                                        [1, 1])
            inner = scf.ForOp(index(0), index(per), index(1), [slab])
            with ir.InsertionPoint(inner.body):
                r, rows_so_far = inner.induction_variable, inner.inner_iter_args[0]
                row = self._row(x, arith.addi(first, r), rows_so_far, n, sweep, False, False,
                                producer, inner, False, True, out_i=r)
                scf.YieldOp([tensor.insert_slice(row, rows_so_far, [r], [], [], [dyn, 0],
                                                 [1, n], [1, 1])])
            with ir.InsertionPoint(loop.terminator().block):
                tensor.parallel_insert_slice(inner.results[0], out, [first], [], [],
                                             [dyn, 0], [per, n], [1, 1])
        return loop

    @staticmethod
    def _row(x, i, out, n, sweep, online, log, producer, loop, in_place, write_once,
             out_i=None):
        load = None
        if producer is not None:
            producer.begin_row(i, ir.InsertionPoint(loop))
            load = lambda j, full: producer.load(i, j, full)  # noqa: E731
        return softmax_row(x, i, row_slice(out, i if out_i is None else out_i, n), sweep,
                           online=online, log=log, load=load, in_place=in_place,
                           write_once=write_once)
