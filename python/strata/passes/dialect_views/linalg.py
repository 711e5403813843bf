"""linalg's op views (ODS classes and enums) without the opdsl definitions.

The same classes ``mlir.dialects.linalg`` exports (it imports these modules too), so a
later import of the full package finds them registered and changes nothing.
"""

from mlir._mlir_libs._mlirDialectsLinalg import *  # noqa: F403
from mlir.dialects._linalg_enum_gen import *  # noqa: F403
from mlir.dialects._linalg_ops_gen import *  # noqa: F403
