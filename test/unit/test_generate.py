"""``model.generate()`` through strata: greedy decoding with Hugging Face's dynamic KV
cache (the cache grows by a cat each token) and its static cache (written in place by an
index_put at the cache positions), against eager PyTorch, token for token.

The compiles stay bounded as the sequence grows: the prompt, the first decode step, then
one graph with the cache length symbolic (Dynamo's automatic dynamic) that serves every
later token; softmax, reductions and the cat along that symbolic dim run in strata.
"""

from __future__ import annotations

import logging

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from strata.torch.backend import strata_backend  # noqa: E402

NEW_TOKENS = 32


def _model(name):
    torch.manual_seed(0)
    common = dict(vocab_size=1000, bos_token_id=0, eos_token_id=1)
    if name == "gpt2":
        config = transformers.GPT2Config(n_layer=2, n_embd=64, n_head=4, n_positions=128,
                                         **common)
        return transformers.GPT2LMHeadModel(config).eval()
    config = transformers.LlamaConfig(num_hidden_layers=2, hidden_size=64,
                                      intermediate_size=128, num_attention_heads=4,
                                      num_key_value_heads=2, max_position_embeddings=128,
                                      **common)
    return transformers.LlamaForCausalLM(config).eval()


@pytest.mark.parametrize("cache", ["dynamic", "static"])
@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_greedy_generate_matches_eager(name, cache, caplog):
    model = _model(name)
    prompt = torch.randint(2, 1000, (1, 8), generator=torch.Generator().manual_seed(1))
    options = dict(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, do_sample=False)
    if cache == "static":
        options["cache_implementation"] = "static"
    record = []
    with torch.no_grad():
        want = model.generate(prompt, **options)
        model.forward = torch.compile(
            model.forward, backend=lambda gm, inputs: strata_backend(gm, inputs, record=record))
        with caplog.at_level(logging.INFO, logger="strata.recompiles"):
            got = model.generate(prompt, **options)
    assert got.shape == (1, 8 + NEW_TOKENS)
    assert torch.equal(got, want), f"strata {got.tolist()} vs eager {want.tolist()}"
    subgraphs = [s for g in record for s in g.subgraphs]
    assert subgraphs and all(s.kind == "strata" for s in subgraphs), [
        (s.kind, s.reasons, s.error) for s in subgraphs if s.kind != "strata"]
    # prompt + first step (+ the symbolic-length step of the dynamic cache), not one per token
    assert len(record) == (3 if cache == "dynamic" else 2)
    compiles = [r for r in caplog.records if r.name == "strata.recompiles"]
    assert len(compiles) == len(subgraphs)
    if cache == "dynamic":
        assert any("dynamic dims" in r.getMessage() for r in compiles)
