"""Dialect packages of strata: generated op classes and their hand-written extensions."""
