"""One measurement of ``bench/suite.py``, in its own fresh process.

    python bench/suite_worker.py ROW SYSTEM THREADS OUT_DIR [--budget SECONDS] [--max-dim N]

Prints one JSON line (its last line of stdout): ``first_s`` (everything before the
first result: strata's trace + compile with an empty cache, torch.compile's compile,
jax.jit's, the ONNX export and session / model compile, IREE's compile, plus the
first call), ``warm_s`` (best-of-5 mean seconds per warm call), ``faults`` (minor
page faults per warm call, from ``getrusage``) and ``out`` (where the result was
saved as .npy, for the driver's cross-check).

Systems: ``strata`` (and its variants), ``numpy``, ``torch``, ``torch.compile``,
``jax`` (``jax.jit`` of the row's jax function, XLA CPU), ``iree`` (the same jax
function lowered to StableHLO, compiled for llvm-cpu on this host with data tiling
and im2col convolutions: ``IREE_FLAGS``, and run on the ``local-task`` driver),
``onnxruntime`` and ``openvino`` (the row's torch function,
exported by ``torch.onnx.export(dynamo=True)`` at opset 18; OpenVINO in f32) and
``openvino bf16`` (OpenVINO at its default precision: bf16 where the CPU has it).
Every input, weights included, is a runtime argument, put on the system's side
once (device arrays, bound ORT values, OpenVINO input tensors). Thread counts: the
driver sets ``OPENBLAS_NUM_THREADS``/``OMP_NUM_THREADS`` and ``XLA_FLAGS`` before
this process starts; strata's is ``strata.jit(threads=...)``, torch's
``set_num_threads``, IREE's ``--task_topology_group_count``, ORT's
``intra_op_num_threads`` (inter-op 1), OpenVINO's ``INFERENCE_NUM_THREADS``. XLA's
CPU client sizes its thread pool from the CPUs this process may run on, whatever
``XLA_FLAGS`` says, so ``jax`` with fewer threads than CPUs also runs on that many
CPUs (``sched_setaffinity``). ``--max-dim`` caps every input dimension (tests).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite_rows import by_name  # noqa: E402


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def measure(fn, args, budget: float):
    """(first call seconds, best-of-5 mean warm seconds, faults per warm call, result)."""
    start = time.perf_counter()
    result = fn(*args)
    first = time.perf_counter() - start
    fn(*args)
    best, calls, faults = float("inf"), 0, 0
    for _ in range(5):
        n, f0, start = 0, _faults(), time.perf_counter()
        while True:
            fn(*args)
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= budget / 5:
                break
        faults += _faults() - f0
        calls += n
        best = min(best, elapsed / n)
    return first, best, faults / calls, result


def _need(fn, row, system, what):
    if fn is None:
        raise SystemExit(f"{system}: row '{row.name}' has no {what} function")
    return fn


def _jax_fn(row, args, threads):
    cpus = sorted(os.sched_getaffinity(0))
    if threads < len(cpus):
        os.sched_setaffinity(0, cpus[:threads])  # before XLA makes its thread pool
    import jax

    fn = jax.jit(_need(row.jax, row, "jax", "jax"))
    dargs = [jax.device_put(a) for a in args]

    def call(*a):
        return fn(*a).block_until_ready()
    return call, dargs


# IREE 3.13's defaults leave data tiling off and lower a convolution as direct loops: on this
# 2-core AVX-512 VM (loaded), 1 thread, matmul 1024^3 took 61 ms by default, 23 ms with data
# tiling; conv 3x3 1x64x56x56->64 NCHW 163 ms, 11 ms with data tiling and im2col. The
# peer is IREE at its best flags found, not its defaults.
IREE_FLAGS = ["--iree-llvmcpu-target-cpu=host", "--iree-opt-data-tiling=true",
              "--iree-global-opt-use-im2col-for-convs"]


def _iree_fn(row, args, threads):
    import iree.compiler as ic
    import iree.runtime as rt
    import jax

    text = str(jax.jit(_need(row.jax, row, "iree", "jax")).lower(*args).compiler_ir("stablehlo"))
    vmfb = ic.compile_str(text, target_backends=["llvm-cpu"], input_type="stablehlo",
                          extra_args=IREE_FLAGS)
    rt.flags.parse_flags(f"--task_topology_group_count={threads}")  # before the device
    config = rt.Config("local-task")
    ctx = rt.SystemContext(config=config)
    module = rt.VmModule.copy_buffer(ctx.instance, vmfb)
    ctx.add_vm_module(module)
    fn = ctx.modules[module.name]["main"]
    return fn, [rt.asdevicearray(config.device, a) for a in args]


def _onnx_model(row, args, out_dir) -> str:
    """The row's torch function (with its layout views and output layout) exported to an
    ONNX file at opset 18, every argument a graph input."""
    import torch

    class Program(torch.nn.Module):
        def forward(self, *a):
            y = row.torch(*(row.torch_in(*a) if row.torch_in else a))
            return row.torch_out(y) if row.torch_out else y

    _need(row.torch, row, "onnx export", "torch")
    targs = tuple(torch.from_numpy(a) for a in args)
    path = os.path.join(tempfile.mkdtemp(dir=out_dir), "model.onnx")
    torch.onnx.export(Program().eval(), targs, path, opset_version=18, dynamo=True,
                      external_data=False, verbose=False)
    return path


def _ort_fn(row, args, threads, out_dir):
    import onnxruntime as ort

    path = _onnx_model(row, args, out_dir)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    # the result's shape and dtype from one plain run, then an IO binding: the inputs bound
    # in place, the result written into one preallocated array on every call
    out = np.empty_like(sess.run(None, dict(zip(names, args, strict=True)))[0])
    binding = sess.io_binding()
    for name, a in zip(names, args, strict=True):
        binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy(a))
    binding.bind_ortvalue_output(sess.get_outputs()[0].name, ort.OrtValue.ortvalue_from_numpy(out))

    def call(keep=args):  # the bound values point into ``args``: kept alive with the call
        sess.run_with_iobinding(binding)
        return out
    return call, [], {}


def _openvino_fn(row, args, threads, out_dir, f32: bool):
    import openvino as ov

    path = _onnx_model(row, args, out_dir)
    core = ov.Core()
    config = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY"}
    if f32:
        config["INFERENCE_PRECISION_HINT"] = "f32"
    compiled = core.compile_model(core.read_model(path), "CPU", config)
    request = compiled.create_infer_request()
    for i, a in enumerate(args):
        request.set_input_tensor(i, ov.Tensor(a, shared_memory=True))
    # the result written into one preallocated array on every call, as with ORT
    port = compiled.output(0)
    out = np.empty(tuple(port.get_shape()), port.get_element_type().to_dtype())
    request.set_output_tensor(0, ov.Tensor(out, shared_memory=True))

    def call(keep=args):  # the input tensors point into ``args``: kept alive with the call
        request.infer()
        return out
    precision = compiled.get_property("INFERENCE_PRECISION_HINT")
    return call, [], {"precision": getattr(precision, "to_string", precision.__str__)()}


def _system_fn(row, system, threads, out_dir="."):
    """(callable, its arguments, extra fields for the JSON line)."""
    args = row.inputs()
    if system.startswith("strata"):
        import strata

        options = {} if system == "strata" else dict(row.variants[system])
        return strata.jit(row.strata, threads=threads, **options), args, {}
    if system == "numpy":
        return _need(row.numpy, row, system, "numpy"), args, {}
    if system == "jax":
        return (*_jax_fn(row, args, threads), {})
    if system == "iree":
        return (*_iree_fn(row, args, threads), {})
    if system == "onnxruntime":
        return _ort_fn(row, args, threads, out_dir)
    if system in ("openvino", "openvino bf16"):
        return _openvino_fn(row, args, threads, out_dir, f32=system == "openvino")
    if system not in ("torch", "torch.compile"):
        raise SystemExit(f"unknown system '{system}'")
    import torch

    torch.set_num_threads(threads)
    _need(row.torch, row, system, "torch")
    targs = [torch.from_numpy(a) for a in args]
    if row.torch_in:
        targs = row.torch_in(*targs)
    fn = row.torch
    if system == "torch.compile":
        fn = torch.compile(fn)

    def call(*a):
        with torch.no_grad():
            return fn(*a)
    return call, targs, {}


def _as_numpy(result):
    if hasattr(result, "detach"):
        result = result.detach()
        result = result.contiguous()
        return result.numpy()
    if hasattr(result, "to_host"):  # an IREE device array
        return np.array(result.to_host())
    return np.array(result)  # a copy: ORT / OpenVINO write the next result in place


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("row")
    p.add_argument("system")
    p.add_argument("threads", type=int)
    p.add_argument("out_dir")
    p.add_argument("--budget", type=float, default=1.0)
    p.add_argument("--max-dim", type=int, default=None,
                   help="cap every input dimension (a tiny run of a row, for tests)")
    a = p.parse_args(argv)
    row = by_name(a.row)
    if a.max_dim:
        row.shapes = [tuple(min(d, a.max_dim) for d in s) for s in row.shapes]
    start = time.perf_counter()
    fn, args, extra = _system_fn(row, a.system, a.threads, a.out_dir)
    prepare = time.perf_counter() - start
    first, warm, faults, result = measure(fn, args, a.budget)
    first += prepare
    if a.system.startswith("torch") and row.torch_out is not None:
        result = row.torch_out(result)
    out = _as_numpy(result)
    slug = re.sub(r"[^A-Za-z0-9]+", "_", f"{a.row}_{a.system}_{a.threads}")
    path = os.path.join(a.out_dir, f"{slug}.npy")
    np.save(path, out)
    print(json.dumps({"first_s": first, "warm_s": warm, "faults": faults, "out": path,
                      **extra}))


if __name__ == "__main__":
    main()
