"""strata.show / strata draw: the picture of a function at a level (Graphviz)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import strata
from strata.errors import StrataError
from strata.explain import graph as graph_mod
from strata.explain.show import show

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not installed (apt-get install graphviz)")
HERE = os.path.basename(__file__)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mlp(x, w, b, w2):
    h = strata.relu(x @ w + b)                      # line A: matmul, add; relu
    y = strata.tanh(h * 2.0 + 1.0)
    return strata.softmax(y @ w2)


def _mlp_args():
    g = np.random.default_rng(0)
    return [g.standard_normal(s).astype(np.float32) for s in ((64, 128), (128, 256), (256,),
                                                               (256, 32))]


def _line(text):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if text in line)


def test_fused_level_draws_the_fused_groups_as_clusters_with_the_reason():
    pic = show(mlp, *_mlp_args(), level="fused", blas="never")
    g = pic.graph
    assert g.level == "fused" and g.name == "mlp"
    # one cluster: the epilogue chain (add, relu, mul, add, tanh) tiled with the first matmul
    assert len(g.clusters) == 1
    (title,) = g.clusters.values()
    assert f"relu at {HERE}:{_line('line A')}" in title
    assert "why:" in title and "epilogue runs on the tile" in title
    (tiled,) = [n for n in g.nodes if n.cluster]
    assert tiled.label.startswith("scf.for (tiled)") and "linalg.matmul" in tiled.label
    # every kernel names the user's line; inputs feed the tiled kernel
    kernels = [n for n in g.nodes if n.kind == "op"]
    assert kernels and all(n.location.startswith(__file__) for n in kernels)
    assert {s for s, d, _ in g.edges if d == tiled.id} == {"a0", "a1", "a2"}
    # the softmax is one row kernel (strata-row-kernels), not in a cluster (its producer
    # matmul has 2 users)
    (softmax,) = [n for n in g.nodes if "user op: softmax" in n.label and n.cluster is None]
    assert "(row kernel)" in softmax.label and "softmax" in softmax.label
    assert ("a3", next(n.id for n in g.nodes if n.label.startswith("linalg.matmul")),
            "256x32xf32") in g.edges


def test_plumbing_is_left_out_and_blas_calls_are_marked():
    pic = show(mlp, *_mlp_args(), level="fused", blas="always")
    labels = [n.label for n in pic.graph.nodes]
    assert not any(label.startswith(("tensor.empty", "arith.constant")) for label in labels)
    assert not any(label.startswith("linalg.fill") for label in labels)
    blas = [n for n in pic.graph.nodes if n.kind == "blas"]
    assert len(blas) == 2 and all("OpenBLAS sgemm" in n.label for n in blas)
    # a matmul given to BLAS keeps its epilogue apart: the cluster is the elementwise chain
    (title,) = pic.graph.clusters.values()
    assert "tile" not in title and "single use" in title
    assert all(n.cluster is None for n in blas)


def conv_chain(x, w, w2):
    y = strata.relu(strata.conv2d(x, w, padding=1))
    return strata.conv2d(strata.max_pool2d(y, 2), w2, padding=1)


def test_layout_level_labels_rank4_tensors_with_their_layout():
    g = np.random.default_rng(1)
    args = [g.standard_normal(s).astype(np.float32) for s in ((1, 3, 16, 16), (8, 3, 3, 3),
                                                               (8, 8, 3, 3))]
    pic = show(conv_chain, *args, level="layout")
    labels = [label for _, _, label in pic.graph.edges]
    assert "1x8x8x8xf32 NCHW" in labels
    assert all(not label.startswith("8x8x3x3") or "NC" not in label for label in labels)


def test_layout_conversions_are_highlighted():
    def f(x):
        return strata.transpose(strata.relu(x), [1, 0]) * 2.0
    pic = show(f, np.ones((4, 8), np.float32), level="fused")
    conv = [n for n in pic.graph.nodes if n.kind == "conversion"]
    assert conv and conv[0].label.startswith("linalg.transpose [1, 0]")
    assert "#fbbc04" in pic.dot


@needs_dot
def test_svg_png_and_files(tmp_path):
    pic = show(mlp, *_mlp_args(), level="fused", blas="never")
    svg = pic.svg
    assert svg.lstrip().startswith(("<?xml", "<!DOCTYPE", "<svg"))
    assert re.search(r'<g id="clust\d+" class="cluster">', svg)
    assert "fused into one kernel" in svg and f"{HERE}:{_line('line A')}" in svg
    assert pic._repr_svg_() == svg
    assert pic.png()[:8] == b"\x89PNG\r\n\x1a\n"
    paths = pic.save(str(tmp_path / "mlp"))
    assert sorted(os.path.basename(p) for p in paths) == ["mlp.dot", "mlp.png", "mlp.svg"]
    assert sorted(os.listdir(tmp_path)) == ["mlp.dot", "mlp.png", "mlp.svg"]


def test_missing_dot_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(graph_mod.shutil, "which", lambda name: None)
    pic = show(mlp, *_mlp_args(), level="linalg")
    with pytest.raises(StrataError, match=r"Graphviz's `dot`.*apt-get install graphviz"):
        _ = pic.svg


def test_bad_levels_and_functions():
    with pytest.raises(StrataError, match="cannot draw the 'llvm' level"):
        show(mlp, *_mlp_args(), level="llvm")
    with pytest.raises(StrataError, match="unknown level 'fusd'"):
        show(mlp, *_mlp_args(), level="fusd")
    with pytest.raises(StrataError, match=r"no function 'g' \(functions: mlp\)"):
        show(mlp, *_mlp_args(), function="g")


MLIR = """func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %m = "strata.matmul"(%x, %w) : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %r = "strata.relu"(%m) : (tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
"""


def _strata(*args, **kw):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "strata"), *args],
                          capture_output=True, text=True, timeout=300, **kw)


@needs_dot
def test_cli_draw_writes_the_three_files(tmp_path):
    src = tmp_path / "prog.mlir"
    src.write_text(MLIR)
    p = _strata("draw", str(src), "--level", "fused", "--blas", "never", "-o",
                str(tmp_path / "out"), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(tmp_path)) == ["out.dot", "out.png", "out.svg", "prog.mlir"]
    dot = (tmp_path / "out.dot").read_text()
    assert "subgraph cluster_" in dot and "prog.mlir:3" in dot


@pytest.mark.parametrize("args, text, message", [
    (["nope.mlir"], None, r"strata draw: cannot read 'nope.mlir': No such file"),
    (["-"], 'func.func @f() {\n  "strata.bogus"() : () -> ()\n}\n',
     r"^<stdin>:2:3: error: unregistered operation 'strata.bogus'"),
    (["prog.mlir", "--level", "llvm"], None, r"^<show>: error: cannot draw the 'llvm' level"),
    (["prog.mlir", "--function", "g"], None, r"no function 'g' \(functions: f\)"),
])
def test_cli_draw_errors_are_diagnostics_and_leave_no_file(tmp_path, args, text, message):
    (tmp_path / "prog.mlir").write_text(MLIR)
    p = _strata("draw", *args, cwd=tmp_path, input=text)
    assert p.returncode == 1
    assert re.search(message, p.stderr, re.M), p.stderr
    assert "Traceback" not in p.stderr
    assert os.listdir(tmp_path) == ["prog.mlir"]
