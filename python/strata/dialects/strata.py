"""The strata dialect's Python op classes.

The classes are generated from dialects/StrataOps.td into ``_strata_ops_gen``;
this module re-exports them and registers the ops in a context through the
generated IRDL module. Builders that infer result types live in
``strata.frontend.ops``.
"""

from mlir import ir
from mlir.dialects import irdl

from ._ods_common import _cext
from ._strata_irdl import IRDL
from ._strata_ops_gen import *  # noqa: F401,F403
from ._strata_ops_gen import _Dialect  # noqa: F401

_cext.globals.append_dialect_search_prefix("strata.dialects")

# Every strata op class, generated from dialects/StrataOps.td.
OP_CLASSES = tuple(cls for cls in list(globals().values())
                   if isinstance(cls, type) and issubclass(cls, ir.OpView)
                   and getattr(cls, "OPERATION_NAME", "").startswith("strata."))
_BY_NAME = {cls.OPERATION_NAME: cls for cls in OP_CLASSES}


def op_class(name: str) -> type:
    """The op class of ``name`` (``"strata.add"`` -> AddOp)."""
    return _BY_NAME[name]


def load_dialect(context: ir.Context) -> None:
    """Registers the strata ops in ``context``."""
    with context, ir.Location.unknown():
        irdl.load_dialects(ir.Module.parse(IRDL))
