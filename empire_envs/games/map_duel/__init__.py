"""Map Duel: two players' face cards fight over a map built from the 36 number cards.

``GAME`` bundles the rules for the generic adapters and the search agents; the registry builds
the PettingZoo AEC environment from it (``empire_envs.envs.MapDuelEnv``, the bare game, and
``empire_envs.envs.map_duel_env``, wrapped), registered as ``empire_envs/MapDuel-v0``.
"""

from __future__ import annotations

from ...core.game import Game
from . import actions, observe, render, rules
from .actions import layout_for
from .config import MapDuelConfig
from .doc import ENV_DOC
from .state import NUM_NUMBER_CARDS, MapDuelState


def _action_name(state_or_config, index: int) -> str:
    board_size = getattr(state_or_config, "B", None) or state_or_config.board_size
    seat = getattr(state_or_config, "current", 0)
    return layout_for(board_size).name(index, seat)


def _new_game(config: MapDuelConfig, rng, deck=None) -> MapDuelState:
    return rules.new_game(config, rng, deck=deck)


GAME = Game(
    name="Map Duel",
    config_class=MapDuelConfig,
    state_class=MapDuelState,
    num_players=lambda config: 2,
    num_actions=lambda config: layout_for(config.board_size).size,
    observation_size=lambda config: observe.observation_size(config.board_size),
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
    reset_options=("deck",),
    example_reset_options=lambda config: {"deck": list(range(NUM_NUMBER_CARDS))},  # every number card
    heuristic_values=rules.heuristic_values,
    announce_action=actions.announce_action,
    env_doc=ENV_DOC,
)

__all__ = ["GAME", "MapDuelConfig", "MapDuelState", "actions", "observe", "render", "rules"]
