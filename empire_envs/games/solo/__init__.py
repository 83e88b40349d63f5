"""Empire solo: recruit soldiers, fight the face cards, stack toward three bases.

``GAME`` bundles the rules for the generic adapters; the registry builds the Gymnasium
environment ``empire_envs.envs.EmpireSoloEnv`` (id ``empire_envs/EmpireSolo-v0``) from it.
"""

from __future__ import annotations

from ...core.cards import NUM_CARDS
from ...core.game import Game
from . import actions, observe, render, rules
from .config import SoloConfig
from .doc import ENV_DOC
from .state import OUTCOME_NAMES, TRUNCATED, SoloState
from .tables import NAME


def _new_game(config: SoloConfig, rng, deck=None) -> SoloState:
    return rules.new_game(config, rng, deck=deck)


GAME = Game(
    name=NAME,
    config_class=SoloConfig,
    state_class=SoloState,
    num_players=lambda config: 1,
    num_actions=lambda config: actions.NUM_ACTIONS,
    observation_size=lambda config: observe.OBSERVATION_SIZE,
    observation_bounds=lambda config: (0.0, 1.0),
    max_game_length=rules.max_game_length,
    utility_range=lambda config: (rules.LOSS_REWARD, rules.WIN_REWARD),
    new_game=_new_game,
    apply_action=rules.apply_action,
    acting_player=lambda state: 0,
    legal_actions=rules.legal_actions,
    legal_mask=rules.legal_mask,
    observe=observe.observe,
    is_terminal=rules.is_terminal,
    is_truncated=lambda state: state.outcome == TRUNCATED,
    outcome=lambda state: OUTCOME_NAMES[state.outcome],
    returns=lambda state: [rules.returns(state)],
    determinize=rules.determinize,
    action_name=lambda state_or_config, index: actions.action_name(index),
    to_text=render.to_text,
    to_rgb=render.to_rgb,
    reset_options=("deck",),
    example_reset_options=lambda config: {"deck": list(range(NUM_CARDS))},  # the whole deck, top first
    env_doc=ENV_DOC,
)

__all__ = ["GAME", "SoloConfig", "SoloState", "actions", "observe", "render", "rules"]
