"""Functions that Ray workers run in the tests (importable there: ``worker_env`` puts this
folder on the workers' PYTHONPATH), and the local Ray cluster the Ray tests start."""

import os

import strata

HERE = os.path.dirname(os.path.abspath(__file__))


def relu_mm(x, w):
    return strata.relu(x @ w)


def dies_once(x, w):
    """Kills its process the first time a Ray worker traces it (the driver never does): the
    file named by TEST_DIE_ONCE_MARKER marks that it has died. (Not a STRATA_ variable:
    those are knobs, part of a compiled entry's key.)"""
    marker = os.environ.get("TEST_DIE_ONCE_MARKER")
    if marker and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return strata.relu(x @ w)


def worker_env(**extra) -> dict:
    """A runtime_env for Ray workers: this folder importable, and ``extra`` variables."""
    return {"env_vars": {"PYTHONPATH": HERE, **extra}}


def start_local_ray(ray, **extra):
    """A local Ray cluster of 2 CPUs whose workers see ``worker_env(**extra)``."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env=worker_env(**extra))
