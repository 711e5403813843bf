"""Op views of upstream dialects for the MLIR bindings, lighter than ``mlir.dialects.*``.

The bindings import ``<prefix>.<dialect>`` the first time they wrap an op of a
dialect in a Python view; passes/linalg_ops.py puts this package first among
those prefixes. Only ``linalg`` lives here: ``mlir.dialects.linalg`` also builds
its ~80 opdsl op definitions on import (~0.1 s of every cold compile), which
strata does not use (passes/linalg_ops.py builds the ops it needs without them).
Other dialects are not found here and come from ``mlir.dialects`` as usual.
"""
