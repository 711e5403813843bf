"""Serving requests: check one request's arrays, join a batch of them, split the results.

A request is one numpy array per batched input of the served function, each with the
batch dim (``n >= 1`` rows: one example or a small batch) or without it (one example;
its results come back without it too). ``RequestSpec`` holds what every request must
match: the inputs' dtypes and their shapes with the batch dim left out. A request that
does not match raises a StrataError that says which input and what was expected, so a
bad request is answered with a message and never reaches the compiled function.

    spec = RequestSpec.from_examples(["x"], [x_example], batch_dim=0)
    arrays, single = spec.check((x,))        # arrays: each with the batch dim
    joined, counts = join([arrays, ...], 0)  # one call's arguments
    parts = split(results, counts, 0)        # per request, in order

This module needs numpy only (no Ray), so the checks are tested without a cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import StrataError
from ..frontend.locations import location_text

__all__ = ["RequestSpec", "join", "split"]


@dataclass(frozen=True)
class RequestSpec:
    """The batched inputs: names, dtypes, shapes without the batch dim, and that dim."""

    names: tuple
    dtypes: tuple          # numpy dtypes
    shapes: tuple          # each without the batch dim
    batch_dim: int
    max_rows: int = 1 << 16  # rows one request may carry

    @classmethod
    def from_examples(cls, names, examples, batch_dim: int, max_rows: int = 1 << 16):
        """From one example batch per input (each has the batch dim)."""
        dtypes, shapes = [], []
        for name, ex in zip(names, examples, strict=True):
            ex = np.asarray(ex)
            if ex.ndim <= batch_dim:
                raise StrataError(f"serve: example of '{name}' has shape {ex.shape}: it has "
                                  f"no batch dim {batch_dim}", location=location_text())
            dtypes.append(ex.dtype)
            shapes.append(ex.shape[:batch_dim] + ex.shape[batch_dim + 1:])
        return cls(tuple(names), tuple(dtypes), tuple(shapes), batch_dim, max_rows)

    def expected(self, i: int) -> str:
        """Input i's accepted shape, the batch dim written ``n``."""
        dims = [str(d) for d in self.shapes[i]]
        dims.insert(self.batch_dim, "n")
        return f"({', '.join(dims)}) {self.dtypes[i]}"

    def check(self, arrays, *, convert: bool = False):
        """The request's arrays, each with the batch dim, and whether the request was one
        example without it. ``convert``: cast numbers to the input's dtype (JSON bodies);
        otherwise the dtype must match exactly (no silent cast of a handle's arrays)."""
        if len(arrays) != len(self.names):
            raise _bad(f"serve: a request takes {len(self.names)} array(s) "
                              f"({', '.join(self.names)}), got {len(arrays)}")
        out, single, rows = [], None, None
        for i, a in enumerate(arrays):
            name = self.names[i]
            if convert and not isinstance(a, np.ndarray):
                try:
                    a = np.asarray(a, dtype=self.dtypes[i])
                except (TypeError, ValueError) as e:
                    raise _bad(f"serve: input '{name}': not an array of numbers "
                                      f"({e})") from None
            if not isinstance(a, np.ndarray):
                raise _bad(f"serve: input '{name}' must be a numpy array, got "
                                  f"{type(a).__name__}")
            if a.dtype != self.dtypes[i]:
                raise _bad(f"serve: input '{name}' has dtype {a.dtype}, expected "
                                  f"{self.expected(i)}")
            example = self.shapes[i]
            if a.shape == example:
                one = True
                a = np.expand_dims(a, self.batch_dim)
            elif a.ndim == len(example) + 1 and \
                    a.shape[:self.batch_dim] + a.shape[self.batch_dim + 1:] == example:
                one = False
            else:
                raise _bad(f"serve: input '{name}' has shape {a.shape}, expected "
                                  f"{self.expected(i)} or one example {example}")
            n = a.shape[self.batch_dim]
            if single is not None and (one != single or n != rows):
                raise _bad("serve: the inputs of a request must carry the same rows "
                                  f"(input '{name}' has {n}, '{self.names[0]}' {rows})")
            if n < 1 or n > self.max_rows:
                raise _bad(f"serve: input '{name}' has {n} rows; a request carries "
                                  f"1 to {self.max_rows}")
            single, rows = one, n
            out.append(np.ascontiguousarray(a))
        return tuple(out), bool(single)


def _bad(message: str) -> StrataError:
    """A bad request's error: located at ``<request>`` (no source line to point at)."""
    return StrataError(message, location="<request>")


def join(requests, batch_dim: int):
    """Requests' arrays (tuples, one array per input) joined along the batch dim: the
    call's arguments, and the rows of each request."""
    counts = [r[0].shape[batch_dim] for r in requests]
    if len(requests) == 1:
        return requests[0], counts
    joined = tuple(np.concatenate(parts, axis=batch_dim) for parts in zip(*requests, strict=True))
    return joined, counts


def split(results, counts, axes):
    """Each result cut back into the requests' rows (``axes``: the batch axis of each
    result): a list, per request, of a tuple of arrays (copies, so a reply does not keep
    the whole batch alive)."""
    out = []
    start = 0
    for n in counts:
        idx = []
        for r, ax in zip(results, axes, strict=True):
            cut = (slice(None),) * ax + (slice(start, start + n),)
            idx.append(np.array(r[cut]))
        out.append(tuple(idx))
        start += n
    return out
