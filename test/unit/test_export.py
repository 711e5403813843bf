"""strata.export_library: a shared library and a C header that a C compiler accepts."""

import shutil
import subprocess

import numpy as np
import pytest

import strata
from strata.runtime import aot

pytestmark = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")


def _mlp(x, w, b):
    return strata.relu(x @ w + b), x.sum(axis=1)


def test_exported_library_matches_numpy(tmp_path):
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((5, 7), (7, 3), (3,)))
    lib_path = tmp_path / "mlp.so"
    header = strata.export_library(_mlp, x, w, b, path=str(lib_path), cpu="x86-64-v3")
    text = open(header).read()
    assert "void _mlir_ciface__mlp(strata_memref_f32_2d *in0" in text
    assert "strata_memref_f32_1d *out1 /* 5 f32 */" in text
    kernel = aot.SharedLibrary(str(lib_path)).kernel("_mlp", [(5, 7), (7, 3), (3,), (5, 3), (5,)])
    y, s = np.empty((5, 3), np.float32), np.empty(5, np.float32)
    kernel([x, w, b, y, s])
    np.testing.assert_allclose(y, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s, x.sum(axis=1), rtol=1e-5, atol=1e-5)
    cc = shutil.which("cc") or shutil.which("gcc")
    src = tmp_path / "use.c"
    src.write_text(f'#include "{header}"\nint main(void) {{ return 0; }}\n')
    subprocess.run([cc, "-fsyntax-only", str(src)], check=True)


def test_dynamic_dims_are_rejected_with_a_located_error(tmp_path):
    with pytest.raises(strata.StrataError, match=r"test_export.py:\d+:\d+: error: export_library: "
                       r"function 'f' has dynamic dims"):
        m = strata.Module()
        f = m.function("f", x=strata.TensorSpec((None, 3)))
        f.ret(f.args[0] * 2.0)
        strata.export_library(m, path=str(tmp_path / "f.so"))
    assert not (tmp_path / "f.so").exists()
