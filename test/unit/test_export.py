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


def _add(x):
    return x + 1.0


@pytest.mark.parametrize("where,problem", [
    ("missing/dir/lib.so", r"cannot be written: the directory '.*missing/dir' does not exist"),
    (".", r"is a directory"),
    ("file.txt/lib.so", r"cannot be written: '.*file.txt' is not a directory"),
])
def test_a_bad_destination_is_named_before_compiling(tmp_path, monkeypatch, where, problem):
    (tmp_path / "file.txt").write_text("not a folder")
    monkeypatch.chdir(tmp_path)
    compiled = []
    monkeypatch.setattr("strata.runtime.export.build_shared_library",
                        lambda *a, **k: compiled.append(a))
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(strata.StrataError, match=r"test_export.py:\d+:\d+: error: export_library: "
                       rf"'{where}' {problem}"):
        strata.export_library(_add, np.ones(3, np.float32), path=where)
    assert not compiled  # checked first: nothing was compiled
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_an_unwritable_destination_is_a_strata_error(tmp_path):
    # /proc accepts no new files, even from root (a chmod'ed folder would not stop root)
    with pytest.raises(strata.StrataError, match=r"error: export_library: '/proc/lib.so' "
                       r"cannot be written: the directory '/proc' is not writable"):
        strata.export_library(_add, np.ones(3, np.float32), path="/proc/lib.so")


def test_bool_results_are_exported_as_bytes(tmp_path):
    x = np.array([0.5, -1.0, 2.0, np.nan], np.float32)
    header = strata.export_library(lambda a: a > 0.0, x, path=str(tmp_path / "gt.so"))
    assert "strata_memref_i1_1d *out0 /* 4 i1 */" in open(header).read()
    assert "uint8_t *aligned" in open(header).read()
    out = np.empty(4, np.bool_)
    aot.SharedLibrary(str(tmp_path / "gt.so")).kernel("main", [(4,), (4,)])([x, out])
    np.testing.assert_array_equal(out, x > 0)


@pytest.mark.parametrize("gold", ["fails", "missing"])
def test_the_link_falls_back_to_the_default_linker(tmp_path, monkeypatch, gold):
    # gold links where there is one (the faster link); when it fails or is missing, the
    # driver's default linker links the same library
    real_run, real_which = aot._run, aot._which
    links = []

    def run(cmd, what):
        if what == "linking":
            links.append("-fuse-ld=gold" in cmd)
            if "-fuse-ld=gold" in cmd:
                raise strata.StrataError("linking failed (gold)", location="<aot>")
        real_run(cmd, what)

    monkeypatch.setattr(aot, "_run", run)
    if gold == "missing":
        monkeypatch.setattr(aot, "_which", lambda tool: None if tool == "ld.gold"
                            else real_which(tool))
    x, w, b = (np.ones(s, np.float32) for s in ((2, 3), (3, 4), (4,)))
    lib_path = tmp_path / "mlp.so"
    strata.export_library(_mlp, x, w, b, path=str(lib_path))
    kernel = aot.SharedLibrary(str(lib_path)).kernel("_mlp", [(2, 3), (3, 4), (4,), (2, 4), (2,)])
    y, s = np.empty((2, 4), np.float32), np.empty(2, np.float32)
    kernel([x, w, b, y, s])
    np.testing.assert_allclose(y, np.full((2, 4), 4.0))
    if gold == "missing":
        assert links == [False]
    elif real_which("ld.gold"):
        assert links == [True, False]
