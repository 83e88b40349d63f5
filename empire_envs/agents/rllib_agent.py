"""A policy trained with Ray RLlib as an agent: ``make_agent("rllib:runs/x/checkpoint", ...)``.

``PATH`` is either a checkpoint of a whole algorithm (what ``experiments/train_rllib.py`` saves)
or the folder of one RLModule inside it (``PATH/learner_group/learner/rl_module/<module id>``).
From an algorithm checkpoint the module is ``default_policy`` (single-agent training), else
``shared`` (self-play), else the only module; with one module per seat, append the module id:
``rllib:PATH#player_0`` (seat 0's module; every multiplayer game names its agents ``player_0``,
``player_1``...). Needs the ``distributed`` extra (``ray[rllib]``, torch).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np

from ..core.extras import missing_extra
from .base import Agent

MODULES_FOLDER = Path("learner_group") / "learner" / "rl_module"
PREFERRED_MODULES = ("default_policy", "shared")


def resolve_module_path(path: str | Path) -> Path:
    """The RLModule folder for ``PATH`` or ``PATH#module_id`` (see the module docstring)."""
    text = str(path)
    module_id: str | None = None
    if "#" in text:
        text, _, module_id = text.rpartition("#")
    # absolute: RLlib reads a checkpoint through pyarrow's file systems, which take a relative
    # path for a URI without a scheme and refuse it
    root = Path(text).resolve()
    if not root.exists():
        raise ValueError(f"no RLlib checkpoint at {text!r}")
    modules = root / MODULES_FOLDER
    if not modules.is_dir():
        if module_id is not None:
            raise ValueError(f"{text!r} is not an algorithm checkpoint; drop #{module_id}")
        return root  # a module folder itself
    found = sorted(p.name for p in modules.iterdir() if p.is_dir())
    if module_id is not None:
        if module_id not in found:
            raise ValueError(f"no module {module_id!r} in {text!r}; it has {found}")
        return modules / module_id
    for preferred in PREFERRED_MODULES:
        if preferred in found:
            return modules / preferred
    if len(found) == 1:
        return modules / found[0]
    raise ValueError(f"the checkpoint {text!r} holds modules {found}; pick one with rllib:PATH#MODULE_ID")


def load_rl_module(path: str | Path) -> Any:
    """The RLModule at ``path`` (see ``resolve_module_path``), on the CPU, in eval mode."""
    try:
        rl_module = importlib.import_module("ray.rllib.core.rl_module.rl_module")
    except ImportError as error:
        raise missing_extra("distributed", "rllib agents", str(error)) from error
    module = rl_module.RLModule.from_checkpoint(str(resolve_module_path(path)))
    if hasattr(module, "eval"):
        module.eval()
    return module


class RLlibAgent(Agent):
    """Acts greedily with a saved RLlib RLModule: its most likely legal action.

    The module sees ``{"observations": obs, "action_mask": mask}`` (RLlib's action-masking
    module); the mask is applied again here, so an illegal action is never chosen.
    """

    name = "rllib"

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.module = load_rl_module(path)
        space = getattr(self.module, "observation_space", None)
        inner = space["observations"] if space is not None and hasattr(space, "spaces") else space
        self._shape: tuple[int, ...] | None = tuple(inner.shape) if inner is not None else None
        action_space = getattr(self.module, "action_space", None)
        self._actions: int | None = int(action_space.n) if action_space is not None else None

    def check_spaces(self, observation_space: Any, action_space: Any) -> None:
        if hasattr(observation_space, "spaces") and "observation" in observation_space.spaces:
            observation_space = observation_space["observation"]  # a seat of our AEC envs
        shape = tuple(getattr(observation_space, "shape", ()) or ())
        actions = int(getattr(action_space, "n", -1))
        if (self._shape is not None and shape != self._shape) or (
            self._actions is not None and actions != self._actions
        ):
            raise ValueError(
                f"the module at {self.path!r} was trained on observations of shape {self._shape} "
                f"and {self._actions} actions; this env has {shape} and {actions}"
            )

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        import torch

        mask = np.asarray(action_mask, dtype=np.float32)
        if not mask.any():
            raise ValueError("no legal action in the mask")
        batch = {
            "obs": {
                "observations": torch.as_tensor(np.asarray(observation, dtype=np.float32)[None]),
                "action_mask": torch.as_tensor(mask[None]),
            }
        }
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        logits = np.asarray(out["action_dist_inputs"][0].detach().cpu().numpy(), dtype=np.float64)
        logits = np.where(mask > 0, logits, -np.inf)
        return int(np.argmax(logits))
