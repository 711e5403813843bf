"""Python capture: the builder API and tracing, both emitting strata ops."""
