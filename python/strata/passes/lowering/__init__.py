"""Per-op-family lowerings of strata ops to linalg on tensors (used by strata-to-linalg)."""
