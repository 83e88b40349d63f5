"""Golden trajectories: seeded games of every registered id, hashed step by step.

A refactor that keeps behaviour must leave every digest unchanged. Each game is a chain of
SHA-256 digests over what a learner sees at every step: the observation and int8 mask of the
seat to act, every seat's reward, the termination and truncation flags and the outcome.
``golden_trajectories.json`` keeps the chain every ``CHECKPOINT_EVERY`` steps and at the end,
so a mismatch names the first stretch of steps where the two runs part.

Policies: ``random`` (uniform over the mask, from its own seeded generator) and ``heuristic``
(the game's own heuristic agent on every seat). Games are cut at ``MAX_STEPS`` decisions.

Record again only when behaviour is meant to change, and say so in the commit:
``python -m tests.golden_trajectories --record``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

GOLDEN_FILE = Path(__file__).with_name("golden_trajectories.json")
CHECKPOINT_EVERY = 50
MAX_STEPS = 4000
#: (policy, seed) games played for every registered id
GAMES: tuple[tuple[str, int], ...] = (("random", 0), ("random", 1), ("random", 2), ("heuristic", 3), ("heuristic", 4))


def _digest(previous: bytes, *parts: Any) -> bytes:
    """Chain ``previous`` with one step's data; arrays hash by dtype, shape and bytes."""
    hasher = hashlib.sha256(previous)
    for part in parts:
        if isinstance(part, np.ndarray):
            hasher.update(str(part.dtype).encode() + str(part.shape).encode())
            hasher.update(np.ascontiguousarray(part).tobytes())
        elif isinstance(part, float):
            hasher.update(struct.pack("<d", part))
        else:
            hasher.update(repr(part).encode())
        hasher.update(b"|")
    return hasher.digest()


def _heuristic(env: Any, seed: int) -> Any:
    from empire_envs.agents.base import game_key as key_of_game
    from empire_envs.agents.base import make_agent

    return make_agent("heuristic", key_of_game(env, ""), seed=seed)


def _gym_steps(env_id: str, policy: str, seed: int) -> Iterator[tuple[Any, ...]]:
    import empire_envs

    env = empire_envs.make(env_id)
    rng = np.random.default_rng(seed)
    agent = _heuristic(env, seed) if policy == "heuristic" else None
    if agent is not None:
        agent.reset(seed)
    obs, info = env.reset(seed=seed)
    yield ("reset", obs, info["action_mask"])
    for _ in range(MAX_STEPS):
        mask = info["action_mask"]
        if agent is None:
            action = int(rng.choice(np.flatnonzero(mask)))
        else:
            action = int(agent.act(obs, mask, env.unwrapped.state))
        obs, reward, terminated, truncated, info = env.step(action)
        yield (action, obs, info["action_mask"], float(reward), terminated, truncated, info.get("outcome"))
        if terminated or truncated:
            return


def _aec_steps(env_id: str, policy: str, seed: int) -> Iterator[tuple[Any, ...]]:
    import empire_envs

    env = empire_envs.make(env_id)
    rng = np.random.default_rng(seed)
    agent = _heuristic(env, seed) if policy == "heuristic" else None
    if agent is not None:
        agent.reset(seed)
    env.reset(seed=seed)
    seats = list(env.possible_agents)
    for steps, name in enumerate(env.agent_iter(), start=1):
        observation, _reward, termination, truncation, info = env.last()
        rewards = tuple(float(env.rewards.get(seat, 0.0)) for seat in seats)
        over = termination or truncation
        yield (
            seats.index(name),
            observation["observation"],
            observation["action_mask"],
            rewards,
            termination,
            truncation,
            info.get("outcome"),
            info.get("result"),
        )
        if over:
            action = None
        elif agent is None:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        else:
            action = int(agent.act(observation["observation"], observation["action_mask"], env.unwrapped.game_state))
        env.step(action)
        if steps >= MAX_STEPS:
            return


def trajectory(env_id: str, policy: str, seed: int) -> dict[str, Any]:
    """``{"checkpoints": {step: hex digest}, "steps": n}`` of one seeded game."""
    from empire_envs.registry import entry

    steps = _gym_steps if entry(env_id).api == "gymnasium" else _aec_steps
    chain = b""
    checkpoints: dict[str, str] = {}
    count = 0
    for count, parts in enumerate(steps(env_id, policy, seed), start=1):
        chain = _digest(chain, *parts)
        if count % CHECKPOINT_EVERY == 0:
            checkpoints[str(count)] = chain.hex()[:16]
    checkpoints[str(count)] = chain.hex()[:16]
    return {"checkpoints": checkpoints, "steps": count}


def game_key(policy: str, seed: int) -> str:
    return f"{policy}-{seed}"


def record() -> dict[str, dict[str, Any]]:
    from empire_envs.registry import ENTRIES

    return {
        item.env_id: {game_key(policy, seed): trajectory(item.env_id, policy, seed) for policy, seed in GAMES}
        for item in ENTRIES
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help=f"write {GOLDEN_FILE.name} from the current code")
    args = parser.parse_args()
    if not args.record:
        parser.error("nothing to do: pass --record to write the golden file")
    GOLDEN_FILE.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN_FILE}")


if __name__ == "__main__":
    main()
