"""Map Duel: two players' face cards fight over a map built from the 36 number cards.

``GAME`` bundles the rules for the generic adapters and the search agents; ``env.py`` holds the
PettingZoo AEC environment (``raw_env``, ``env()``).
"""

from __future__ import annotations

from ...core.game import MultiplayerGame
from . import actions, observe, render, rules
from .actions import layout_for
from .config import MapDuelConfig
from .state import MapDuelState


def _action_name(state_or_config, index: int) -> str:
    board_size = getattr(state_or_config, "B", None) or state_or_config.board_size
    seat = getattr(state_or_config, "current", 0)
    return layout_for(board_size).name(index, seat)


def _new_game(config: MapDuelConfig, rng, deck=None) -> MapDuelState:
    return rules.new_game(config, rng, deck=deck)


GAME = MultiplayerGame(
    name="Map Duel",
    config_class=MapDuelConfig,
    num_players=lambda config: 2,
    num_actions=lambda config: layout_for(config.board_size).size,
    observation_size=lambda config: observe.observation_size(config.board_size),
    observation_high=observe.observation_high,
    new_game=_new_game,
    apply=rules.apply,
    acting_player=lambda state: state.acting_player(),
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
    heuristic_values=rules.heuristic_values,
)

__all__ = ["GAME", "MapDuelConfig", "MapDuelState", "actions", "observe", "render", "rules"]
