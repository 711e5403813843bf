"""passes/linalg_ops.py builds the same ops as mlir.dialects.linalg, without its opdsl."""

import os
import subprocess
import sys

from mlir import ir
from mlir.dialects import arith, func, tensor

from strata.passes.linalg_ops import linalg as lite


def _build(L, dtype="f32"):
    """A function using every builder of linalg_ops, built with namespace ``L``."""
    with ir.Context(), ir.Location.unknown():
        m = ir.Module.create()
        el = ir.Type.parse(dtype)
        t = ir.RankedTensorType.get
        with ir.InsertionPoint(m.body):
            @func.FuncOp.from_py_func(t([4, 6], el), t([6, 5], el), t([3, 4, 6], el),
                                      t([3, 6, 5], el), ir.MemRefType.get([4, 6], el),
                                      ir.MemRefType.get([4, 6], el))
            def g(a, b, ba, bb, ma, mb):
                z = arith.constant(el, 0.0)
                out = [L.matmul(a, b, outs=[L.fill(z, outs=[tensor.empty([4, 5], el)])]),
                       L.batch_matmul(ba, bb, outs=[L.fill(z, outs=[tensor.empty([3, 4, 5],
                                                                                 el)])]),
                       L.copy(a, outs=[tensor.empty([4, 6], el)]),
                       L.transpose(a, outs=[tensor.empty([6, 4], el)],
                                   permutation=[1, 0]).results[0],
                       L.broadcast(b, outs=[tensor.empty([2, 6, 5], el)],
                                   dimensions=[0]).results[0]]
                L.copy(ma, outs=[mb])
                L.fill(z, outs=[mb])
                return out
        assert m.operation.verify()
        return m.operation.get_asm(print_generic_op_form=True)


def test_builders_match_the_upstream_ones():
    import mlir.dialects.linalg as full

    for dtype in ("f32", "f16", "bf16"):
        assert _build(lite, dtype) == _build(full, dtype)


def test_other_names_come_from_the_upstream_package():
    import mlir.dialects.linalg as full

    assert lite.conv_2d_nhwc_hwcf is full.conv_2d_nhwc_hwcf
    assert lite.GenericOp is full.GenericOp


def test_compiling_a_program_does_not_import_opdsl(tmp_path):
    code = ("import sys, numpy as np, strata\n"
            "from strata import demo\n"
            "for name in ('mlp', 'encoder_block'):\n"
            "    args = demo._inputs(np.random.default_rng(0), name)\n"
            "    out = strata.jit(getattr(demo, name))(*args)\n"
            "    ref = getattr(demo, 'np_' + name)(*[a.astype(np.float64) for a in args])\n"
            "    assert np.abs(out - ref).max() < 1e-4\n"
            "print(sorted(m for m in sys.modules if m.startswith('mlir.dialects.linalg')))\n")
    env = dict(os.environ, STRATA_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip().splitlines()[-1] == "[]"
