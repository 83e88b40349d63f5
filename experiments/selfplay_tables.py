"""Tables A, B and C of a trained multiplayer agent: against random, heuristic and ISMCTS; a
round-robin rating with its checkpoints; a best response's win rate against it.

Usage (from the repository root)::

    python experiments/selfplay_tables.py --env empire_envs/MapDuel-v0 \\
        --agent jaxppo:runs/mapduel/policy.npz \\
        --checkpoint jaxppo:runs/mapduel/checkpoints/policy_1000000.npz \\
        --out docs/benchmarks/map_duel --jobs 2

``--help`` lists the flags; the code is in ``empire_envs.evaluation.selfplay_tables``.
"""

from __future__ import annotations

import os

# one BLAS thread per process (set before numpy loads; the --jobs processes inherit it): a
# policy's matrix-vector products are far slower split over threads on a busy machine
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

from empire_envs.evaluation.selfplay_tables import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
