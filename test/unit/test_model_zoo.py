"""The model zoo: stock Hugging Face ``transformers`` models (zoo_models.py: the library's
own classes at tiny configs, random weights, no downloads) through
``torch.compile(model, backend="strata")``, against eager PyTorch, and
``strata.torch.explain``: every op runs in strata, or the allow-list below says which op
does not and why."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import zoo_models  # noqa: E402

import strata.torch  # noqa: E402
from strata.torch.backend import strata_backend  # noqa: E402

# max |strata - eager f32| / max(1, max |eager f32|): f32 rounding; bf16's 8-bit mantissa
# through two layers (as test_torch_backend.py)
TOLERANCE = {torch.float32: 1e-4, torch.bfloat16: 8e-2}

# model -> {op left to eager PyTorch: why}; each entry is asserted (the op must be eager,
# and no other op may be). Every model of the zoo now runs whole in strata.
EAGER_OPS: dict[str, dict[str, str]] = {}

# ops that show each model's own parts ran in strata (transformers 5.25.0's graphs)
FEATURES = {
    "gpt2": ["aten.tanh.default", "aten.native_layer_norm.default"],  # gelu_new, LayerNorm
    "llama": ["aten.rsqrt.default", "aten.cos.default", "aten.sin.default",  # RMSNorm, RoPE
              "aten.sigmoid.default"],  # SiLU
    "mistral": ["aten.bitwise_and.Tensor", "aten.cos.default"],  # sliding window & causal
    "qwen2": ["aten.addmm.default", "aten.cos.default"],  # biased q/k/v, RoPE
    "bert": ["aten.index.Tensor", "aten.bitwise_and.Tensor", "aten.gelu.default"],  # padding
    "distilbert": ["aten.index.Tensor", "aten.bitwise_and.Tensor"],
    "t5_encoder": ["aten.log.default", "aten.minimum.default",  # relative position buckets
                   "aten.index.Tensor"],
    "vit": ["aten.convolution.default", "aten.cat.default"],  # patches, class token
    "whisper_encoder": ["aten.convolution.default", "aten.gelu.default"],  # conv1d stem
}


def _error(got, want):
    want = want.float()
    return ((got.float() - want).abs().max() / max(1.0, want.abs().max().item())).item()


def _cast(inputs, dtype):
    return tuple(x.to(dtype) if x.is_floating_point() else x for x in inputs)


def test_the_zoo_is_complete():
    assert sorted(FEATURES) == sorted(zoo_models.MODELS)
    assert set(EAGER_OPS) <= set(zoo_models.MODELS)
    config = zoo_models.build("llama")[0].config
    assert config.num_key_value_heads < config.num_attention_heads  # GQA


@pytest.mark.parametrize("name", sorted(zoo_models.MODELS))
def test_explain_shows_every_op_in_strata(name):
    model, inputs = zoo_models.build(name)
    explanation = strata.torch.explain(model, *inputs)
    text = str(explanation)
    assert explanation.graph_breaks == [], text
    assert [s.error for s in explanation.subgraphs if s.error] == [], text
    allowed = EAGER_OPS.get(name, {})
    assert sorted({op for op, _, _ in explanation.eager_ops}) == sorted(allowed), text
    assert all(s.kind == "strata" for s in explanation.subgraphs
               if not set(s.ops) <= set(allowed)), text
    ran = {op for s in explanation.subgraphs if s.kind == "strata" for op in s.ops}
    assert set(FEATURES[name]) <= ran, text


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("name", sorted(zoo_models.MODELS))
def test_matches_eager(name, dtype):
    """f32: to rounding; bf16 (weights and inputs): against the f32 eager result."""
    model, inputs = zoo_models.build(name)
    record = []  # the backend="strata" function, recording how it split the graph
    with torch.no_grad():
        want = zoo_models.output(model(*inputs))  # f32 weights, before the cast
        compiled = torch.compile(model.to(dtype), backend=lambda gm, example: strata_backend(
            gm, example, record=record))
        got = zoo_models.output(compiled(*_cast(inputs, dtype)))
    assert got.dtype == dtype and got.shape == want.shape
    assert _error(got, want) <= TOLERANCE[dtype]
    assert [(s.kind, s.error) for g in record for s in g.subgraphs] == [("strata", None)]
