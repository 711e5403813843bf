"""The strata Dynamo backend on symbolic shapes: one dynamic compile serves every batch size.

Dynamo traces a graph with SymInt sizes under ``torch.compile(dynamic=True)``, and under
the default (automatic dynamic) once it has seen a second input size; size 1 (and 0) it
specialises to a static graph of its own.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from strata.torch.backend import strata_backend  # noqa: E402

BATCHES = (2, 3, 5, 8, 1)


def _models():
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8))
    encoder = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    return {"mlp": (mlp.eval(), (16,)), "encoder": (encoder.eval(), (6, 32))}


def _run(name, dynamic):
    torch._dynamo.reset()
    model, rest = _models()[name]
    record = []
    fast = torch.compile(model, dynamic=dynamic,
                         backend=lambda gm, inputs: strata_backend(gm, inputs, record=record))
    with torch.no_grad():
        for batch in BATCHES:
            x = torch.randn(batch, *rest)
            if dynamic and len(rest) > 1:
                torch._dynamo.mark_static(x, 1)  # the sequence: one symbolic size, the batch
            got, want = fast(x), model(x)
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    return record


def _programs(graph):
    return [s.compiled.program for s in graph.subgraphs if s.kind == "strata"]


def _dynamic_graphs(record):
    """The graphs whose strata subgraphs take a dynamic dim."""
    return [g for g in record
            if any(None in shape for p in _programs(g) for shape, _ in p._signatures["main"][0])]


@pytest.mark.parametrize("dynamic", [None, True], ids=["automatic", "dynamic"])
@pytest.mark.parametrize("name", ["mlp", "encoder"])
def test_one_dynamic_compile_serves_every_batch(name, dynamic):
    record = _run(name, dynamic)
    dynamic_graphs = _dynamic_graphs(record)
    assert len(dynamic_graphs) == 1, [g.name for g in record]
    graph = dynamic_graphs[0]
    eager = [s for s in graph.subgraphs if s.kind != "strata"]
    assert not eager, [(s.ops, s.reasons, s.error) for s in eager]
    # every strata subgraph was compiled once, for its dynamic signature, for all batches
    assert all(p.stats.compiles == 1 for p in _programs(graph))
    # static graphs: size 1 (Dynamo specialises it), and the first size under automatic dynamic
    assert len(record) == (3 if dynamic is None else 2)


def test_two_symbolic_sizes_left_to_eager_with_a_reason():
    """dynamic=True with batch and sequence both symbolic: a view to (s0, s1, 32) has
    two sizes strata's reshape cannot infer; it runs eagerly (correctly) and says why."""
    torch._dynamo.reset()
    model, _ = _models()["encoder"]
    record = []
    fast = torch.compile(model, dynamic=True,
                         backend=lambda gm, inputs: strata_backend(gm, inputs, record=record))
    with torch.no_grad():
        for batch, seq in ((2, 6), (3, 5), (4, 7)):
            x = torch.randn(batch, seq, 32)
            torch.testing.assert_close(fast(x), model(x), rtol=1e-4, atol=1e-4)
    reasons = [r[1] for g in record for s in g.subgraphs if s.kind == "eager" for r in s.reasons]
    assert any("more than one symbolic size" in r for r in reasons), reasons
    assert any(s.kind == "strata" and "aten.addmm.default" in s.ops
               for g in record for s in g.subgraphs)


def test_symbolic_slice_and_select_along_a_static_dim():
    """Slicing a static dim of a tensor with a symbolic batch picks the entries (take)."""
    torch._dynamo.reset()

    def f(x):
        return x[:, 1:5:2] * 2 + x[:, 3].unsqueeze(1)

    record = []
    fast = torch.compile(f, dynamic=True,
                         backend=lambda gm, inputs: strata_backend(gm, inputs, record=record))
    for batch in (2, 5, 9):
        x = torch.randn(batch, 8)
        torch._dynamo.mark_static(x, 1)  # (dynamic=True would make it symbolic too)
        torch.testing.assert_close(fast(x), f(x))
    assert len(record) == 1
    assert all(s.kind == "strata" for s in record[0].subgraphs), record[0].subgraphs


def test_slice_along_a_symbolic_dim_left_to_eager_with_a_reason():
    torch._dynamo.reset()

    def f(x):
        return x[:, 1:3] * 2

    record = []
    fast = torch.compile(f, dynamic=True,
                         backend=lambda gm, inputs: strata_backend(gm, inputs, record=record))
    for batch, width in ((2, 8), (5, 6), (9, 4)):
        x = torch.randn(batch, width)
        torch.testing.assert_close(fast(x), f(x))
    reasons = [r[1] for s in record[0].subgraphs if s.kind == "eager" for r in s.reasons]
    assert any(r.startswith("aten.slice: along the symbolic dim 1") for r in reasons), reasons


def test_sizes_0_and_1_get_static_graphs():
    """Dynamo specialises sizes 0 and 1 (a strata dynamic dim assumes neither): each gets
    its own static graph, run by strata, next to the dynamic one."""
    torch._dynamo.reset()
    model, _ = _models()["mlp"]
    record = []
    fast = torch.compile(model, dynamic=True,
                         backend=lambda gm, inputs: strata_backend(gm, inputs, record=record))
    with torch.no_grad():
        for batch in (3, 0, 1, 6):
            x = torch.randn(batch, 16)
            got, want = fast(x), model(x)
            assert got.shape == want.shape
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    inputs = [s.compiled.program._signatures["main"][0][2][0] for g in record
              for s in g.subgraphs]
    assert all(s.kind == "strata" for g in record for s in g.subgraphs)
    assert sorted(inputs, key=str) == sorted([(None, 16), (0, 16), (1, 16)], key=str)


def test_from_torch_with_a_dynamic_batch():
    """torch.export's dynamic_shapes: the batch is a dynamic dim of the strata function."""
    import strata
    import strata.torch

    model, _ = _models()["mlp"]
    batch = torch.export.Dim("batch", min=2)
    ep = torch.export.export(model, (torch.randn(4, 16),),
                             dynamic_shapes={"input": {0: batch}})
    module = strata.from_torch(ep)
    assert "tensor<?x16xf32>" in str(module)
    prog = strata.compile(module)
    for n in (3, 7):
        x = torch.randn(n, 16)
        got = prog(*strata.torch.arguments(ep, x))
        with torch.no_grad():
            torch.testing.assert_close(torch.from_numpy(got), model(x), rtol=1e-4, atol=1e-4)
