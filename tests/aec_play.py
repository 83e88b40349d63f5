"""One whole game of a PettingZoo AEC env with a chooser per seat, for the tests of trained
policies (``test_jax_ppo.py``, ``test_jax_selfplay.py``): every chosen move must be legal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: ``choose(agent_name, observation_dict, env)`` -> the action of ``agent_name``
Chooser = Callable[[str, dict[str, Any], Any], int]


def play_aec_game(env: Any, seed: int, choose: Chooser) -> dict[str, int]:
    """Reset ``env`` with ``seed`` and play it to the end, each agent's move from ``choose``;
    asserts each move is legal and the game ends with no agent left. Returns each agent's
    number of moves."""
    env.reset(seed=seed)
    moves: dict[str, int] = {}
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = choose(name, observation, env)
        assert observation["action_mask"][action], f"{name} chose the masked action {action}"
        env.step(action)
        moves[name] = moves.get(name, 0) + 1
    assert not env.agents
    return moves
