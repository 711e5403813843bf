"""strata's PyTorch front end: ``torch.export`` import, the Dynamo backend, explain.

    m = strata.from_torch(torch.export.export(model.eval(), (x,)))  # a strata.Module
    fast = torch.compile(model, backend="strata")   # after pip install strata[torch]
    print(strata.torch.explain(model, x))           # subgraphs and graph breaks
    strata.torch.config.strict = True               # a fallback to eager raises (CI)

Symbolic shapes (Dynamo's automatic dynamic, ``torch.compile(dynamic=True)``) compile as
strata dynamic dims: one compile serves every batch size (symbolic.py says which ops take
symbolic sizes).

The backend never fails hard: what strata cannot run or fails to compile runs in eager
PyTorch, with one ``StrataPerformanceWarning`` per graph naming each such op and its source
line; ``strata.torch.config.strict`` (or ``STRATA_TORCH_STRICT=1``) makes that an error.

This package imports torch (``import strata`` does not): absolute ``import torch`` inside
it names PyTorch, not this package.
"""

from __future__ import annotations

import importlib

__all__ = ["from_torch", "arguments", "import_graph", "strata_backend", "explain",
           "Explanation", "config"]

_LAZY = {
    "from_torch": "strata.torch.importer",
    "arguments": "strata.torch.importer",
    "import_graph": "strata.torch.importer",
    "strata_backend": "strata.torch.backend",
    "explain": "strata.torch.explain",
    "Explanation": "strata.torch.explain",
    "config": "strata.torch.config",  # the module itself (it does not import torch)
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'strata.torch' has no attribute '{name}'")
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != "torch":
            raise
        from ..errors import StrataError

        raise StrataError(f"strata.{name} needs PyTorch, which is not installed (pip install "
                          "'strata[torch]')", location="<import>") from None
    value = loaded if name == "config" else getattr(loaded, name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
