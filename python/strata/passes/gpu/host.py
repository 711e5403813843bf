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

Limits: host code may only pass device buffers around (views, launches); a
host op that reads or writes one (memref.load, a linalg op outside a kernel)
is an error. Returned views must have the identity layout (contiguous).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import gpu, memref

from ..base import Pass
from .common import collect, functions, inside_kernel

__all__ = ["GpuHostPass"]

_DEREF = ("memref.load", "memref.store", "memref.copy", "vector.transfer_read",
          "vector.transfer_write", "vector.load", "vector.store", "affine.load", "affine.store")


def _is_memref(v):
    return isinstance(v.type, ir.MemRefType)


def _identity(t: ir.MemRefType) -> ir.MemRefType:
    return ir.MemRefType.get(t.shape, t.element_type)


@dataclass(frozen=True)
class GpuHostPass(Pass):
    """Put kernel buffers in device memory: gpu.alloc, gpu.memcpy in/out, gpu.dealloc."""

    name = "strata-gpu-host"

    def run(self, module: ir.Operation) -> None:
        with module.context:
            for fn in functions(module):
                if collect(fn, lambda o: o.name == "gpu.launch"):
                    self._wrap(fn)

    def _wrap(self, fn):
        body = fn.regions[0].blocks[0]
        if len(fn.regions[0].blocks) != 1:
            self.fail(fn, "strata-gpu-host: functions with several blocks are not supported")
        device = []
        first = list(body.operations)[0]
        # 1) arguments: copy to the device at entry
        for arg in body.arguments:
            if not _is_memref(arg):
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
        # 2) host allocations and constants used by kernels
        for a in collect(fn, lambda o: o.name in ("memref.alloc", "memref.alloca")
                         and not inside_kernel(o)
                         and "workgroup" not in str(o.results[0].type)):
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
        # 4) results: copy back to fresh host buffers, free device memory
        ret = list(body.operations)[-1]
        if ret.name != "func.return":
            self.fail(fn, "strata-gpu-host: the function does not end in func.return")
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
