"""Empire Solitaire: a 5x3 capture solitaire with a 3-card stock, exactly solvable.

``GAME`` bundles the rules for the generic adapters; the registry builds the Gymnasium
environment ``empire_envs.envs.EmpireSolitaireEnv`` (id ``empire_envs/EmpireSolitaire-v0``) from
it; ``solver.solve`` plays perfectly when the stock order is known.
"""

from __future__ import annotations

from ...core.game import Game
from . import actions, observe, render, rules
from .config import SolitaireConfig
from .doc import ENV_DOC
from .state import OUTCOME_NAMES, SolitaireState
from .tables import NAME


def _new_game(config: SolitaireConfig, rng, deck=None) -> SolitaireState:
    return rules.new_game(config, rng, deck)


GAME = Game(
    name=NAME,
    config_class=SolitaireConfig,
    state_class=SolitaireState,
    num_players=lambda config: 1,
    num_actions=lambda config: actions.NUM_ACTIONS,
    observation_size=lambda config: observe.OBSERVATION_SIZE,
    observation_bounds=lambda config: (0.0, 1.0),
    max_game_length=lambda config: rules.MAX_GAME_LENGTH,
    utility_range=lambda config: (rules.LOSS_REWARD, rules.WIN_REWARD),
    new_game=_new_game,
    apply_action=rules.apply_action,
    acting_player=lambda state: 0,
    legal_actions=rules.legal_actions,
    legal_mask=rules.legal_mask,
    observe=observe.observe,
    is_terminal=rules.is_terminal,
    is_truncated=lambda state: False,  # at most 23 steps: never truncated
    outcome=lambda state: OUTCOME_NAMES[state.outcome],
    returns=lambda state: [rules.returns(state)],
    determinize=rules.determinize,
    action_name=lambda state_or_config, index: actions.action_name(index),
    to_text=render.to_text,
    to_rgb=render.to_rgb,
    reset_options=("deck",),
    example_reset_options=lambda config: {"deck": list(range(rules.DEAL_SIZE))},  # tableau, then stock
    env_doc=ENV_DOC,
)

__all__ = ["GAME", "SolitaireConfig", "SolitaireState", "actions", "observe", "render", "rules"]
