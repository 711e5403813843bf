"""The strata dialect's rules: types, shape inference and the verifier."""
