"""Settings for the whole test session.

The suite keeps JAX's persistent compilation cache off (``EMPIRE_ENVS_JAX_CACHE=off``, unless
the caller set it): tests write nothing to the user's cache folder, and no test can pass or fail
by what an earlier run left there. tests/test_jax_compile_cache.py turns the cache on in folders
of its own. The modules that compile JAX programs once per process each run on one worker.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("EMPIRE_ENVS_JAX_CACHE", "off")

#: the test modules that compile JAX programs in module- or process-wide fixtures and caches (a
#: twin's step at each config, a PPO run): each stays on one pytest-xdist worker (``make test``
#: runs ``--dist loadgroup``), so that its programs compile once per session, not once per worker
COMPILING_MODULES = (
    "tests/test_jax_ppo.py",
    "tests/test_jax_selfplay.py",
    "tests/test_jax_imitate.py",
    "tests/test_jax_twins.py",
    "tests/map_duel/test_jax_twin.py",
    "tests/pillars/test_jax_twin.py",
    "tests/pillars/test_jax_observe.py",
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        if module in COMPILING_MODULES:
            item.add_marker(pytest.mark.xdist_group(module))
