"""Pillars, "Empire: The Card Game": 3-6 players steal, trade and battle for four pillars.

``GAME`` bundles the rules for the generic adapters and the search agents; the registry builds
the PettingZoo AEC environment from it (``empire_envs.envs.PillarsEnv``, the bare game, and
``empire_envs.envs.pillars_env``, wrapped), registered as ``empire_envs/Pillars-v0``.
"""

from __future__ import annotations

from typing import Any

from ...core.game import Game
from . import actions, observe, render, rules
from .actions import layout_for
from .config import PillarsConfig
from .doc import ENV_DOC
from .state import PillarsState, full_deck_counts, kinds_for


def _action_name(state_or_config, index: int) -> str:
    kinds = getattr(state_or_config, "kinds", None) or kinds_for(state_or_config)
    return layout_for(kinds).name(index)


def _example_reset_options(config: PillarsConfig) -> dict[str, Any]:
    """Every card of the packs, in kind order, and seat 0 first."""
    deck = [kind for kind, count in enumerate(full_deck_counts(config)) for _ in range(count)]
    return {"deck": deck, "first_player": 0}


def _new_game(config: PillarsConfig, rng, deck=None, first_player=None) -> PillarsState:
    return rules.new_game(config, rng, deck=deck, first_player=first_player)


GAME = Game(
    name="Pillars",
    config_class=PillarsConfig,
    state_class=PillarsState,
    num_players=lambda config: config.num_players,
    num_actions=lambda config: layout_for(kinds_for(config)).size,
    observation_size=lambda config: observe.observation_size(kinds_for(config)),
    observation_bounds=lambda config: (0.0, observe.observation_high(config)),
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
    reset_options=("deck", "first_player"),
    example_reset_options=_example_reset_options,
    heuristic_values=rules.heuristic_values,
    announce_action=actions.announce_action,
    env_doc=ENV_DOC,
)

__all__ = ["GAME", "PillarsConfig", "PillarsState", "actions", "observe", "render", "rules"]
