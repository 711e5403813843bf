"""Reading strata's own small JSON files without trusting them.

The cache's ``meta.json`` and ``manifest.json``, the tuning record, the memo files
and the shared cache's headers are written by strata, but anything may have
rewritten them since: a full disk, an edit, another version. Python's ``json``
raises ``RecursionError`` (not ``ValueError``) on deeply nested text such as
``[[[[...]]]]``, and a caller that expected a dict gets whatever the file holds.
Here every way a file can be bad is one ``ValueError`` whose text completes "the
file ..." ("is not JSON (...)", "is nested too deeply", "holds an array, not an
object"), so a caller treats a damaged file like a missing one with a single ``except``.
"""

from __future__ import annotations

import json

__all__ = ["loads", "load", "load_object", "kind"]


def loads(text: str | bytes):
    """The value of JSON ``text``; ValueError when it is not JSON (bad syntax, bad
    UTF-8, nested too deeply for the parser)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("is nested too deeply") from None
    except ValueError as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ValueError(f"is not JSON ({e})") from None


def load(path: str):
    """The value of the JSON file ``path``; OSError when it cannot be read, ValueError
    when it is not JSON."""
    with open(path, "rb") as f:
        return loads(f.read())


def load_object(path: str) -> dict:
    """The JSON object (dict) in the file ``path``; OSError when it cannot be read,
    ValueError when it is not JSON or holds another kind of value."""
    value = load(path)
    if not isinstance(value, dict):
        raise ValueError(f"holds {kind(value)}, not an object")
    return value


def kind(value) -> str:
    """What a parsed JSON value is, in JSON's words (for messages)."""
    for types, name in ((bool, "a boolean"), ((int, float), "a number"), (str, "a string"),
                        (list, "an array"), (dict, "an object")):
        if isinstance(value, types):
            return name
    return "null" if value is None else type(value).__name__
