"""strata-gpu-host: host side of the kernels: device buffers, copies in and out, frees.

Runs on bufferized functions that contain ``gpu.launch`` (before outlining and
before results become out-params). Every buffer a kernel may touch lives in
device memory:

    func.func @f(%a: memref<4xf32>) -> memref<4xf32> {
      %r = memref.alloc() : memref<4xf32>
      gpu.launch ... { ... %a ... %r ... }
      return %r : memref<4xf32>
    }
  =>
    func.func @f(%a: memref<4xf32>) -> memref<4xf32> {
      %da = gpu.alloc () : memref<4xf32>
      gpu.memcpy %da, %a : memref<4xf32>, memref<4xf32>       // host -> device
      %r = gpu.alloc () : memref<4xf32>                         // was memref.alloc
      gpu.launch ... { ... %da ... %r ... }
      %h = memref.alloc() : memref<4xf32>
      gpu.memcpy %h, %r : memref<4xf32>, memref<4xf32>        // device -> host
      gpu.dealloc %da ; gpu.dealloc %r
      return %h : memref<4xf32>
    }

``memref.get_global`` constants used by kernels are copied to the device the
same way. ``func.func(gpu-async-region)`` (after outlining) turns these into the
async forms that gpu-to-llvm lowers, on one stream. With
buffer-results-to-out-params afterwards, ``%h`` becomes the caller's buffer.

With ``resident=true`` the caller's buffers are already in device memory
(strata.runtime.cuda.DeviceArray): arguments are used as they are, and each
memref result becomes a trailing out-param that the kernels write directly (a
buffer the function allocated and returns once takes the out-param's place; any
other returned value is copied into it on the device). Nothing crosses the bus::

    func.func @f(%a: memref<4xf32>) -> memref<4xf32> {
      %r = memref.alloc() : memref<4xf32>
      gpu.launch ... { ... %a ... %r ... }
      return %r : memref<4xf32>
    }
  =>
    func.func @f(%a: memref<4xf32>, %out: memref<4xf32>) {
      gpu.launch ... { ... %a ... %out ... }
      return
    }

Limits: host code may only pass device buffers around (views, launches); a
host op that reads or writes one (memref.load, a linalg op outside a kernel)
is an error. Returned views must have the identity layout (contiguous).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import gpu, memref

from ..base import Pass, option
from .common import collect, functions, inside_kernel

__all__ = ["GpuHostPass"]

_DEREF = ("memref.load", "memref.store", "memref.copy", "vector.transfer_read",
          "vector.transfer_write", "vector.load", "vector.store", "affine.load", "affine.store")


def _is_memref(v):
    return isinstance(v.type, ir.MemRefType)


def _identity(t: ir.MemRefType) -> ir.MemRefType:
    return ir.MemRefType.get(t.shape, t.element_type)


@dataclass(frozen=True, eq=False, repr=False)
class GpuHostPass(Pass):
    """Put kernel buffers in device memory: gpu.alloc, gpu.memcpy in/out, gpu.dealloc."""

    name = "strata-gpu-host"
    resident: bool = option(False, help="Arguments are device buffers: copy nothing")

    def run(self, module: ir.Operation) -> None:
        with module.context:
            for fn in functions(module):
                if collect(fn, lambda o: o.name == "gpu.launch"):
                    with fn.location:
                        self._wrap(fn)

    def _wrap(self, fn):
        body = fn.regions[0].blocks[0]
        if len(fn.regions[0].blocks) != 1:
            self.fail(fn, "strata-gpu-host: functions with several blocks are not supported")
        device = []
        first = list(body.operations)[0]
        # 1) arguments: copy to the device at entry
        for arg in body.arguments:
            if self.resident or not _is_memref(arg):
                continue
            t = ir.MemRefType(arg.type)
            if str(t.layout) != str(ir.AffineMapAttr.get(ir.AffineMap.get_identity(t.rank))) \
                    and "strided" in str(t):
                self.fail(fn, "strata-gpu-host: arguments must have the identity layout")
            with ir.InsertionPoint(first), fn.location:
                d = gpu.alloc(arg.type, None, [], [], [])
                gpu.memcpy(None, [], d, arg)
            for use in list(arg.uses):
                owner = use.owner
                if owner.name == "gpu.memcpy" and owner.operands[0] == d:
                    continue
                owner.operands[use.operand_number] = d
            device.append(d)
        ret = list(body.operations)[-1]
        if ret.name != "func.return":
            self.fail(fn, "strata-gpu-host: the function does not end in func.return")
        params, outs = self._out_params(fn, ret) if self.resident else ([], [])
        # 2) host allocations and constants used by kernels
        for a in collect(fn, lambda o: o.name in ("memref.alloc", "memref.alloca")
                         and not inside_kernel(o)
                         and "workgroup" not in str(o.results[0].type)):
            param = next((p for op, p in outs if op == a), None)
            if param is not None:
                a.results[0].replace_all_uses_with(param)
                a.erase()
                continue
            with ir.InsertionPoint(a), a.location:
                d = gpu.alloc(a.results[0].type, None, [], list(a.operands), [])
            a.results[0].replace_all_uses_with(d)
            a.erase()
            device.append(d)
        for g in collect(fn, lambda o: o.name == "memref.get_global" and not inside_kernel(o)):
            t = g.results[0].type
            with ir.InsertionPoint(first), g.location:
                d = gpu.alloc(t, None, [], [], [])
            for use in list(g.results[0].uses):
                use.owner.operands[use.operand_number] = d
            g.move_before(d.owner)
            with ir.InsertionPoint(first), g.location:
                gpu.memcpy(None, [], d, g.results[0])
            device.append(d)
        for dd in collect(fn, lambda o: o.name == "memref.dealloc" and not inside_kernel(o)):
            dd.erase()
        # 3) host ops must not touch device memory
        for op in collect(fn, lambda o: not inside_kernel(o) and (
                o.name in _DEREF or (o.name.startswith("linalg.") and
                                     o.parent.name == "func.func"))):
            self.error(op, f"strata-gpu-host: '{op.name}' runs on the host but its buffer is in "
                           "device memory (it was not mapped to a kernel)")
        if self.resident:
            self._finish_resident(fn, ret, params, outs, device)
            return
        # 4) results: copy back to fresh host buffers, free device memory
        new = []
        with ir.InsertionPoint(ret), ret.location:
            for v in ret.operands:
                if not _is_memref(v):
                    new.append(v)
                    continue
                t = ir.MemRefType(v.type)
                if "strided" in str(t) or "affine_map" in str(t):
                    self.fail(ret, "strata-gpu-host: a returned view is not contiguous")
                h = memref.alloc(_identity(t), [], [])
                gpu.memcpy(None, [], h, v)
                new.append(h)
            for d in device:
                gpu.dealloc(None, [], d)
        for i, v in enumerate(new):
            ret.operands[i] = v

    def _out_params(self, fn, ret):
        """Resident mode: adds one trailing out-param per result to ``fn``. Returns the
        params and ``[(alloc op, param)]`` for each result that is a function-local
        memref.alloc returned exactly once (that alloc is to be replaced by the param)."""
        sym = ir.StringAttr(fn.attributes["sym_name"]).value
        module = fn.parent
        while module.name != "builtin.module":
            module = module.parent
        if collect(module, lambda o: o.name == "func.call"
                   and ir.FlatSymbolRefAttr(o.attributes["callee"]).value == sym):
            self.fail(fn, "strata-gpu-host: resident=true needs a function with no callers "
                          "(its signature changes)")
        body = fn.regions[0].blocks[0]
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        returned = list(ret.operands)
        params, taken = [], []
        for v in returned:
            if not _is_memref(v) or not ir.MemRefType(v.type).has_static_shape:
                self.fail(ret, "strata-gpu-host: resident=true needs results that are memrefs "
                               "of static shape")
            t = ir.MemRefType(v.type)
            param = body.add_argument(_identity(t), fn.location)
            params.append(param)
            owner = v.owner
            if (not isinstance(owner, ir.Block) and owner.name == "memref.alloc"
                    and t == _identity(t)
                    and sum(1 for o in returned if o == v) == 1):
                taken.append((owner.operation, param))
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            list(ftype.inputs) + [p.type for p in params], []))
        return params, taken

    def _finish_resident(self, fn, ret, params, outs, device):
        """Copies results that did not take an out-param's place into theirs (on the
        device), frees the temporaries and returns nothing."""
        from mlir.dialects import func

        taken = [p for _, p in outs]
        with ir.InsertionPoint(ret), ret.location:
            for v, param in zip(list(ret.operands), params, strict=True):
                if any(param == p for p in taken):
                    continue
                if ir.MemRefType(v.type).layout != _identity(ir.MemRefType(v.type)).layout:
                    self.fail(ret, "strata-gpu-host: a returned view is not contiguous")
                gpu.memcpy(None, [], param, v)
            for d in device:
                gpu.dealloc(None, [], d)
            func.ReturnOp([])
        ret.erase()
