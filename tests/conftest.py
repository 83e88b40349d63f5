"""Settings for the whole test session.

The suite keeps JAX's persistent compilation cache off (``EMPIRE_ENVS_JAX_CACHE=off``, unless
the caller set it): tests write nothing to the user's cache folder, and no test can pass or fail
by what an earlier run left there. tests/test_jax_compile_cache.py turns the cache on in folders
of its own.
"""

from __future__ import annotations

import os

os.environ.setdefault("EMPIRE_ENVS_JAX_CACHE", "off")
