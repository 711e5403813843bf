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


def _unless(op, keep):
    """PyTorch's decomposition of ``op``, except where ``keep(*args, **kwargs)``: there the
    op stays whole for strata's own converter (``NotImplemented`` keeps it)."""
    from torch._decomp import decomposition_table

    decompose = decomposition_table[op]

    def run(*args, **kwargs):
        return NotImplemented if keep(*args, **kwargs) else decompose(*args, **kwargs)

    return run


def _never(*args, **kwargs) -> bool:
    return False


def _pool_kept(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> bool:
    """A max pool strata's converter takes: no dilation, no ceil_mode."""
    dilation = [dilation] if isinstance(dilation, int) else list(dilation)
    return all(d == 1 for d in dilation) and not ceil_mode


def _adaptive_kept(x, output_size) -> bool:
    """An adaptive average pool to 1x1: strata's converter makes it a mean."""
    return list(output_size) == [1, 1]


# Ops strata has no converter for, written out by PyTorch's own decompositions into ops it
# has (hardtanh as a clamp, group norm as reshapes and means, repeat as expand + reshape,
# slice_scatter as a pad and a select, adaptive pools as sums over windows...), and op
# variants its converters do not take (a dilated max pool, an adaptive average pool to
# other sizes than 1x1).
_EXTRA = [
    (aten.hardtanh.default, _never),
    (aten.native_group_norm.default, _never),
    (aten.repeat.default, _never),
    (aten.slice_scatter.default, _never),
    (aten.cumprod.default, _never),
    (aten.adaptive_max_pool2d.default, _never),
    (aten._adaptive_avg_pool2d.default, _adaptive_kept),
    (aten.max_pool2d_with_indices.default, _pool_kept),
    (aten._native_batch_norm_legit_functional.default, _never),
]


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
    for op, keep in _EXTRA:
        table[op] = _unless(op, keep)
    table.pop(aten.einsum.default, None)  # strata.einsum: one matmul, no size-1 dims
    return table
