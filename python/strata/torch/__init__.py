"""strata's PyTorch front end: ``torch.export`` import, the Dynamo backend, explain.

    m = strata.from_torch(torch.export.export(model.eval(), (x,)))  # a strata.Module
    fast = torch.compile(model, backend="strata")   # after pip install strata[torch]
    print(strata.torch.explain(model, x))           # subgraphs and graph breaks

Symbolic shapes (Dynamo's automatic dynamic, ``torch.compile(dynamic=True)``) compile as
strata dynamic dims: one compile serves every batch size (symbolic.py says which ops take
symbolic sizes).

This package imports torch (``import strata`` does not): absolute ``import torch`` inside
it names PyTorch, not this package.
"""

from __future__ import annotations

import importlib

__all__ = ["from_torch", "arguments", "import_graph", "strata_backend", "explain",
           "Explanation"]

_LAZY = {
    "from_torch": "strata.torch.importer",
    "arguments": "strata.torch.importer",
    "import_graph": "strata.torch.importer",
    "strata_backend": "strata.torch.backend",
    "explain": "strata.torch.explain",
    "Explanation": "strata.torch.explain",
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
    value = getattr(loaded, name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
