"""The GPU path: compile-only checks (any machine), the no-device error, numerics on a device.

Compile-only tests lower through strata-gpu with format=isa (PTX, no ptxas
needed) or format=bin (cubin; needs ptxas). Numerics tests run only where
``cuda_available()`` finds a device; elsewhere they are skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import strata
from strata.demo import _np_layer_norm, _np_softmax
from strata.runtime.cuda import compile_cuda, cuda_available

AVAILABLE, REASON = cuda_available()
needs_device = pytest.mark.skipif(not AVAILABLE, reason=f"no CUDA device: {REASON}")
needs_ptxas = pytest.mark.skipif(
    not (shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")),
    reason="ptxas (CUDA toolkit) not found")


def _mm(a, b):
    return a @ b


def _ew(x, y):
    return strata.relu(x * y + x)


def _softmax(x):
    return strata.softmax(x, axis=-1)


def _rowsum(x):
    return strata.sum(x, axis=1)


def _layer_norm(x, g, b):
    return strata.layer_norm(x, g, b)


def _rand(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(0)


# ----------------------------------------------------------------------------- compile only

def test_matmul_ptx_uses_shared_memory_and_barriers(rng):
    a, b = _rand(rng, 128, 64), _rand(rng, 64, 256)
    prog = compile_cuda(_mm, a, b, format="isa")
    ptx = prog.ptx()
    mm = [p for p in ptx.values() if ".shared" in p]
    assert mm, f"no kernel uses shared memory: {list(ptx)}"
    assert "bar.sync" in mm[0]
    assert ".target sm_90" in mm[0]
    assert ".maxntid 16, 16, 1" in mm[0]
    assert "gpu.binary" in prog.gpu_binary_ir


def test_softmax_and_rowsum_use_block_reductions(rng):
    for fn in (_softmax, _rowsum):
        prog = compile_cuda(fn, _rand(rng, 64, 1000), format="isa")
        ptx = "\n".join(prog.ptx().values())
        assert "shfl.sync.bfly" in ptx, fn.__name__
        assert "bar.sync" in ptx, fn.__name__


def test_reduction_is_one_block_per_row(rng):
    prog = compile_cuda(_rowsum, _rand(rng, 64, 1000), format="isa")
    from strata.runtime.cuda import CudaProgram

    assert isinstance(prog, CudaProgram)
    # 64 rows -> 64 blocks of 256 threads (not one thread per row)
    assert "blocks in (%" in prog.ir
    assert any(".maxntid 256, 1, 1" in p for p in prog.ptx().values())


def test_f16_reduction_accumulates_in_f32(rng):
    prog = compile_cuda(_rowsum, _rand(rng, 32, 512, dtype=np.float16), format="isa")
    ptx = "\n".join(prog.ptx().values())
    assert "cvt.f32.f16" in ptx
    assert "shfl.sync.bfly.b32" in ptx


def test_elementwise_is_coalesced(rng):
    prog = compile_cuda(_ew, _rand(rng, 1024, 512), _rand(rng, 1024, 512), format="isa")
    ptx = "\n".join(prog.ptx().values())
    assert ".maxntid 256, 1, 1" in ptx
    assert "%tid.x" in ptx


@needs_ptxas
def test_cubin_and_host_fully_lowered(rng):
    prog = compile_cuda(_layer_norm, _rand(rng, 32, 64), _rand(rng, 64), _rand(rng, 64))
    assert 'bin = "\\7FELF' in prog.gpu_binary_ir
    ops = {line.split("=")[-1].strip().split(" ")[0] for line in prog.ir.splitlines()
           if line.strip() and not line.strip().startswith(("}", "^", "//", "module"))}
    leftovers = {o for o in ops if "." in o and not o.startswith(("llvm.", "gpu.binary",
                                                                   "gpu.launch_func", "\""))}
    assert not leftovers, leftovers


@needs_ptxas
def test_demo_models_compile():
    from strata import demo

    r = np.random.default_rng(1)
    for kind, fn in (("mlp", demo.mlp), ("encoder", demo.encoder_block)):
        prog = compile_cuda(fn, *demo._inputs(r, kind))
        assert prog.gpu_binary_ir.count("gpu.binary") >= 5, kind


def test_guards_checked_without_a_device(rng):
    a, b = _rand(rng, 128, 64), _rand(rng, 64, 256)
    prog = compile_cuda(_mm, a, b, format="isa")
    with pytest.raises(strata.StrataError, match="expects tensor<128x64xf32>"):
        prog(a[:3], b)
    with pytest.raises(strata.StrataError, match="expected 2 arguments"):
        prog(a)


def test_resident_variant_copies_nothing(rng):
    x, w = _rand(rng, 64, 32), _rand(rng, 32, 16)
    prog = compile_cuda(lambda x, w: strata.relu(x @ w), x, w, format="isa")
    resident = str(prog.lower_to("gpu", resident=True).mlir)
    copying = str(prog.lower_to("gpu").mlir)
    assert "gpu.memcpy" in copying
    assert "gpu.memcpy" not in resident
    # inputs then the out-param, all device buffers written/read by kernels
    assert ("func.func @main(%arg0: memref<64x32xf32>, %arg1: memref<32x16xf32>, "
            "%arg2: memref<64x16xf32>)") in resident
    assert "%arg2 : memref<64x16xf32>" in resident.split("gpu.module")[0]


def test_compile_to_for_cuda_returns_the_level(rng):
    x = _rand(rng, 8, 32)
    for level, marker in (("gpu", "gpu.launch_func"), ("nvvm", "nvvm.read.ptx.sreg"),
                          ("llvm", "gpu.binary")):
        m = strata.compile(_softmax, x, target="cuda", compile_to=level)
        assert isinstance(m, strata.Module)
        assert marker in str(m.mlir), level
    with pytest.raises(strata.StrataError, match="compile_to must be one of gpu, nvvm, llvm"):
        strata.compile(_softmax, x, target="cuda", compile_to="bufferized")


@pytest.mark.skipif(AVAILABLE, reason="a CUDA device is present")
def test_device_arrays_need_a_device():
    from strata.runtime.device import DeviceArray, to_device

    with pytest.raises(strata.StrataError, match="no CUDA device"):
        to_device(np.ones(4, np.float32))
    with pytest.raises(strata.StrataError, match="no CUDA device"):
        DeviceArray((4,), np.float32)


def _fake_device_array(shape, dtype):
    """A DeviceArray header with no buffer behind it (never dereferenced here)."""
    from strata.runtime.device import DeviceArray

    d = object.__new__(DeviceArray)
    d.shape, d.dtype, d.nbytes, d.ptr = shape, np.dtype(dtype), 0, 0
    return d


@pytest.mark.skipif(AVAILABLE, reason="a CUDA device is present")
def test_device_array_call_checks_compiles_resident_then_needs_a_device(rng):
    prog = compile_cuda(_two_layers(), format="isa")
    assert len(prog._cache) == 2
    with pytest.raises(strata.StrataError, match="argument 'h' expects tensor<48x64xf32>, got a "
                                                 "float16 device array of shape"):
        prog.second(_fake_device_array((48, 64), np.float16))
    with pytest.raises(strata.StrataError, match="expects tensor<48x64xf32>, got shape"):
        prog.second(_fake_device_array((48, 63), np.float32))
    with pytest.raises(strata.StrataError, match="cannot run on the GPU: no CUDA device"):
        prog.second(_fake_device_array((48, 64), np.float32))
    resident = [f for f in prog._cache.values() if f.resident]
    assert [f.name for f in resident] == ["second"]
    assert "mgpuMemcpy" not in resident[0].ir
    assert "mgpuMemcpy" in next(f for f in prog._cache.values() if not f.resident).ir


@pytest.mark.skipif(AVAILABLE, reason="a CUDA device is present")
def test_no_device_is_a_clear_error():
    # In a subprocess: were the engine built without a driver, the process would abort.
    code = textwrap.dedent("""
        import numpy as np, strata
        from strata.runtime.cuda import compile_cuda
        def f(x, y):
            return x + y
        a = np.ones((4, 8), np.float32)
        prog = compile_cuda(f, a, a, format="isa")
        assert "gpu.binary" in prog.gpu_binary_ir
        try:
            prog(a, a)
        except strata.StrataError as e:
            print("STRATA-ERROR:", e)
        else:
            print("NO ERROR")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "STRATA-ERROR:" in r.stdout, r.stdout + r.stderr
    assert "no CUDA device:" in r.stdout


# ----------------------------------------------------------------------------- numerics

@needs_device
@pytest.mark.parametrize("m,k,n", [(128, 64, 256), (64, 32, 10), (100, 48, 36)])
def test_matmul_numerics(rng, m, k, n):
    a, b = _rand(rng, m, k), _rand(rng, k, n)
    out = compile_cuda(_mm, a, b)(a, b)
    np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


@needs_device
def test_elementwise_numerics(rng):
    x, y = _rand(rng, 1024, 512), _rand(rng, 1024, 512)
    out = compile_cuda(_ew, x, y)(x, y)
    np.testing.assert_allclose(out, np.maximum(x * y + x, 0), rtol=1e-6, atol=1e-6)


@needs_device
@pytest.mark.parametrize("shape", [(64, 1000), (7, 33), (128, 4096)])
def test_softmax_and_rowsum_numerics(rng, shape):
    x = _rand(rng, *shape)
    np.testing.assert_allclose(compile_cuda(_softmax, x)(x), _np_softmax(x.astype(np.float64)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(compile_cuda(_rowsum, x)(x), x.astype(np.float64).sum(1),
                               rtol=1e-4, atol=1e-3)


@needs_device
def test_f16_rowsum_numerics(rng):
    x = _rand(rng, 32, 2048, dtype=np.float16)
    out = compile_cuda(_rowsum, x)(x)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float64), x.astype(np.float64).sum(1),
                               rtol=2e-3, atol=0.1)


@needs_device
def test_layer_norm_numerics(rng):
    x, g, b = _rand(rng, 32, 64), _rand(rng, 64), _rand(rng, 64)
    out = compile_cuda(_layer_norm, x, g, b)(x, g, b)
    np.testing.assert_allclose(out, _np_layer_norm(x.astype(np.float64), g, b),
                               rtol=1e-4, atol=1e-4)


@needs_device
def test_demo_models_numerics():
    from strata import demo

    r = np.random.default_rng(2)
    for kind, fn, ref in (("mlp", demo.mlp, demo.np_mlp),
                          ("encoder", demo.encoder_block, demo.np_encoder_block)):
        args = demo._inputs(r, kind)
        out = compile_cuda(fn, *args)(*args)
        expect = ref(*[a.astype(np.float64) for a in args])
        scale = float(np.max(np.abs(expect))) or 1.0
        assert float(np.max(np.abs(out - expect))) <= 1e-4 * scale + 1e-5, kind


@needs_device
def test_repeated_calls_and_two_functions(rng):
    x = _rand(rng, 16, 128)
    prog = compile_cuda(_softmax, x)
    for _ in range(3):
        np.testing.assert_allclose(prog(x), _np_softmax(x.astype(np.float64)), rtol=1e-5,
                                   atol=1e-6)


def _two_layers():
    m = strata.Module()
    f = m.function("first", x=strata.TensorSpec((48, 32)), w=strata.TensorSpec((32, 64)))
    f.ret(strata.relu(f.arg("x") @ f.arg("w")))
    g = m.function("second", h=strata.TensorSpec((48, 64)))
    g.ret(strata.softmax(g.arg("h"), axis=-1), strata.sum(g.arg("h"), axis=1))
    return m


@needs_device
def test_device_arrays_stay_on_the_device(rng):
    from strata.runtime.device import DeviceArray, to_device

    x, w = _rand(rng, 48, 32), _rand(rng, 32, 64)
    prog = compile_cuda(_two_layers())
    dh = prog.first(to_device(x), w)          # a numpy argument is copied up first
    assert isinstance(dh, DeviceArray) and dh.shape == (48, 64)
    dsm, dsum = prog.second(dh)
    h = np.maximum(x.astype(np.float64) @ w, 0)
    np.testing.assert_allclose(dh.numpy(), h, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dsm.numpy(), _np_softmax(h), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dsum.numpy(), h.sum(1), rtol=1e-4, atol=1e-3)
    # the copying variant of the same function agrees
    np.testing.assert_allclose(prog.second(dh.numpy())[0], dsm.numpy(), rtol=1e-6, atol=1e-7)
    with pytest.raises(strata.StrataError, match="expects tensor<48x64xf32>, got shape"):
        prog.second(to_device(x))


@needs_device
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.bool_])
def test_device_array_round_trip(rng, dtype):
    from strata.runtime.device import to_device

    for shape in [(0,), (1,), (7, 3), (33, 65)]:
        x = (rng.standard_normal(shape) * 10).astype(dtype)
        d = to_device(x)
        assert d.shape == shape and d.dtype == x.dtype
        np.testing.assert_array_equal(d.numpy(), x)
