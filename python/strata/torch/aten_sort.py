"""ATen's sorting ops as strata's (frontend/sort_ops.py): the converters aten_ops.py merges.

    aten.sort.stable(%x, stable=True, dim=1, descending=True)  -> strata.argsort + a take
    aten.argsort(%x, dim)                                      -> strata.argsort
    aten.topk(%x, k, dim, largest)                             -> strata.argsort, slice, take

Indices come back as int64, as torch gives them. A bool input is sorted as 0 / 1. The
sort is always stable (ties keep their order; torch leaves ties unordered unless
``stable=True``) and NaN sorts as the largest value, as in torch; ``topk`` gives the
lower index first among ties and its result sorted (also for ``sorted=False``).
"""

from __future__ import annotations

from ..frontend import ops as S
from ..frontend import sort_ops as T

__all__ = ["SORT_CONVERTERS"]


def _sortable(x):
    return S.cast(x, "i32") if x.dtype == "i1" else x


def _values(x, values):
    return S.not_equal(values, 0) if x.dtype == "i1" else values


def _sort(node, self, dim=-1, descending=False, stable=None):
    x = _sortable(self)
    indices = T.argsort(x, axis=dim, descending=bool(descending))
    values = T.take_along_axis(x, indices, axis=dim)
    return _values(self, values), S.cast(indices, "i64")


def _argsort(node, self, dim=-1, descending=False, stable=None):
    return S.cast(T.argsort(_sortable(self), axis=dim, descending=bool(descending)), "i64")


def _topk(node, self, k, dim=-1, largest=True, sorted=True):  # noqa: A002 - torch's name
    values, indices = T.topk(_sortable(self), int(k), axis=dim, largest=bool(largest))
    return _values(self, values), S.cast(indices, "i64")


SORT_CONVERTERS = {"sort": _sort, "argsort": _argsort, "topk": _topk}
