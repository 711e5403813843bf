"""torch.compile(backend="strata") of modules using cumsum, flip, F.pad, scatter,
scatter_add and index_put (strata.cumsum / reverse / pad / scatter / scatter_add),
against eager PyTorch; each graph runs whole in strata."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

from strata.torch.backend import strata_backend  # noqa: E402

TOLERANCE = {torch.float32: 1e-5, torch.bfloat16: 2e-2}


def _run(model, *inputs, dtype=torch.float32):
    """(strata's result, eager's result in f32, the kinds of the compiled subgraphs)."""
    record = []
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=lambda gm, ins: strata_backend(gm, ins,
                                                                            record=record))
    cast = [x.to(dtype) if x.is_floating_point() else x for x in inputs]
    with torch.no_grad():
        got = compiled(*cast)
        want = model(*[x.float() if x.is_floating_point() else x for x in cast])
    return got, want, [s.kind for g in record for s in g.subgraphs]


def _error(got, want):
    want = want.float()
    return ((got.float() - want).abs().max() / max(1.0, want.abs().max().item())).item()


class _Scan(torch.nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1) + x.cumsum(0).flip(-1)


class _Pads(torch.nn.Module):
    def forward(self, x):
        y = F.pad(x, (1, 2, 0, 3), value=-0.5)       # last dim (1, 2), the one before (0, 3)
        z = F.pad(x, (-1, 2, 1, -2))                  # negative widths crop
        return y.sum() + z.sum(dim=0, keepdim=True).mean() + y[:, ::2].flip(0).sum(dim=1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("model,shape", [(_Scan, (5, 7)), (_Pads, (6, 9))],
                         ids=["cumsum-flip", "pad"])
def test_scan_flip_pad_run_in_strata(model, shape, dtype):
    x = torch.randn(*shape)
    got, want, kinds = _run(model(), x, dtype=dtype)
    assert got.dtype == dtype and got.shape == want.shape
    assert _error(got, want) <= TOLERANCE[dtype] * (shape[0] + shape[1])
    assert kinds == ["strata"]


class _Scatter(torch.nn.Module):
    def forward(self, x, idx, src):
        a = torch.scatter_add(x, 0, idx, src)
        b = x.scatter(1, idx[:, :3].clamp(max=2), src[:, :3] * 2.0)
        c = torch.zeros_like(x).scatter(0, idx, 1.5)
        return a, b, c


class _IndexPut(torch.nn.Module):
    def forward(self, x, idx, v):
        y = x.clone()
        y[idx] = v
        z = x.index_put((idx,), v * 3.0, accumulate=True)
        return y, z


def test_scatter_and_index_put_run_in_strata():
    x = torch.randn(5, 4)
    idx = torch.tensor([[0, 4, 1, 1], [4, 4, 2, 0], [1, 0, 0, 3]])
    src = torch.randn(3, 4)
    got, want, kinds = _run(_Scatter(), x, idx, src)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and _error(g, w) <= 1e-5
    assert kinds == ["strata"]
    idx = torch.tensor([3, 0, 4])  # distinct: PyTorch leaves duplicates' order undefined
    got, want, kinds = _run(_IndexPut(), x, idx, torch.randn(3, 4))
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and _error(g, w) <= 1e-5
    assert kinds == ["strata"]


def test_from_torch_imports_the_ops():
    """torch.export of a module with all of them, imported as a strata.Module."""
    import numpy as np

    import strata

    class _All(torch.nn.Module):
        def forward(self, x, idx, src):
            y = F.pad(torch.cumsum(x, 1).flip(0), (1, 1, 0, 0), value=2.0)
            return torch.scatter_add(y, 0, idx, src)

    x, idx, src = torch.randn(4, 6), torch.tensor([[3, 0, 0, 1, 2, 3, 0, 1]]), torch.randn(1, 8)
    m = strata.from_torch(torch.export.export(_All(), (x, idx, src)))
    text = str(m)
    for op in ("strata.cumsum", "strata.reverse", "strata.pad", "strata.scatter_add"):
        assert op in text
    got = strata.compile(m)(x.numpy(), idx.numpy(), src.numpy())  # int64 indices, as torch
    with torch.no_grad():
        want = _All()(x, idx, src)
    assert np.allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)


class _AdvancedIndex(torch.nn.Module):
    """aten.index.Tensor: transformers' padding mask ``mask[batch_idx, kv_idx]`` (bool, two
    broadcast index tensors), one index tensor on a middle dim, adjacent and apart ones,
    negative indices."""

    def forward(self, x, mask, i, j):
        b = torch.arange(x.shape[0]).view(-1, 1, 1)
        k = torch.arange(x.shape[2]).view(1, 1, -1)
        return (mask[b, k], x[i, :, j], x[:, i], x[i, j - 2],
                x[:, i[:3].view(3, 1), j[:2] - 7])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
def test_advanced_indexing_runs_in_strata(dtype):
    x, mask = torch.randn(3, 5, 7), torch.rand(3, 7) > 0.3
    i, j = torch.tensor([2, 0, -1, 1]), torch.tensor([6, 1, 3, -2])
    got, want, kinds = _run(_AdvancedIndex(), x, mask, i, j, dtype=dtype)
    assert got[0].dtype == torch.bool and torch.equal(got[0], want[0])
    for g, w in zip(got[1:], want[1:], strict=True):
        assert g.dtype == dtype and g.shape == w.shape and _error(g, w) == 0.0  # picks
    assert kinds == ["strata"]


class _Masks(torch.nn.Module):
    """``&``, ``|``, ``^`` of bool masks (transformers' and_masks/or_masks), a Python bool."""

    def forward(self, x, y):
        p, q = x > 0, y > 0
        return ((p & q).int() + (p | q).int() * 2 + (p ^ q).int() * 4 + (p & True).int() * 8
                + (q | False).int() * 16)


def test_bool_bitwise_ops_run_in_strata():
    x, y = torch.randn(6, 9), torch.randn(6, 9)
    got, want, kinds = _run(_Masks(), x, y)
    assert got.dtype == want.dtype and torch.equal(got, want)
    assert kinds == ["strata"]


class _IntAnd(torch.nn.Module):
    def forward(self, a, b):
        return (a & b) + 1


def test_integer_bitwise_and_runs_in_strata():
    a, b = torch.tensor([12, 10, 7, -3]), torch.tensor([10, 6, 5, 2**40])
    got, want, kinds = _run(_IntAnd(), a, b)
    assert got.dtype == want.dtype and torch.equal(got, want)
    assert kinds == ["strata"]
