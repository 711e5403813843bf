"""Transform-dialect schedules, built with upstream's Python builders and applied from Python.

A schedule is a function ``body(root)`` that adds ops from ``mlir.dialects.transform``
(``structured``, ``loop``, ``vector``, ``gpu``) on the handle ``root`` of the payload.
:func:`build_schedule` wraps it in ``@__transform_main``; :func:`apply_schedule` runs
that with upstream's transform interpreter.

The passes that schedule specific ops share one protocol, :class:`Tags`: mark the
target ops with discardable attributes, apply schedules that match those attributes
(``match_tagged``), then remove every mark from the payload. Tags, not Python
handles, name the targets: transforms clone and erase payload ops (a tiled op's
tiles keep its attributes), and a Python handle on an erased op is stale::

    with Tags(module) as tags:
        for i, op in enumerate(targets):
            tags.add(op, f"strata.parallelize_{i}")
        for i in range(len(targets)):
            tags.apply(lambda root: structured.TileUsingForallOp(
                tags.match(root, f"strata.parallelize_{i}"), num_threads=[2, 0]))
    # no strata.parallelize_* attribute is left in the module
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import transform
from mlir.dialects.transform import interpreter, structured

from ..diagnostics import capture_diagnostics

__all__ = ["ScriptError", "Tags", "any_op", "apply_patterns", "apply_schedule",
           "build_schedule", "match_ops", "match_tagged"]

Schedule = Callable[[ir.Value], None]


class ScriptError(Exception):
    """A schedule did not verify or did not apply; the text holds MLIR's diagnostics."""


def any_op() -> ir.Type:
    """``!transform.any_op``."""
    return transform.AnyOpType.get()


def match_ops(root: ir.Value, names) -> ir.Value:
    """``transform.structured.match ops{[names]} in root``."""
    return structured.MatchOp.match_op_names(root, list(names)).result


def match_tagged(root: ir.Value, name: str, value: ir.Attribute | None = None,
                 ops=None) -> ir.Value:
    """``transform.structured.match [ops{[ops]}] attributes{name [= value]} in root``."""
    attrs = ir.DictAttr.get({name: value if value is not None else ir.UnitAttr.get()})
    names = ir.ArrayAttr.get([ir.StringAttr.get(n) for n in ops]) if ops else None
    return structured.MatchOp(any_op(), root, ops=names, op_attrs=attrs).result


def apply_patterns(target: ir.Value, *patterns) -> None:
    """``transform.apply_patterns to target { ... }``; each pattern is a callable that
    builds one pattern op (a generated class, e.g. ``vector.ApplyLowerMasksPatternsOp``)."""
    op = transform.ApplyPatternsOp(target)
    with ir.InsertionPoint(op.patterns):
        for pattern in patterns:
            pattern()


def build_schedule(body: Schedule, context: ir.Context | None = None) -> ir.Module:
    """A transform module whose ``@__transform_main(%root {transform.readonly})`` holds
    the ops ``body(root)`` builds, verified."""
    with context or ir.Context.current, ir.Location.unknown():
        module = ir.Module.create()
        module.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
        with ir.InsertionPoint(module.body):
            main = transform.NamedSequenceOp(
                "__transform_main", [any_op()], [],
                arg_attrs=[{"transform.readonly": ir.UnitAttr.get()}])
        with ir.InsertionPoint(main.body):
            body(main.bodyTarget)
            transform.YieldOp([])
        try:
            module.operation.verify()
        except ir.MLIRError as e:
            raise ScriptError(f"the schedule does not verify: {e}") from None
    return module


def apply_schedule(payload: ir.Operation, schedule: Schedule | ir.Module) -> None:
    """Applies ``schedule`` (a body for :func:`build_schedule`, or its module) to ``payload``.

    Raises ScriptError (with the transform's diagnostics) if it fails: the
    interpreter reports some failures as ``ir.MLIRError`` and others as ValueError.
    """
    with payload.context, ir.Location.unknown():
        module = schedule if isinstance(schedule, ir.Module) else \
            build_schedule(schedule, payload.context)
        main = module.body.operations[0]
        # The interpreter runs a pass manager of its own: its diagnostics are ours to take
        # (see strata.diagnostics), and an error it emitted means the schedule failed.
        with capture_diagnostics(payload.context) as diags:
            try:
                interpreter.apply_named_sequence(payload, main, module)
                failed = None
            except (ir.MLIRError, ValueError) as e:
                failed = str(e)
        errors = [d for d in diags if d.severity == "error"]
        if failed is not None or errors:
            raise ScriptError("\n".join([failed or ""] + [str(d) for d in errors]).strip())


class Tags:
    """The tag/apply/untag protocol: a context manager over one payload module.

    :meth:`add` marks an op with a discardable attribute (a unit attribute unless a
    value is given), :meth:`match` matches the marked ops (and their clones) inside a
    schedule, :meth:`apply` applies a schedule to the payload; leaving the ``with``
    block removes every attribute name that :meth:`add` used from every op of the
    payload.
    """

    def __init__(self, payload: ir.Operation):
        self.payload = getattr(payload, "operation", payload)
        self.names: dict[str, None] = {}

    def __enter__(self) -> Tags:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()

    def add(self, op, name: str, value: ir.Attribute | None = None) -> str:
        with self.payload.context:
            op.attributes[name] = value if value is not None else ir.UnitAttr.get()
        self.names[name] = None
        return name

    def match(self, root: ir.Value, name: str, value: ir.Attribute | None = None,
              ops=None) -> ir.Value:
        return match_tagged(root, name, value, ops)

    def apply(self, schedule: Schedule | ir.Module) -> None:
        apply_schedule(self.payload, schedule)

    def remove(self) -> None:
        """Removes the attributes named by :meth:`add` from every op of the payload."""
        names = list(self.names)
        if not names:
            return

        def visit(op):
            for name in names:
                if name in op.attributes:
                    del op.attributes[name]
            return ir.WalkResult.ADVANCE

        self.payload.walk(visit)
