"""Toy Nim: the tiny game of ``docs/adding_a_game.md``, built the way a game of the package is.

The files are those of ``empire_envs/games/<game>/``: ``config.py``, ``state.py``, ``rules.py``,
``actions.py``, ``observe.py``, ``render.py``, ``doc.py``, and this ``GAME`` record. The game
lives outside the package, so ``tests/test_toy_game.py`` adds it with the page's registration
block: ``empire_envs.registry.register_game(GameEntry(...))`` and, for its agents,
``empire_envs.agents.registry.register_agents``.
"""

from __future__ import annotations

from empire_envs.core.game import Game

from . import actions, observe, render, rules
from .config import ToyNimConfig
from .doc import ENV_DOC
from .state import NUM_SEATS, ToyNimState

GAME = Game(
    name="Toy Nim",
    config_class=ToyNimConfig,
    state_class=ToyNimState,
    num_players=lambda config: NUM_SEATS,
    num_actions=actions.num_actions,
    observation_size=lambda config: observe.OBSERVATION_SIZE,
    observation_bounds=lambda config: (0.0, 1.0),
    max_game_length=rules.max_game_length,
    utility_range=lambda config: (rules.LOSS_REWARD, rules.WIN_REWARD),
    new_game=rules.new_game,
    apply_action=rules.apply_action,
    acting_player=rules.acting_player,
    legal_actions=rules.legal_actions,
    legal_mask=rules.legal_mask,
    observe=observe.observe,
    is_terminal=rules.is_terminal,
    is_truncated=lambda state: False,
    outcome=rules.outcome,
    returns=rules.returns,
    determinize=rules.determinize,
    action_name=actions.action_name,
    to_text=render.to_text,
    to_rgb=render.to_rgb,
    reset_options=("deck",),
    example_reset_options=lambda config: {"deck": ["KS", "2C", "QH"]},  # the top of the pile
    env_doc=ENV_DOC,
)

__all__ = ["GAME", "ToyNimConfig", "ToyNimState"]
