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


def load_dialect(context: ir.Context) -> None:
    """Registers the strata ops in ``context``."""
    with context, ir.Location.unknown():
        irdl.load_dialects(ir.Module.parse(IRDL))
