"""pytest setup: compilations go to a cache folder of this session, never the user's."""

import os
import tempfile

_CACHE = tempfile.mkdtemp(prefix="strata-test-cache-")
os.environ["STRATA_CACHE_DIR"] = _CACHE
