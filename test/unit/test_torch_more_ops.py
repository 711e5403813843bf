"""PyTorch ops and variants that ran in eager PyTorch until now, each against eager and
each required to run entirely in strata: max/min along a dim (values and indices), group
norm, hardtanh, repeat, slice_scatter, cumprod, adaptive pools to other sizes, a dilated
max pool, average pools with counted padding and divisor_override, training-mode batch
norm (its batch statistics), var/var_mean, a causal scaled-dot-product attention, a
constant built inside the graph (eye), torch.gather, integer bitwise ops and sorting (sort,
argsort, topk; NaN and ties in their own tests), 3-D convolution and 3-D / 1-D pools."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

from strata.torch.backend import strata_backend  # noqa: E402


def _odd(*shape, dtype=torch.float32, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


CASES = {
    "max_dim": (lambda x: torch.max(x, dim=1), (_odd(5, 7),)),
    "min_dim_keepdim": (lambda x: torch.min(x, dim=0, keepdim=True), (_odd(5, 7),)),
    "group_norm": (nn.GroupNorm(3, 6), (_odd(2, 6, 5, 3),)),
    "hardtanh": (nn.Hardtanh(-0.5, 0.7), (_odd(3, 9),)),
    "repeat": (lambda x: x.repeat(2, 1, 3), (_odd(3, 5),)),
    "slice_scatter": (lambda x, y: torch.slice_scatter(x, y, dim=1, start=1, end=4),
                      (_odd(3, 7), _odd(3, 3, seed=1))),
    "cumprod": (lambda x: torch.cumprod(x, dim=1), (_odd(4, 7) * 0.5 + 1,)),
    "adaptive_max_pool": (nn.AdaptiveMaxPool2d((2, 3)), (_odd(1, 3, 6, 9),)),  # (divisible)
    "adaptive_avg_pool_uneven": (nn.AdaptiveAvgPool2d((3, 2)), (_odd(1, 2, 7, 5),)),
    "adaptive_avg_pool": (nn.AdaptiveAvgPool2d((2, 3)), (_odd(2, 3, 6, 9),)),
    "max_pool_dilated": (nn.MaxPool2d(3, dilation=2), (_odd(1, 3, 11, 9),)),
    "avg_pool_counted_padding": (nn.AvgPool2d(3, 2, padding=1), (_odd(1, 3, 7, 8),)),
    "avg_pool_uncounted_padding": (nn.AvgPool2d(3, 2, padding=1, count_include_pad=False),
                                   (_odd(1, 3, 7, 8),)),
    "avg_pool_divisor": (nn.AvgPool2d(2, divisor_override=3), (_odd(1, 3, 6, 7),)),
    "batch_norm_training": (nn.BatchNorm2d(3).train(), (_odd(4, 3, 5, 5),)),
    "var_mean": (lambda x: torch.var_mean(x, dim=1, keepdim=False), (_odd(4, 9),)),
    "var_unbiased": (lambda x: torch.var(x, dim=(0, 2)), (_odd(4, 5, 3),)),
    "sdpa_causal": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                    (_odd(1, 2, 9, 16), _odd(1, 2, 9, 16, seed=1), _odd(1, 2, 9, 16, seed=2))),
    "eye": (lambda x: x @ torch.eye(5) + 1, (_odd(3, 5),)),
    "gather_last_dim": (lambda x, i: torch.gather(x, 1, i) * 2,
                        (_odd(3, 5), torch.tensor([[4, 0, 0, 2], [1, 1, 3, 4], [0, 4, 2, 2]]))),
    "gather_middle_dim_smaller_index": (
        lambda x, i: torch.gather(x, 1, i),
        (_odd(2, 3, 4), torch.tensor([[[2, 0, 1], [1, 1, 0]], [[0, 2, 2], [2, 1, 0]]]))),
    # issue 37: integer bitwise ops (shift counts in and out of range; int32 with int64)
    "bitwise_int64": (lambda a, b: ((a & b) | (a ^ 6)) + (~a) + (a << b) + (a >> b) + (
        5 << b) + torch.bitwise_right_shift(-a, 3),
        (torch.tensor([[7, -8, 2**40, -1, 0], [3, 9, -(2**62), 2**62, 12]]),
         torch.tensor([1, 63, 64, -1, 70]))),
    "bitwise_int32_mixed": (lambda a, b, m: (a & b) + (a | m) + (b ^ a) + (a << 31) + (
        a >> b), (torch.tensor([[5, -9, 2**30, -(2**31)], [1, 2, 3, 4]], dtype=torch.int32),
                  torch.tensor([3, 32, -2, 31]), torch.tensor([True, False, True, False]))),
    # issue 37: sorting (tie-free data: torch orders ties only with stable=True)
    "sort_stable_descending": (lambda x: torch.sort(x, dim=1, descending=True, stable=True),
                               (torch.tensor([[3., 1., 3., -0., 0., 2., 1.], [5., 5., 5., -1.,
                                                                            4., 5., -2.]]),)),
    "sort_default": (lambda x: torch.sort(x * 2), (_odd(3, 9),)),
    "sort_dim0_int": (lambda x: torch.sort(x, dim=0, stable=True),
                      (torch.tensor([[4, -2], [1, 7], [4, 7], [-9, 0], [1, 2]]),)),
    "argsort": (lambda x: torch.argsort(x, dim=-1, descending=True), (_odd(4, 11),)),
    "topk": (lambda x: torch.topk(x, 3), (_odd(5, 17),)),
    "topk_smallest_dim0": (lambda x: torch.topk(x, 2, dim=0, largest=False), (_odd(9, 4),)),
    # issue 37: 3-D convolution and pooling, 1-D pools (PyTorch's own, on the 2-D ones)
    "conv3d_grouped_bias": (nn.Conv3d(4, 6, (3, 2, 3), stride=(1, 2, 1), padding=(1, 0, 2),
                                      dilation=(2, 1, 1), groups=2), (_odd(2, 4, 6, 5, 7),)),
    "conv3d_net": (nn.Sequential(nn.Conv3d(3, 5, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2),
                                 nn.Conv3d(5, 2, 1, bias=False)), (_odd(1, 3, 6, 8, 7),)),
    "max_pool3d_padded": (nn.MaxPool3d((3, 1, 2), (1, 2, 2), (1, 0, 1)), (_odd(2, 3, 5, 6, 7),)),
    "avg_pool3d_counted": (nn.AvgPool3d(3, 2, padding=1), (_odd(1, 2, 5, 6, 7),)),
    "avg_pool3d_uncounted": (nn.AvgPool3d(3, 2, padding=1, count_include_pad=False),
                             (_odd(1, 2, 5, 6, 7),)),
    "avg_pool3d_divisor": (nn.AvgPool3d(2, divisor_override=5), (_odd(1, 2, 4, 6, 5),)),
    "adaptive_avg_pool3d": (nn.AdaptiveAvgPool3d(1), (_odd(2, 3, 4, 5, 3),)),
    "max_pool1d": (nn.MaxPool1d(3, 2, 1), (_odd(2, 3, 11),)),
    "avg_pool1d": (nn.AvgPool1d(3, 2, 1), (_odd(2, 3, 11),)),
    "bitwise_bool": (lambda x, y: ((x > 0) & (y > 0)) | ~(x > 1) ^ (y < 0),
                     (_odd(3, 7), _odd(3, 7, seed=1))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_runs_in_strata_and_matches_eager(name):
    fn, args = CASES[name]
    record = []
    with torch.no_grad():
        want = fn(*args)
        got = torch.compile(fn, backend=lambda gm, inputs: strata_backend(
            gm, inputs, record=record))(*args)
    wants = want if isinstance(want, (tuple, list)) else (want,)
    gots = got if isinstance(got, (tuple, list)) else (got,)
    for g, w in zip(gots, wants, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        if w.dtype.is_floating_point:
            scale = max(1.0, w.abs().max().item())
            assert (g - w).abs().max().item() <= 1e-5 * scale, (g, w)
        else:
            assert torch.equal(g, w)
    subgraphs = [s for g in record for s in g.subgraphs]
    assert subgraphs and all(s.kind == "strata" for s in subgraphs), [
        (s.ops, s.reasons, s.error) for s in subgraphs if s.kind != "strata"]


def _strata_only(fn, *args):
    """(strata's results, eager's) with every subgraph in strata."""
    record = []
    torch._dynamo.reset()
    with torch.no_grad():
        got = torch.compile(fn, backend=lambda gm, inputs: strata_backend(
            gm, inputs, record=record))(*args)
        want = fn(*args)
    subgraphs = [s for g in record for s in g.subgraphs]
    assert subgraphs and all(s.kind == "strata" for s in subgraphs)
    return got, want


def test_sort_with_nan_and_ties_matches_stable_eager():
    x = torch.tensor([[1., float("nan"), 3., 3., -float("inf"), float("nan"), 0., 3.],
                      [2., 2., float("nan"), -1., 2., 5., 5., 0.]])
    for descending in (False, True):
        got, want = _strata_only(lambda v, d=descending: torch.sort(v, dim=-1, descending=d,
                                                                     stable=True), x)
        assert torch.equal(got.indices, want.indices)
        assert torch.allclose(got.values, want.values, equal_nan=True)


def test_topk_with_nan_and_ties():
    """NaN is the largest value, as in eager; among ties strata gives the lower index first
    (eager's order among ties is unspecified), so ties check the values and the picks."""
    x = torch.tensor([[1., 3., 3., 2., 3., 3., 0., 3.], [float("nan"), 1., 4., float("nan"),
                                                          -2., 4., 0., 1.]])
    (values, indices), (want_values, _) = _strata_only(lambda v: torch.topk(v, 3), x)
    assert torch.allclose(values, want_values, equal_nan=True)
    assert torch.equal(indices, torch.tensor([[1, 2, 4], [0, 3, 2]]))
    assert torch.allclose(torch.gather(x, 1, indices), values, equal_nan=True)
