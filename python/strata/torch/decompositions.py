"""Decompositions the backend adds to core ATen's: fused PyTorch kernels as plain ATen ops.

``nn.TransformerEncoderLayer`` in eval mode under ``no_grad`` calls one fused kernel,
``aten._transformer_encoder_layer_fwd``, which core ATen keeps whole; written out here
as linear + attention + layer norm + feed-forward, it runs in strata like any model.
Only the case without a mask is decomposed (``NotImplemented`` keeps the op otherwise).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["decompositions"]

aten = torch.ops.aten


def _encoder_layer(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias,
                   use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2,
                   norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None,
                   mask_type=None):
    if mask is not None or src.dim() != 3 or src.is_nested:
        return NotImplemented
    b, t, _ = src.shape
    head = embed_dim // num_heads

    def attention(x):
        q, k, v = F.linear(x, qkv_weight, qkv_bias).chunk(3, dim=-1)
        q, k, v = (y.reshape(b, t, num_heads, head).transpose(1, 2) for y in (q, k, v))
        scores = torch.softmax((q @ k.transpose(-2, -1)) * head ** -0.5, dim=-1)
        y = (scores @ v).transpose(1, 2).reshape(b, t, embed_dim)
        return F.linear(y, proj_weight, proj_bias)

    def feed_forward(x):
        h = F.linear(x, ffn_weight_1, ffn_bias_1)
        return F.linear(F.gelu(h) if use_gelu else F.relu(h), ffn_weight_2, ffn_bias_2)

    def norm(x, w, bias):
        return F.layer_norm(x, (embed_dim,), w, bias, eps)

    if norm_first:
        x = src + attention(norm(src, norm_weight_1, norm_bias_1))
        return x + feed_forward(norm(x, norm_weight_2, norm_bias_2))
    x = norm(src + attention(src), norm_weight_1, norm_bias_1)
    return norm(x + feed_forward(x), norm_weight_2, norm_bias_2)


def decompositions() -> dict:
    """Core ATen's decompositions plus strata's own.

    Core ATen's table as aot_autograd needs it: its explicit decompositions, without the
    entries ``core_aten_decompositions()`` adds for every CompositeImplicitAutograd op of
    every namespace (which torch.export's pre-dispatch tracing needs; tracing after
    autograd, as aot_autograd does, decomposes those ops by their own kernels anyway).
    Listing them costs ~0.1-0.5 s at each cold compile for the same graphs.
    """
    from torch._decomp import _core_aten_decompositions_post_autograd

    table = dict(_core_aten_decompositions_post_autograd())
    table[aten._transformer_encoder_layer_fwd.default] = _encoder_layer
    table.pop(aten.einsum.default, None)  # strata.einsum: one matmul, no size-1 dims
    return table
