"""Autotuning: ``strata.tune(fn, *args, budget=...)`` and the ``strata tune`` command.

search.py searches and measures (locally or on Ray, ray_executor.py); the
winners go to the persistent tuning record (runtime/tuning_record.py), which
every later compile on a matching target reads.
"""

from .search import TuneResult, tune

__all__ = ["tune", "TuneResult"]
