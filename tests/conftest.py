"""Settings for the whole test session.

The suite keeps JAX's persistent compilation cache off (``EMPIRE_ENVS_JAX_CACHE=off``, unless
the caller set it): tests write nothing to the user's cache folder, and no test can pass or fail
by what an earlier run left there. tests/test_jax_compile_cache.py turns the cache on in folders
of its own.

``make test`` runs ``--dist loadfile --no-loadscope-reorder``: each test module runs whole on one
pytest-xdist worker, so that its module-wide fixtures (a twin compiled at each config, a PPO
run) are built once per session, not once per worker. The modules start in ``LONGEST_FIRST``
order, then the others in collection order, so that no long module is left to run alone at the
end. (``--dist loadgroup`` with ``xdist_group`` marks does not group under pytest 9.2 and
pytest-xdist 3.8: xdist renames ``item._nodeid``, which pytest 9.2 no longer reads.)

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

os.environ.setdefault("EMPIRE_ENVS_JAX_CACHE", "off")
os.environ.setdefault("OMP_NUM_THREADS", "1")
if "xla_backend_optimization_level" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_backend_optimization_level=0".strip()

#: the longest test modules by the durations of ``make test`` (longest first; each module's total
#: on one worker): they start first, while the other worker takes the rest
LONGEST_FIRST = (
    "tests/pillars/test_jax_twin.py",
    "tests/test_jax_twins.py",
    "tests/test_jax_ppo.py",
    "tests/test_jax_selfplay.py",
    "tests/map_duel/test_jax_twin.py",
    "tests/test_batched_speed.py",
    "tests/test_notebooks.py",
    "tests/test_code_health.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {module: place for place, module in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # stable
