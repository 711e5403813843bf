"""pytest setup: compilations go to a cache folder of this session, never the user's."""

import os
import tempfile

import pytest

_CACHE = tempfile.mkdtemp(prefix="strata-test-cache-")
os.environ["STRATA_CACHE_DIR"] = _CACHE


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true", default=False,
                     help="run the slow tests, and many more examples of the fuzzers")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: runs only with --slow (long local runs)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    """Each test starts with Dynamo's caches empty. Dynamo keys its frame cache and its
    automatic-dynamic memory by code object, which every ``torch.compile``d module shares
    (``Module._call_impl``), so a model compiled by an earlier test with other input
    sizes would make this test's graph symbolic (and strata's backend run it eagerly)."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None:
        torch._dynamo.reset()
    yield
