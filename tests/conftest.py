"""Settings for the whole test session.

The suite keeps JAX's persistent compilation cache off (``EMPIRE_ENVS_JAX_CACHE=off``, unless
the caller set it): tests write nothing to the user's cache folder, and no test can pass or fail
by what an earlier run left there. tests/test_jax_compile_cache.py turns the cache on in folders
of its own. The modules that compile JAX programs once per process each run on one worker.

XLA compiles the suite's programs with LLVM's optimisations off (``XLA_FLAGS`` gains
``--xla_backend_optimization_level=0`` unless the caller's flags set a level): the suite compiles
dozens of programs and runs each briefly, and compiling at level 0 takes about a third less
time. The level changes how fast the machine code runs, not what it computes (no fast-math
either way), so the lockstep tests prove the same identity; ``bench --batched`` and training
run at XLA's default.

Each worker runs torch and BLAS on one thread (``OMP_NUM_THREADS=1`` unless the caller set it):
``make test`` runs two workers on two cores, and a MaskablePPO test whose torch split its tiny
matrix products over every core ran six times slower under the other worker's load.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("EMPIRE_ENVS_JAX_CACHE", "off")
os.environ.setdefault("OMP_NUM_THREADS", "1")
if "xla_backend_optimization_level" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_backend_optimization_level=0".strip()

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
