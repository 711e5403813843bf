"""Re-exports upstream's ODS helpers so the generated strata op classes import them."""

from mlir.dialects._ods_common import *  # noqa: F401,F403
from mlir.dialects._ods_common import _cext  # noqa: F401
