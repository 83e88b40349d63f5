"""Empire solo: recruit soldiers, fight the face cards, stack toward three bases.

``GAME`` bundles the rules for the generic adapters; ``EmpireSoloEnv`` (in ``env.py``) is the
Gymnasium environment registered as ``empire_envs/EmpireSolo-v0``.
"""

from __future__ import annotations

from ...core.game import SinglePlayerGame
from . import actions, observe, render, rules
from .config import SoloConfig
from .state import OUTCOME_NAMES, TRUNCATED, SoloState


def _new_game(config: SoloConfig, rng, deck=None) -> SoloState:
    return rules.new_game(config, rng, deck=deck)


GAME = SinglePlayerGame(
    name="Empire solo",
    config_class=SoloConfig,
    num_actions=actions.NUM_ACTIONS,
    observation_size=observe.OBSERVATION_SIZE,
    new_game=_new_game,
    step=rules.step,
    legal_actions=rules.legal_actions,
    legal_mask=rules.legal_mask,
    observe=observe.observe,
    is_terminal=rules.is_terminal,
    is_truncated=lambda state: state.outcome == TRUNCATED,
    outcome=lambda state: OUTCOME_NAMES[state.outcome],
    action_name=actions.action_name,
    to_text=render.to_text,
    to_rgb=render.to_rgb,
    reset_options=("deck",),
    determinize=rules.determinize,
)

__all__ = ["GAME", "SoloConfig", "SoloState", "actions", "observe", "render", "rules"]
