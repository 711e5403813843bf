"""strata.from_torch: torch.export programs as strata modules, through strata-opt and back."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torch_models  # noqa: E402

import strata  # noqa: E402
import strata.torch as st  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPT = os.path.join(os.path.dirname(sys.executable), "strata-opt")
MODELS_FILE = os.path.abspath(torch_models.__file__)


def _export(name):
    model, inputs = torch_models.build(name)
    return model, inputs, torch.export.export(model, inputs)


@pytest.mark.parametrize("name", ["mlp", "small_cnn", "encoder_layer", "gpt_block"])
def test_from_torch_runs_like_eager(name):
    model, inputs, ep = _export(name)
    m = strata.from_torch(ep)
    kinds = [kind for _, kind, _ in m.torch_inputs]
    assert kinds[-1] == "user_input" and "parameter" in kinds  # weights are arguments
    got = strata.compile(m)(*st.arguments(ep, *inputs))
    with torch.no_grad():
        want = model(*inputs).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * max(1, np.abs(want).max()))


def test_ops_carry_the_models_source_lines():
    _, _, ep = _export("mlp")
    text = strata.from_torch(ep).text(debug_info=True)
    # MLP.forward's return line: fc1 (matmul, add), gelu, relu, fc2
    line = next(i for i, s in enumerate(open(MODELS_FILE), 1) if "self.fc2(F.gelu" in s)
    assert f'loc("{MODELS_FILE}":{line}:1)' in text
    for op in ("strata.matmul", "strata.gelu", "strata.relu"):
        assert op in text
    assert "torch/nn/modules" not in text  # the user's line, not torch's


def test_module_round_trips_through_strata_opt(tmp_path):
    _, inputs, ep = _export("small_cnn")
    m = strata.from_torch(ep)
    src = tmp_path / "cnn.mlir"
    src.write_text(m.text(debug_info=True))
    printed = subprocess.run([OPT, str(src)], capture_output=True, text=True, timeout=300)
    assert printed.returncode == 0, printed.stderr
    again = strata.parse(printed.stdout)
    assert str(again) == str(strata.parse(m.text()))
    for level in ("linalg", "bufferized"):
        r = subprocess.run([OPT, str(src), f"--compile-to={level}"], capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert re.search(r'"strata\.\w+"\(', r.stdout) is None  # no strata op is left
    linalg = strata.compile(m, compile_to="linalg")
    assert "linalg" in str(linalg)
    header = strata.export_library(m, path=str(tmp_path / "cnn.so"))
    assert os.path.exists(tmp_path / "cnn.so") and "main" in open(header).read()


def _running_max_features():
    torch.manual_seed(0)
    return torch_models.RunningMaxFeatures().eval(), (torch.randn(4, 12),)


def test_unsupported_op_is_a_located_error():
    model, inputs = _running_max_features()
    ep = torch.export.export(model, inputs)
    with pytest.raises(strata.StrataError) as e:
        strata.from_torch(ep)
    line = next(i for i, s in enumerate(open(MODELS_FILE), 1) if "torch.cummax(" in s)
    assert f"{MODELS_FILE}:{line}:1: error: aten.cummax has no strata op" in str(e.value)


def test_from_torch_rejects_other_objects():
    with pytest.raises(strata.StrataError, match="ExportedProgram"):
        strata.from_torch(torch.nn.Linear(2, 2))


def test_explain_lists_subgraphs_breaks_and_locations():
    model, inputs = _running_max_features()
    report = st.explain(model, *inputs)
    kinds = [s.kind for s in report.subgraphs]
    assert kinds == ["strata", "eager", "strata"]
    (op, why, where), = report.eager_ops
    line = next(i for i, s in enumerate(open(MODELS_FILE), 1) if "torch.cummax(" in s)
    assert op == "aten.cummax.default" and "no strata op" in why
    assert where == f"{MODELS_FILE}:{line}"
    text = str(report)
    assert "3 subgraphs (2 in strata, 1 in eager PyTorch)" in text
    assert f"split by aten.cummax.default: aten.cummax has no strata op  at {where}" in text
    with torch.no_grad():  # the split graph still computes the model
        want = model(*inputs)
        got = torch.compile(model, backend="strata")(*inputs)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_explain_shows_why_a_subgraph_failed_to_compile(monkeypatch):
    """A strata compile failure leaves the subgraph eager, and explain prints the error."""
    import strata.torch.backend as backend

    def fail(*args, **kwargs):
        raise strata.StrataError("injected failure", location="<test>")

    monkeypatch.setattr(backend, "import_graph", fail)
    model, inputs = torch_models.build("mlp")
    torch._dynamo.reset()
    report = st.explain(model, *inputs)
    assert [s.kind for s in report.subgraphs] == ["eager"]
    assert "strata could not compile it: <test>: error: injected failure" in str(report)


def test_import_strata_does_not_import_torch():
    code = ("import sys, strata; strata.Module; strata.compile; "
            "assert 'torch' not in sys.modules, 'torch imported'; print('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    assert r.stdout.strip() == "ok", r.stderr


def test_strata_torch_is_not_shadowing_torch():
    import strata.torch.aten_ops as a

    assert a.torch is torch and not torch.__name__.startswith("strata")


def test_without_torch_a_clear_error():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import strata\n"
            "try:\n    strata.from_torch\nexcept strata.StrataError as e:\n    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    assert "strata.from_torch needs PyTorch, which is not installed" in r.stdout, r.stderr
