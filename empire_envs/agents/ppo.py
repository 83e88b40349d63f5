"""A trained MaskablePPO model (sb3-contrib) as an agent: ``make_agent("ppo:runs/x/model.zip", ...)``.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib); the rest of the package does not.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..core.extras import missing_extra
from ..core.policy_input import PolicyInput
from .base import Agent


def load_maskable_ppo(path: str | Path) -> Any:
    """Load a MaskablePPO ``.zip`` on the CPU, with clear errors (``ValueError`` naming the file)
    for a missing file, a folder, a policy ``.npz`` of the compiled trainer (played as
    ``jaxppo:``), a file that is not a zip archive or not a stable-baselines3 save, and a save that
    cannot be read; an ``ImportError`` without the ``train`` extra."""
    path = Path(path)
    if not path.is_file() and path.with_suffix(".zip").is_file():
        path = path.with_suffix(".zip")
    if path.is_dir():
        inside = path / "model.zip"
        hint = f": did you mean {inside}?" if inside.is_file() else ""
        raise ValueError(f"{path} is a folder, not a saved MaskablePPO model (.zip){hint}")
    if not path.is_file():
        raise ValueError(f"no saved model at {str(path)!r}")
    _check_model_archive(path)
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as error:
        raise missing_extra("train", "ppo agents", str(error)) from error
    try:
        return MaskablePPO.load(path, device="cpu")
    except (ImportError, MemoryError, KeyboardInterrupt):
        raise
    except Exception as error:  # zipfile, json, pickle, torch and sb3 errors of a damaged save alike
        raise ValueError(
            f"{path} could not be loaded as a MaskablePPO model (truncated, corrupted or from an incompatible "
            f"version?): {type(error).__name__}: {error}"
        ) from None


def _check_model_archive(path: Path) -> None:
    """Refuse, naming the file, what cannot be a stable-baselines3 save: a policy ``.npz`` of the
    compiled trainer, a file that is not a complete zip archive, a zip without sb3's ``data``."""
    if path.suffix.lower() == ".npz":
        raise ValueError(
            f"{path} is a .npz file, not a saved MaskablePPO model (.zip): a policy file of the compiled "
            f"PPO trainer (train --backend jax) plays as jaxppo:{path}"
        )
    if path.stat().st_size == 0:
        raise ValueError(f"{path} is empty: not a saved MaskablePPO model (.zip)")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise ValueError(
            f"{path} is not a saved MaskablePPO model: not a complete zip archive (truncated, or another "
            f"kind of file): {error}"
        ) from None
    if "metadata.npy" in names and "data" not in names:
        raise ValueError(
            f"{path} is a policy file of the compiled PPO trainer (a .npz archive), not a saved MaskablePPO "
            f"model: play it as jaxppo:{path}"
        )
    if "data" not in names:
        listed = ", ".join(sorted(names)[:5]) or "nothing"
        raise ValueError(
            f"{path} is a zip archive but not a saved MaskablePPO model: it has no 'data' entry (it holds {listed})"
        )


def run_config(model_path: str | Path) -> dict[str, Any]:
    """The ``config.json`` of the run that saved a model: beside it (``model.zip``) or one folder
    up (``checkpoints/``, ``eval/``); empty when there is none."""
    path = Path(model_path).resolve()
    for folder in (path.parent, path.parent.parent):
        candidate = folder / "config.json"
        if candidate.is_file():
            return dict(json.loads(candidate.read_text()))
    return {}


class PPOAgent(Agent):
    """Acts with a saved MaskablePPO policy on the observation and mask it is given.

    ``deterministic=True`` (the default) takes the policy's most likely legal action; with False
    it samples, repeatably after ``reset(seed)``. A model trained with extras in its input
    (``mask_in_observation``, ``lookahead_features``; see ``empire_envs.core.policy_input``) gets
    them built here the same way, from the run's ``config.json``; the lookahead reads the state.
    """

    name = "ppo"

    def __init__(self, path: str | Path, deterministic: bool = True) -> None:
        self.path = str(path)
        self.model = load_maskable_ppo(path)
        self.policy = self.model.policy
        self.deterministic = deterministic
        self._shape = tuple(self.model.observation_space.shape)
        self._actions = int(self.model.action_space.n)
        config = run_config(path)
        self.policy_input = PolicyInput.from_run_config(config)
        self.game = None
        if self.policy_input.lookahead:
            from ..registry import make_any

            env = make_any(config["env_id"], **config.get("env_kwargs", {}))
            self.game = env.unwrapped.game
            env.close()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None and not self.deterministic:
            import torch

            torch.manual_seed(seed)

    def check_spaces(self, observation_space: Any, action_space: Any) -> None:
        shape = tuple(getattr(observation_space, "shape", ()) or ())
        actions = int(getattr(action_space, "n", -1))
        expected: tuple[int, ...] | None
        if self.policy_input.plain:
            expected = shape
        else:  # the extras follow a flat observation
            expected = (self.policy_input.width(shape[0], actions),) if len(shape) == 1 else None
        if actions != self._actions or expected != self._shape:
            raise ValueError(
                f"the model at {self.path!r} was trained on inputs of shape {self._shape} "
                f"and {self._actions} actions ({self.policy_input}); this env has observations "
                f"of shape {shape} and {actions} actions"
            )

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if np.shape(action_mask) != (self._actions,):
            raise ValueError(
                f"the model at {self.path!r} has {self._actions} actions; the mask has {np.shape(action_mask)}"
            )
        if not self.policy_input.plain:
            if self.policy_input.lookahead and state is None:
                raise ValueError(f"the model at {self.path!r} looks ahead: pass the game state")
            observation = self.policy_input.build(observation, action_mask, self.game, state)
        if np.shape(observation) != self._shape:
            raise ValueError(
                f"the model at {self.path!r} was trained on inputs of shape {self._shape}; "
                f"this env gives {np.shape(observation)}"
            )
        action, _ = self.policy.predict(observation, action_masks=action_mask, deterministic=self.deterministic)
        return int(action)
