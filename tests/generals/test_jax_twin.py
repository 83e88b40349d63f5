"""The Generals twin plays exactly the Python rules, whole games (issue 30, work in progress).

The twin is not registered yet (``jax_rules.rules_for`` builds its record), so each config is
played through ``tests.jax_twins`` with a ``JaxEnv`` made here: the twin deals (the Python rules
get the same decks, shuffles and first player, ``jax_rules.python_deal_draws``), then at every
step every seat's observation, ``state.observation``, the mask, the seat to act, every seat's
reward, terminated, truncated and the outcome (the winner and the victory) are compared. Each
config plays ``GAMES`` games in one batch: half uniformly random masked play, half the Generals
heuristic at every seat. Together the configs reach both victories and truncation (checked).
"""

from __future__ import annotations

import functools

import pytest

jax = pytest.importorskip("jax")

from empire_envs.adapters.jax_env import JaxEnv  # noqa: E402
from empire_envs.agents.base import make_agent  # noqa: E402
from empire_envs.games.generals import jax_rules  # noqa: E402
from empire_envs.games.generals.config import GeneralsConfig  # noqa: E402
from empire_envs.registry import game_entry  # noqa: E402
from tests.jax_twins import (  # noqa: E402
    LockstepReport,
    agent_policy,
    compile_twin,
    play_lockstep,
    random_policy,
)

GAMES = 8
CONFIGS = {f"empire_envs/{variant.name}": dict(variant.kwargs) for variant in game_entry("generals").variants}
CONFIGS.update(
    {
        "3p placement, play for second, shaping, deck-outs lose, draw both": {
            "num_players": 3,
            "reward_scheme": "placement",
            "play_for_second": True,
            "shaping": 0.05,
            "deckout_loses": True,
            "draw_mode": "both",
        },
        "max_generals=3, mirror decks": {"max_generals": 3, "allow_mirror": True},
    }
)
REPORTS: dict[str, LockstepReport] = {}


@functools.cache
def _twin(name: str):
    config = GeneralsConfig(**CONFIGS[name])
    return compile_twin(JaxEnv("empire_envs/Generals-v0", jax_rules.rules_for(config)), GAMES)


def _mixed(index_of_first_heuristic: int):
    heuristic = agent_policy(lambda: make_agent("heuristic", "generals"))

    def act(state, mask, seat, index, rng):
        chosen = heuristic if index >= index_of_first_heuristic else random_policy
        return chosen(state, mask, seat, index, rng)

    return act


@pytest.mark.parametrize("name", list(CONFIGS))
def test_twin_plays_the_python_rules_step_for_step(name):
    report = play_lockstep("empire_envs/Generals-v0", _mixed(GAMES // 2), GAMES, seed=11, twin=_twin(name))
    print(name, report)
    assert report.games == GAMES and report.steps > GAMES * 20
    REPORTS[name] = report


def test_the_games_reach_both_victories_and_truncation():
    if len(REPORTS) < len(CONFIGS):
        pytest.skip("needs every config's games (run the whole module)")
    names = set().union(*(report.outcomes for report in REPORTS.values()))
    assert any("chancellor victory" in name for name in names), names
    assert any("warlord victory" in name for name in names), names
    assert "truncated" in names, names
