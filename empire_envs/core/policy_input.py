"""What a learned policy may be fed besides the observation: the mask, and a one-step lookahead.

An MLP policy sees the observation only; MaskablePPO applies the mask to its output. Two optional
extras help it where the observation hides structure:

- ``mask``: the legal-action mask itself (in Solitaire, the graph of available captures);
- ``lookahead``: for every action, how many actions would be legal after it (``successor_mobility``),
  computed with the rules on a determinized copy of the state, so hidden cards are guessed from
  what the player has seen, never read. It is the measure Solitaire's greedy player maximises.

The same ``PolicyInput`` builds the input while training (``empire_envs.training.sb3``) and when a
saved model plays (``empire_envs.agents.ppo``), so the two never drift apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .game import Game

#: the determinization of the lookahead uses this fixed seed: the same state, the same features
LOOKAHEAD_SEED = 0


def successor_mobility(game: Game, state: Any, rng: np.random.Generator) -> np.ndarray:
    """Per action: ``log(1 + m) / log(1 + num_actions)``, where ``m`` is the number of actions
    legal after taking it (a log scale keeps 10 and 30 apart without saturating).

    Zero for an illegal action and for one that ends the game. Runs on ``game.determinize`` of
    the state, so a step that reveals a hidden card reveals a guess.
    """
    num_actions = game.num_actions(state.config)
    features = np.zeros(num_actions, dtype=np.float32)
    scale = math.log1p(num_actions)
    guess = game.determinize(state, game.acting_player(state), rng)
    for action in game.legal_actions(state):
        child = guess.clone()
        game.apply_action(child, action, rng)
        if not game.is_terminal(child):
            features[action] = math.log1p(len(game.legal_actions(child))) / scale
    return features


@dataclass(frozen=True)
class PolicyInput:
    """Which extras follow the observation in a policy's input, in this order: mask, lookahead."""

    mask: bool = False
    lookahead: bool = False

    @classmethod
    def from_run_config(cls, config: Mapping[str, Any]) -> PolicyInput:
        """The input a training run used, from its ``config.json`` (``experiments/train.py``)."""
        return cls(
            mask=bool(config.get("mask_in_observation", False)), lookahead=bool(config.get("lookahead_features", False))
        )

    def width(self, observation_size: int, num_actions: int) -> int:
        return observation_size + num_actions * (int(self.mask) + int(self.lookahead))

    @property
    def plain(self) -> bool:
        return not (self.mask or self.lookahead)

    def build(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        game: Game | None = None,
        state: Any = None,
    ) -> np.ndarray:
        """The policy's input vector (float32); ``game`` and ``state`` are needed for lookahead."""
        parts = [np.asarray(observation, dtype=np.float32).ravel()]
        if self.mask:
            parts.append(np.asarray(action_mask, dtype=np.float32))
        if self.lookahead:
            if game is None or state is None:
                raise ValueError("the lookahead input needs the game and its state")
            rng = np.random.default_rng(LOOKAHEAD_SEED)
            parts.append(successor_mobility(game, state, rng))
        return np.concatenate(parts)
