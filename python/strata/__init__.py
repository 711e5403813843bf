"""strata: an MLIR-based multi-level lowering pipeline for ML tensor programs."""

__version__ = "0.1.0"
