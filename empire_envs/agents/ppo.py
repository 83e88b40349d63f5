"""A trained MaskablePPO model (sb3-contrib) as an agent: ``make_agent("ppo:runs/x/model.zip", ...)``.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib); the rest of the package does not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .base import Agent


def load_maskable_ppo(path: str | Path) -> Any:
    """Load a MaskablePPO ``.zip`` on the CPU, with clear errors for a missing file or extra."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as error:
        raise ImportError(
            "ppo agents need the train extra: pip install torch==2.13.0 'empire-envs[train]'"
        ) from error
    path = Path(path)
    if not path.is_file() and path.with_suffix(".zip").is_file():
        path = path.with_suffix(".zip")
    if not path.is_file():
        raise ValueError(f"no saved model at {str(path)!r}")
    return MaskablePPO.load(path, device="cpu")


class PPOAgent(Agent):
    """Acts with a saved MaskablePPO policy on the observation and mask it is given.

    ``deterministic=True`` (the default) takes the policy's most likely legal action; with False
    it samples, repeatably after ``reset(seed)``. A model trained with the mask appended to its
    input (``mask_in_observation``; its input is observation size + action count wide) gets the
    mask appended here too.
    """

    name = "ppo"

    def __init__(self, path: str | Path, deterministic: bool = True) -> None:
        self.path = str(path)
        self.model = load_maskable_ppo(path)
        self.policy = self.model.policy
        self.deterministic = deterministic
        self._shape = tuple(self.model.observation_space.shape)
        self._actions = int(self.model.action_space.n)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None and not self.deterministic:
            import torch

            torch.manual_seed(seed)

    def check_spaces(self, observation_space: Any, action_space: Any) -> None:
        shape = tuple(getattr(observation_space, "shape", ()) or ())
        actions = int(getattr(action_space, "n", -1))
        with_mask = len(shape) == 1 and (shape[0] + actions,) == self._shape
        if actions != self._actions or not (shape == self._shape or with_mask):
            raise ValueError(
                f"the model at {self.path!r} was trained on observations of shape {self._shape} "
                f"and {self._actions} actions; this env has {shape} and {actions}"
            )

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if np.ndim(observation) == 1 and np.size(observation) + self._actions == self._shape[0]:
            observation = np.concatenate([observation, np.asarray(action_mask, dtype=np.float32)])
        if np.shape(observation) != self._shape or np.shape(action_mask) != (self._actions,):
            raise ValueError(
                f"the model at {self.path!r} was trained on observations of shape {self._shape} "
                f"and {self._actions} actions; this env gives {np.shape(observation)} and "
                f"{np.shape(action_mask)[0]}"
            )
        action, _ = self.policy.predict(
            observation, action_masks=action_mask, deterministic=self.deterministic
        )
        return int(action)
