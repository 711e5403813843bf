"""Arrays in GPU memory, so that a program's intermediate values stay on the device.

    from strata.runtime.device import to_device
    dx = to_device(x)                 # one host -> device copy
    dh = prog.layer1(dx, dw1)         # DeviceArray in, DeviceArray out: nothing copied
    dy = prog.layer2(dh, dw2)
    y = dy.numpy()                    # one device -> host copy

Device memory is allocated and copied through MLIR's CUDA runtime wrappers
(``mgpuMemAlloc``, ``mgpuMemcpy``, ``mgpuMemFree`` in libmlir_cuda_runtime.so),
the same library the compiled host code calls, on the primary context of
device 0. A DeviceArray owns its buffer and frees it when garbage-collected.
Every transfer is synchronous: when ``to_device`` or ``numpy()`` returns, the
copy is complete (compiled functions also wait for their kernels before they
return, so results are ready when a call returns).

Without a CUDA device every entry point raises a StrataError; the runtime
library is never loaded then (loading it without a driver aborts the process).
"""

from __future__ import annotations

import ctypes
import threading
from functools import cache

import numpy as np

from ..dialect.types import dtype_of_numpy
from ..errors import StrataError
from ..frontend.locations import location_text
from .engine import runtime_library

__all__ = ["DeviceArray", "to_device", "ensure_context", "cuda_available", "device_chip",
           "cuda_runtime_library"]

_CC_MAJOR, _CC_MINOR = 75, 76  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{MAJOR,MINOR}


@cache
def cuda_available() -> tuple[bool, str]:
    """``(True, "sm_90: <n> device(s)")`` when a CUDA device answers, else ``(False, why)``."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return False, f"the CUDA driver library libcuda.so.1 cannot be loaded ({e})"
    rc = cu.cuInit(0)
    if rc != 0:
        what = {100: "CUDA_ERROR_NO_DEVICE", 999: "CUDA_ERROR_UNKNOWN"}.get(rc, f"CUresult {rc}")
        return False, f"cuInit failed with {what}"
    n = ctypes.c_int(0)
    rc = cu.cuDeviceGetCount(ctypes.byref(n))
    if rc != 0:
        return False, f"cuDeviceGetCount failed with CUresult {rc}"
    if n.value == 0:
        return False, "the driver reports 0 CUDA devices"
    dev = ctypes.c_int(0)
    cu.cuDeviceGet(ctypes.byref(dev), 0)
    major, minor = ctypes.c_int(0), ctypes.c_int(0)
    cu.cuDeviceGetAttribute(ctypes.byref(major), _CC_MAJOR, dev)
    cu.cuDeviceGetAttribute(ctypes.byref(minor), _CC_MINOR, dev)
    return True, f"sm_{major.value}{minor.value}: {n.value} device(s)"


def device_chip() -> str | None:
    """``sm_XY`` of device 0, or None without a device."""
    ok, reason = cuda_available()
    return reason.split(":")[0] if ok else None


def cuda_runtime_library() -> str:
    return runtime_library("libmlir_cuda_runtime.so")

_local = threading.local()


def _require_device() -> None:
    ok, reason = cuda_available()
    if not ok:
        raise StrataError(f"no CUDA device: {reason}", location=location_text(),
                          hint="device arrays need an NVIDIA GPU and its driver")


@cache
def _driver():
    return ctypes.CDLL("libcuda.so.1")


@cache
def _runtime():
    lib = ctypes.CDLL(cuda_runtime_library())
    lib.mgpuMemAlloc.restype = ctypes.c_void_p
    lib.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_bool]
    lib.mgpuMemFree.restype = None
    lib.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.mgpuMemcpy.restype = None
    lib.mgpuMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                               ctypes.c_void_p]
    lib.mgpuStreamCreate.restype = ctypes.c_void_p
    lib.mgpuStreamCreate.argtypes = []
    lib.mgpuStreamSynchronize.restype = None
    lib.mgpuStreamSynchronize.argtypes = [ctypes.c_void_p]
    return lib


def ensure_context() -> None:
    """Makes device 0's primary context current on this thread (once per thread).

    MLIR's wrappers push that context around most calls but not around every
    one (``mgpuMemFree``, ``mgpuMemcpy``); with it current they all find it.
    """
    if getattr(_local, "ready", False):
        return
    _require_device()
    cu = _driver()
    dev, ctx = ctypes.c_int(0), ctypes.c_void_p()
    for call, what in ((lambda: cu.cuInit(0), "cuInit"),
                       (lambda: cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet"),
                       (lambda: cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
                        "cuDevicePrimaryCtxRetain"),
                       (lambda: cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")):
        rc = call()
        if rc != 0:
            raise StrataError(f"{what} failed with CUresult {rc}", location=location_text())
    _local.ready = True


def _stream():
    """This thread's stream for transfers (created once)."""
    stream = getattr(_local, "stream", None)
    if stream is None:
        stream = _local.stream = _runtime().mgpuStreamCreate()
    return stream


class DeviceArray:
    """A C-contiguous array in device memory: ``shape``, ``dtype``, ``nbytes``, ``ptr``."""

    __slots__ = ("shape", "dtype", "nbytes", "ptr", "_lib", "__weakref__")

    def __init__(self, shape, dtype):
        dt = np.dtype(dtype)
        if dtype_of_numpy(dt) is None:
            raise StrataError(f"no strata element type for numpy dtype {dt}",
                              location=location_text())
        ensure_context()
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dt
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * dt.itemsize
        self._lib = _runtime()
        self.ptr = self._lib.mgpuMemAlloc(self.nbytes, None, False) or 0
        if self.nbytes and not self.ptr:
            raise StrataError(f"cannot allocate {self.nbytes} bytes of device memory",
                              location=location_text())

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def _copy(self, dst: int, src: int) -> None:
        if self.nbytes:
            ensure_context()
            stream = _stream()
            self._lib.mgpuMemcpy(dst, src, self.nbytes, stream)
            self._lib.mgpuStreamSynchronize(stream)

    def copy_from(self, array: np.ndarray) -> DeviceArray:
        """Overwrites this buffer with a host array of the same shape and dtype."""
        if array.shape != self.shape or array.dtype != self.dtype:
            raise StrataError(f"cannot copy a {array.dtype} array of shape {array.shape} into a "
                              f"device array {self.dtype}{list(self.shape)}",
                              location=location_text())
        host = np.ascontiguousarray(array)
        self._copy(self.ptr, host.ctypes.data)
        return self

    def numpy(self) -> np.ndarray:
        """A fresh host copy."""
        out = np.empty(self.shape, self.dtype)
        self._copy(out.ctypes.data, self.ptr)
        return out

    def __array__(self, dtype=None, copy=None):
        out = self.numpy()
        return out if dtype is None else out.astype(dtype)

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype}, ptr=0x{self.ptr:x})"

    def __del__(self):
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr:
            self._lib.mgpuMemFree(ptr, None)


def to_device(array) -> DeviceArray:
    """Copies a numpy array (or scalar) into a new DeviceArray."""
    host = np.asarray(array)
    if not host.dtype.isnative:
        host = host.astype(host.dtype.newbyteorder("="))
    return DeviceArray(host.shape, host.dtype).copy_from(host)
