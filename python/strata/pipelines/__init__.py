"""Pipelines: the textual pipeline syntax, the one runner every pipeline goes through,
and the named pipelines (strata-cpu, ...)."""
