"""The strata backend never fails hard: what strata cannot run, or fails to compile, runs in
eager PyTorch with one StrataPerformanceWarning per graph naming the op and its line, and
strata.torch.explain lists it; strict mode (strata.torch.config.strict, STRATA_TORCH_STRICT)
makes it a StrataError instead."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

import strata.torch as st  # noqa: E402
from strata.errors import StrataError  # noqa: E402
from strata.runtime.api import StrataPerformanceWarning  # noqa: E402
from strata.torch import aten_ops, backend, config  # noqa: E402
from strata.torch.backend import strata_backend  # noqa: E402

HERE = __file__


def _line(mark: str) -> int:
    """The line of this file that ends with the comment ``# @mark``."""
    lines = [i for i, s in enumerate(open(HERE), 1) if s.rstrip().endswith(f"# @{mark}")]
    assert len(lines) == 1, (mark, lines)
    return lines[0]


def _run(fn, *inputs, options=None, record=None):
    """(result, the StrataPerformanceWarnings) of ``fn`` compiled by the strata backend."""
    record = [] if record is None else record
    compiled = torch.compile(fn, backend=lambda gm, ins: strata_backend(
        gm, ins, options=options, record=record))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.no_grad():
            got = compiled(*inputs)
    return got, [w for w in caught if issubclass(w.category, StrataPerformanceWarning)]


def _one_warning(caught, op, line):
    """The single warning: at ``line`` of this file, naming ``op`` and that line."""
    assert len(caught) == 1, [str(w.message) for w in caught]
    (w,) = caught
    text = str(w.message)
    assert op in text and f"{HERE}:{line}" in text, text
    assert (w.filename, w.lineno) == (HERE, line)  # shown at the user's line
    return text


@pytest.fixture(autouse=True)
def _not_strict_and_not_warned_yet(monkeypatch):
    monkeypatch.setattr(config, "strict", None)
    monkeypatch.delenv("STRATA_TORCH_STRICT", raising=False)
    monkeypatch.setattr(backend, "_WARNED", set())  # each test sees its own first warning


# --- an op strata has no converter for ------------------------------------------------------


def _sorted(x):
    y = x * 2.0
    z = torch.cummax(y, dim=-1).values  # aten.cummax has no strata op  # @sort
    return z + 1.0


def test_op_without_converter_runs_eagerly_with_one_warning():
    x = torch.randn(4, 6)
    got, caught = _run(_sorted, x)
    assert torch.equal(got, _sorted(x))
    text = _one_warning(caught, "aten.cummax.default", _line("sort"))
    assert "aten.cummax has no strata op" in text
    assert "strata.torch.explain" in text


def test_explain_lists_the_op_without_a_warning():
    x = torch.randn(4, 6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = st.explain(_sorted, x)
    assert not [w for w in caught if issubclass(w.category, StrataPerformanceWarning)]
    where = f"{HERE}:{_line('sort')}"
    assert [(f.op, f.where) for f in report.fallbacks] == [("aten.cummax.default", where)]
    assert f"split by aten.cummax.default: aten.cummax has no strata op  at {where}" in str(report)


def _many_sorts(x):
    for _ in range(5):
        x = torch.cummax(x, dim=-1).values * 0.5  # five nodes, one line  # @sorts
    return torch.kthvalue(x, 2).values  # another op, another line  # @topk


def test_one_warning_per_graph_one_entry_per_op_and_line():
    x = torch.randn(3, 7)
    got, caught = _run(_many_sorts, x)
    assert torch.equal(got, _many_sorts(x))
    text = _one_warning(caught, "aten.cummax.default", _line("sorts"))
    assert "2 ops of this graph run in eager PyTorch" in text
    assert f"aten.cummax.default at {HERE}:{_line('sorts')} (5 nodes)" in text
    assert f"aten.kthvalue.default at {HERE}:{_line('topk')}" in text


def test_a_recompile_that_falls_back_alike_warns_once():
    """A second input size (Dynamo's dynamic recompile) that falls back alike does not
    repeat the warning (the same text is given once per process)."""
    compiled = torch.compile(_sorted, backend="strata")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for batch in (4, 5, 6):
            x = torch.randn(batch, 6)
            assert torch.equal(compiled(x), _sorted(x))
    assert len([w for w in caught if issubclass(w.category, StrataPerformanceWarning)]) == 1


def test_no_warning_when_everything_runs_in_strata():
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    x = torch.randn(3, 8)
    record = []
    got, caught = _run(model, x, record=record)
    assert caught == []
    assert [s.kind for g in record for s in g.subgraphs] == ["strata"]
    assert record[0].fallbacks == []
    torch.testing.assert_close(got, model(x))


# --- a converter that raises something other than a StrataError ---------------------------


def _mlp_tail(x, w):
    h = torch.relu(x @ w)  # @mm
    return h * 3.0 + 1.0  # the mul a broken converter fails on  # @mul


@pytest.fixture
def broken_mul(monkeypatch):
    """aten.mul's converter replaced (strata's CONVERTERS table, restored after) by one
    with a bug: an AssertionError, not a StrataError."""
    def convert(node, self, other):
        raise AssertionError("test converter: an internal invariant failed")

    monkeypatch.setitem(aten_ops.CONVERTERS, "mul", convert)


def test_converter_bug_runs_the_subgraph_eagerly(broken_mul):
    x, w = torch.randn(4, 5), torch.randn(5, 3)
    record = []
    got, caught = _run(_mlp_tail, x, w, record=record)
    torch.testing.assert_close(got, _mlp_tail(x, w))
    # the op where it failed (not the subgraph's first op, the mm)
    text = _one_warning(caught, "aten.mul.Tensor", _line("mul"))
    assert "AssertionError: test converter: an internal invariant failed" in text
    (sub,) = [s for g in record for s in g.subgraphs]
    assert sub.kind == "eager" and sub.ops[0] == "aten.mm.default"
    assert isinstance(sub.exception, AssertionError)


def test_explain_shows_the_converter_bug(broken_mul):
    report = st.explain(_mlp_tail, torch.randn(4, 5), torch.randn(5, 3))
    text = str(report)
    assert "strata could not compile it: AssertionError: test converter" in text
    assert f"failed at aten.mul.Tensor  at {HERE}:{_line('mul')}" in text
    assert [f.op for f in report.fallbacks] == ["aten.mul.Tensor"]


def _cat_of_empty(x):
    empty = torch.cat([x[:, :0], x[:, :0]], dim=1)  # every part empty  # @cat
    return empty.sum(dim=1) + x[:, 0]


def test_a_real_converter_bug_runs_eagerly():
    """aten.cat whose parts are all empty: strata's converter indexed an empty list
    (IndexError, which Dynamo passes through to the user as it is)."""
    x = torch.randn(3, 4)
    record = []
    got, caught = _run(_cat_of_empty, x, record=record)
    assert torch.equal(got, _cat_of_empty(x))
    if not any(s.error for g in record for s in g.subgraphs):
        pytest.skip("the cat converter takes empty parts now: nothing falls back")
    _one_warning(caught, "aten.cat.default", _line("cat"))


# --- a failure after the import: lowering, native code ----------------------------------------


def _gather_argmax(table, ids):
    rows = table[ids]
    return rows.argmax(dim=1) + ids  # @argmax


def test_a_real_pipeline_error_runs_the_subgraph_eagerly():
    """A gather fused into argmax's reduction: the pipeline failed with MLIR's "'linalg.generic'
    op invalid indexing maps are non-invertible" (a PipelineError), and the graph ran
    eagerly in silence."""
    from strata.pipelines.pipeline import PipelineError

    table, ids = torch.randn(10, 3), torch.tensor([9, 0, 4, 4])
    record = []
    got, caught = _run(_gather_argmax, table, ids, record=record)
    assert torch.equal(got, _gather_argmax(table, ids))
    failed = [s for g in record for s in g.subgraphs if s.error]
    if not failed:
        pytest.skip("strata compiles gather + argmax now: nothing falls back")
    assert isinstance(failed[0].exception, PipelineError)
    # located by the error's source line: the first op there (the gather is a line above)
    text = _one_warning(caught, "aten.argmax.default", _line("argmax"))
    assert "strata could not compile its subgraph (3 ops)" in text


def test_lowering_failure_runs_the_subgraph_eagerly():
    """opt_level=9 reaches LLVM's opt, which rejects -O9: strata's native code step fails
    (with the compilation cache; without it LLVM's JIT aborts the process)."""
    from strata.runtime import aot, cache

    if not (cache.enabled() and aot.available()):
        pytest.skip("needs the compilation cache and a linker (opt runs as a tool)")
    x = torch.randn(4, 4)

    def square(x):
        return x @ x + 1.0  # @square

    got, caught = _run(square, x, options={"opt_level": 9})
    torch.testing.assert_close(got, square(x))
    text = _one_warning(caught, "aten.mm.default", _line("square"))
    assert "strata could not compile its subgraph (2 ops)" in text and "opt" in text


# --- failures around the partition --------------------------------------------------------


def test_support_check_failure_leaves_the_node_eager(monkeypatch):
    """unsupported() itself raising (a bug in strata's check) leaves that node eager."""
    real = backend.unsupported

    def check(node):
        if "mul" in str(node.target):
            raise KeyError("weight")
        return real(node)

    monkeypatch.setattr(backend, "unsupported", check)
    x, w = torch.randn(4, 5), torch.randn(5, 3)
    got, caught = _run(_mlp_tail, x, w)
    torch.testing.assert_close(got, _mlp_tail(x, w))
    text = _one_warning(caught, "aten.mul.Tensor", _line("mul"))
    assert "strata's support check failed: KeyError: 'weight'" in text


def test_partitioner_failure_runs_the_graph_whole(monkeypatch):
    def fail(self, submodules, node):
        raise RuntimeError("partitioner failure")

    monkeypatch.setattr(backend._Support, "is_node_supported", fail)
    x, w = torch.randn(4, 5), torch.randn(5, 3)
    record = []
    got, caught = _run(_mlp_tail, x, w, record=record)
    torch.testing.assert_close(got, _mlp_tail(x, w))
    text = _one_warning(caught, "aten.mm.default", _line("mm"))
    assert "strata could not split the graph: RuntimeError: partitioner failure" in text
    (sub,) = record[0].subgraphs
    assert sub.kind == "eager" and "aten.mul.Tensor" in sub.ops


def test_decomposition_failure_runs_the_graph_whole(monkeypatch):
    """aot_autograd failing on one of strata's decompositions: Dynamo's graph runs eagerly."""
    def fail(*args, **kwargs):
        raise ValueError("decomposition failure")

    monkeypatch.setattr(backend, "_decompositions", lambda: {
        torch.ops.aten.relu.default: fail})
    x, w = torch.randn(4, 5), torch.randn(5, 3)
    got, caught = _run(_mlp_tail, x, w)
    torch.testing.assert_close(got, _mlp_tail(x, w))
    text = _one_warning(caught, "relu", _line("mm"))
    assert "aot_autograd could not lower the graph" in text and "decomposition failure" in text


# --- strict mode -----------------------------------------------------------------------------


def test_warnings_made_errors_raise_at_the_call():
    """-W error::StrataPerformanceWarning (or pytest's filterwarnings = error): the warning
    is raised from the compiled model's call, not wrapped in BackendCompilerFailed."""
    compiled = torch.compile(_sorted, backend="strata")
    with warnings.catch_warnings():
        warnings.simplefilter("error", StrataPerformanceWarning)
        with pytest.raises(StrataPerformanceWarning, match="aten.cummax.default"):
            compiled(torch.randn(4, 6))


def _strict_raises(fn, *inputs, options=None):
    compiled = torch.compile(fn, backend=lambda gm, ins: strata_backend(gm, ins,
                                                                        options=options))
    with pytest.raises(StrataError) as e:  # itself, not BackendCompilerFailed
        compiled(*inputs)
    assert type(e.value) is StrataError
    return e.value


def test_strict_config_raises_naming_op_line_and_cause(monkeypatch):
    monkeypatch.setattr(config, "strict", True)
    err = _strict_raises(_sorted, torch.randn(4, 6))
    where = f"{HERE}:{_line('sort')}"
    assert err.location == where
    assert "aten.cummax.default would run in eager PyTorch: aten.cummax has no strata op" in str(err)
    assert "strict" in str(err)


def test_strict_environment_variable_on_a_converter_bug(monkeypatch, broken_mul):
    monkeypatch.setenv("STRATA_TORCH_STRICT", "1")
    assert config.is_strict()
    err = _strict_raises(_mlp_tail, torch.randn(4, 5), torch.randn(5, 3))
    assert err.location == f"{HERE}:{_line('mul')}"
    assert "aten.mul.Tensor would run in eager PyTorch" in err.message
    assert "AssertionError: test converter" in err.message
    assert isinstance(err.__cause__, AssertionError)  # the bug's own traceback


def test_strict_option_and_a_graph_without_fallbacks():
    err = _strict_raises(_sorted, torch.randn(4, 6), options={"strict": True})
    assert "aten.cummax.default" in err.message
    model = torch.nn.Linear(8, 4)
    x = torch.randn(2, 8)
    compiled = torch.compile(model, backend=lambda gm, ins: strata_backend(
        gm, ins, options={"strict": True}))
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x))  # nothing to refuse


def test_explain_reports_in_strict_mode(monkeypatch):
    monkeypatch.setattr(config, "strict", True)
    report = st.explain(_sorted, torch.randn(4, 6))
    assert [f.op for f in report.fallbacks] == ["aten.cummax.default"]
