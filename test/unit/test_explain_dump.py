"""STRATA_DUMP_DIR: the IR after every pass of every compile, in a tree to diff."""

from __future__ import annotations

import os

import numpy as np

import strata


def test_dump_dir_holds_every_pass_of_every_level(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_DUMP_DIR", str(tmp_path))
    monkeypatch.setenv("STRATA_CACHE", "0")

    @strata.jit
    def scaled_softmax(x):
        return strata.softmax(x) * 2.0

    x = np.ones((4, 8), np.float32)
    np.testing.assert_allclose(scaled_softmax(x), np.full((4, 8), 0.25, np.float32))
    scaled_softmax(np.ones((5, 8), np.float32))  # a new shape: a second compile, folder 1
    assert sorted(os.listdir(tmp_path)) == ["scaled_softmax"]
    compiles = tmp_path / "scaled_softmax"
    assert sorted(os.listdir(compiles)) == ["0", "1"]
    levels = sorted(os.listdir(compiles / "0"))
    assert levels == ["0-strata", "1-linalg", "2-fused", "3-layout", "4-bufferized", "5-llvm",
                      "6-machine-code"]

    def passes(level):
        (scope,) = os.listdir(compiles / "0" / level)
        files = [f for f in os.listdir(compiles / "0" / level / scope) if f.endswith(".mlir")]
        return {int(f.split("_", 1)[0]): (compiles / "0" / level / scope / f) for f in files}

    fused = passes("2-fused")
    names = [fused[i].name.split("_", 1)[1] for i in sorted(fused)]
    assert names[:4] == ["strata-attention.mlir", "strata-decompose.mlir",
                         "strata-conv-to-matmul.mlir", "strata-fuse.mlir"]
    assert "strata.softmax" not in fused[0].read_text() and "linalg.generic" in \
        fused[1].read_text()
    strata_level = passes("0-strata")
    assert '"strata.softmax"' in strata_level[0].read_text()
    assert "test_explain_dump.py" in strata_level[0].read_text()  # locations are kept
    llvm = passes("5-llvm")
    assert "llvm.func @scaled_softmax" in llvm[max(llvm)].read_text()
    # the final code: LLVM IR as translated and as optimized, and the assembly
    code = compiles / "0" / "6-machine-code"
    assert sorted(os.listdir(code)) == ["module.ll", "module.opt.ll", "module.s"]
    assert "define void @scaled_softmax(" in (code / "module.ll").read_text()
    assert "define void @scaled_softmax(" in (code / "module.opt.ll").read_text()
    asm = (code / "module.s").read_text()
    assert "scaled_softmax:" in asm and "ret" in asm

