"""Empire Solitaire: a 5x3 capture solitaire with a 3-card stock, exactly solvable.

``GAME`` bundles the rules for the generic adapters; ``EmpireSolitaireEnv`` (``env.py``) is the
Gymnasium environment ``empire_envs/EmpireSolitaire-v0``; ``solver.solve`` plays perfectly when
the stock order is known.
"""

from __future__ import annotations

from ...core.game import SinglePlayerGame
from . import actions, observe, render, rules
from .config import SolitaireConfig
from .state import OUTCOME_NAMES, SolitaireState


def _new_game(config: SolitaireConfig, rng, deal=None) -> SolitaireState:
    return rules.new_game(config, rng, deal=deal)


GAME = SinglePlayerGame(
    name="Empire Solitaire",
    config_class=SolitaireConfig,
    num_actions=actions.NUM_ACTIONS,
    observation_size=observe.OBSERVATION_SIZE,
    new_game=_new_game,
    step=rules.step,
    legal_actions=rules.legal_actions,
    legal_mask=rules.legal_mask,
    observe=observe.observe,
    is_terminal=rules.is_terminal,
    is_truncated=lambda state: False,  # at most 23 steps: never truncated
    outcome=lambda state: OUTCOME_NAMES[state.outcome],
    action_name=actions.action_name,
    to_text=render.to_text,
    to_rgb=render.to_rgb,
    reset_options=("deal",),
    determinize=rules.determinize,
)

__all__ = ["GAME", "SolitaireConfig", "SolitaireState", "actions", "observe", "render", "rules"]
