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

XLA compiles the suite's programs for speed of compiling, not of running (``XLA_FLAGS`` gains
each of ``TEST_XLA_FLAGS`` whose flag the caller's flags do not set): LLVM's optimisations off
(``--xla_backend_optimization_level=0``, about a third less compile time) and XLA:CPU's older
loop emitters for fusions instead of its newer MLIR ones (``--xla_cpu_use_fusion_emitters=false``,
which halves the compile of the Pillars step and changes its run time by no more than noise).
The suite compiles hundreds of programs and runs each briefly. Neither flag changes what a
program computes (no fast-math either way; the same HLO, lowered by another emitter), so the
lockstep tests prove the same identity; ``bench --batched`` and training run at XLA's defaults.

Stable-Baselines3 makes a log folder for every ``learn`` of a model without a logger of its own,
in the system's temporary folder unless ``SB3_LOGDIR`` names one; the tests that train such a
model would leave a folder there per run, so each session points ``SB3_LOGDIR`` into its own
pytest temporary folder (unless the caller set it).

Each worker runs torch and BLAS on one thread (``OMP_NUM_THREADS=1`` unless the caller set it):
``make test`` runs two workers on two cores, and a MaskablePPO test whose torch split its tiny
matrix products over every core ran six times slower under the other worker's load.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("EMPIRE_ENVS_JAX_CACHE", "off")
os.environ.setdefault("OMP_NUM_THREADS", "1")
#: XLA flags that make the suite's many short-lived programs compile faster (module docstring)
TEST_XLA_FLAGS = ("--xla_backend_optimization_level=0", "--xla_cpu_use_fusion_emitters=false")
for _flag in TEST_XLA_FLAGS:
    if _flag.partition("=")[0] not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_flag}".strip()

#: the longest test modules by the durations of ``make test`` (longest first; each module's total
#: on one worker): they start first, while the other worker takes the rest
LONGEST_FIRST = (
    "tests/generals/test_jax_twin.py",
    "tests/pillars/test_jax_twin.py",
    "tests/test_jax_twins.py",
    "tests/map_duel/test_jax_twin.py",
    "tests/solo/test_properties.py",
    "tests/test_training.py",
    "tests/test_jax_imitate.py",
    "tests/test_jax_selfplay.py",
    "tests/test_agents.py",
    "tests/test_jax_ppo.py",
    "tests/test_batched_speed.py",
    "tests/test_jax_docs.py",
    "tests/test_rllib.py",
    "tests/test_jax_bad_inputs.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {module: place for place, module in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # stable


@pytest.fixture(autouse=True, scope="session")
def _sb3_log_folders_in_the_session_folder(tmp_path_factory):
    """SB3's log folders (module docstring) go under this session's temporary folder."""
    if "SB3_LOGDIR" in os.environ:
        yield
        return
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))
    yield
    del os.environ["SB3_LOGDIR"]
