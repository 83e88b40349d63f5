"""Empires and Generals: a collectible-card-game framework for 2-4 players, with the project's
own data-defined card pool (``cards.py``, ``data/``).

``GAME`` bundles the rules for the generic adapters and the search agents; the registry builds
the PettingZoo AEC environment from it (``empire_envs.envs.GeneralsEnv``, the bare game, and
``empire_envs.envs.generals_env``, wrapped), registered as ``empire_envs/Generals-v0``.
"""

from __future__ import annotations

from typing import Any

from ...core.game import Game
from . import actions, cards, observe, render, rules
from .actions import layout_for
from .config import GeneralsConfig
from .doc import ENV_DOC
from .state import GeneralsState


def _pool_size(config: GeneralsConfig) -> int:
    return config.pool.size


def _action_name(state_or_config, index: int) -> str:
    config = getattr(state_or_config, "config", state_or_config)
    pool = config.pool
    return layout_for(pool.size, config.offsets).name(index, tuple(k.id for k in pool.kinds))


def _example_reset_options(config: GeneralsConfig) -> dict[str, Any]:
    """One distinct available deck per seat, and seat 0 first."""
    return {"decks": sorted(config.available_decks)[: config.num_players], "first_player": 0}


def _new_game(config: GeneralsConfig, rng, decks=None, first_player=None) -> GeneralsState:
    return rules.new_game(config, rng, decks=decks, first_player=first_player)


GAME = Game(
    name="Empires and Generals",
    config_class=GeneralsConfig,
    state_class=GeneralsState,
    num_players=lambda config: config.num_players,
    num_actions=lambda config: layout_for(_pool_size(config), config.offsets).size,
    observation_size=lambda config: observe.observation_size(_pool_size(config), config.max_seats),
    observation_bounds=lambda config: (observe.observation_low(config), observe.observation_high(config)),
    max_game_length=rules.max_game_length,
    utility_range=rules.utility_range,
    new_game=_new_game,
    apply_action=rules.apply_action,
    acting_player=rules.acting_player,
    legal_actions=rules.legal_actions,
    legal_mask=rules.legal_mask,
    observe=observe.observe,
    is_terminal=rules.is_terminal,
    is_truncated=rules.is_truncated,
    outcome=rules.outcome_name,
    returns=rules.final_rewards,
    determinize=rules.determinize,
    action_name=_action_name,
    to_text=render.to_text,
    to_rgb=render.to_rgb,
    reset_options=("decks", "first_player"),
    example_reset_options=_example_reset_options,
    heuristic_values=rules.heuristic_values,
    eliminated=rules.eliminated,
    announce_action=actions.announce_action,
    env_doc=ENV_DOC,
)

__all__ = ["GAME", "GeneralsConfig", "GeneralsState", "actions", "cards", "observe", "render", "rules"]
