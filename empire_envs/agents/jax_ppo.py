"""A policy trained by the compiled PPO trainer, played with numpy: ``make_agent("jaxppo:runs/x/policy.npz", ...)``
and the policies shipped with the package, ``make_agent("pretrained:EmpireSolo-v0", ...)``.

The policy file format (``policy.npz``, written by ``empire_envs.training.jax_ppo`` through
``save_policy``) is a numpy ``.npz`` archive that ``np.load(path, allow_pickle=False)`` reads:

- ``metadata``: a 0-d string array holding a JSON object: ``format`` (``"empire_envs.jaxppo"``),
  ``format_version`` (1), ``env_id``, ``env_kwargs``, ``observation_size``, ``num_actions``,
  ``hidden_sizes`` (the widths of the hidden layers), ``activation`` (``"tanh"`` or ``"relu"``),
  ``mask_in_observation`` (optional, false when absent: the network's input is the observation
  followed by the legal-action mask as 0/1 floats, ``core.policy_input.PolicyInput``),
  ``timesteps`` (training steps), ``seed``, and free-form extras (the trainer adds its config);
- ``actor/<i>/kernel`` (float32, ``[inputs, outputs]``) and ``actor/<i>/bias`` for ``i`` in
  ``0 .. len(hidden_sizes)``: the policy network, whose first kernel has one row per input.
  Layer ``i < len(hidden_sizes)`` is ``x = activation(x @ kernel + bias)``; the last layer is
  linear and gives one logit per action;
- ``critic/<i>/kernel`` and ``critic/<i>/bias``: the value network, the same shape with one
  output (kept so a run can be inspected or continued; playing does not use it).

The agent masks the logits as training did (an illegal action gets ``MASKED_LOGIT``, as
sb3-contrib's MaskablePPO does) and plays the most likely legal action, so it is deterministic.
Playing needs numpy only: no jax, flax or torch.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..core.agent import Agent
from ..core.policy_input import PolicyInput

FORMAT = "empire_envs.jaxppo"
FORMAT_VERSION = 1
#: the logit an illegal action gets: far below any trained logit, yet finite, so a softmax over a
#: masked row has no NaN and an illegal action has probability 0 in float32
MASKED_LOGIT = -1e9
ACTIVATIONS = ("tanh", "relu")
#: where the policies shipped with the package lie (``pretrained:<env id>``), one ``<EnvName>.npz`` each
PRETRAINED_FOLDER = "pretrained"

_REQUIRED_METADATA = ("env_id", "observation_size", "num_actions", "hidden_sizes", "activation")


def layer_names(network: str, hidden_sizes: list[int] | tuple[int, ...]) -> list[str]:
    """The array-name prefixes of one network's layers, input side first: ``actor/0`` ... ``actor/<k>``."""
    return [f"{network}/{index}" for index in range(len(hidden_sizes) + 1)]


def save_policy(path: str | Path, arrays: Mapping[str, np.ndarray], metadata: Mapping[str, Any]) -> Path:
    """Write a policy file: ``arrays`` named as in the module docstring, ``metadata`` as JSON.

    Checks that the metadata and the arrays describe the same network before writing, so a file
    that ``load_policy`` would refuse is never written."""
    path = Path(path)
    record = {"format": FORMAT, "format_version": FORMAT_VERSION, **metadata}
    policy = NumpyPolicy({name: np.asarray(value, dtype=np.float32) for name, value in arrays.items()}, record)
    path.parent.mkdir(parents=True, exist_ok=True)
    # np.savez appends ".npz" to a name without it; write through a handle so the name stays as given
    with path.open("wb") as handle:
        entries: dict[str, Any] = {"metadata": np.array(json.dumps(record, sort_keys=True)), **policy.arrays}
        np.savez(handle, **entries)
    return path


def load_policy(path: str | Path) -> NumpyPolicy:
    """Read a policy file (module docstring), with clear errors for a missing or foreign file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no policy file at {str(path)!r} (a jax PPO run writes RUN/policy.npz)")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError) as error:
        raise ValueError(f"{path} is not a policy file (.npz): {error}") from None
    if "metadata" not in arrays:
        raise ValueError(f"{path} has no metadata entry: not a {FORMAT} policy file")
    metadata = json.loads(str(arrays.pop("metadata")))
    if metadata.get("format") != FORMAT:
        raise ValueError(f"{path} is a {metadata.get('format')!r} file, not a {FORMAT} policy")
    if metadata.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{path} has format version {metadata.get('format_version')}; this package reads {FORMAT_VERSION}"
        )
    try:
        return NumpyPolicy(arrays, metadata)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


class NumpyPolicy:
    """The actor network of a policy file, evaluated with numpy (``logits``, ``masked_logits``)."""

    def __init__(self, arrays: Mapping[str, np.ndarray], metadata: Mapping[str, Any]) -> None:
        missing = [key for key in _REQUIRED_METADATA if key not in metadata]
        if missing:
            raise ValueError(f"the policy metadata lacks {missing}")
        if metadata["activation"] not in ACTIVATIONS:
            raise ValueError(f"unknown activation {metadata['activation']!r}; known: {ACTIVATIONS}")
        self.metadata = dict(metadata)
        self.arrays = dict(arrays)
        self.hidden_sizes = [int(width) for width in metadata["hidden_sizes"]]
        self.observation_size = int(metadata["observation_size"])
        self.num_actions = int(metadata["num_actions"])
        self.activation = str(metadata["activation"])
        self.policy_input = PolicyInput(mask=bool(metadata.get("mask_in_observation", False)))
        self.input_size = self.policy_input.width(self.observation_size, self.num_actions)
        self.layers = [self._layer(prefix) for prefix in layer_names("actor", self.hidden_sizes)]
        widths = [self.input_size, *self.hidden_sizes, self.num_actions]
        for index, (kernel, bias) in enumerate(self.layers):
            if kernel.shape != (widths[index], widths[index + 1]) or bias.shape != (widths[index + 1],):
                raise ValueError(
                    f"actor layer {index} has shapes {kernel.shape} and {bias.shape}; the metadata "
                    f"({self.input_size} inputs, hidden {self.hidden_sizes}, {self.num_actions} "
                    f"actions) needs {(widths[index], widths[index + 1])} and {(widths[index + 1],)}"
                )

    def _layer(self, prefix: str) -> tuple[np.ndarray, np.ndarray]:
        try:
            kernel, bias = self.arrays[f"{prefix}/kernel"], self.arrays[f"{prefix}/bias"]
        except KeyError as error:
            raise ValueError(f"the policy lacks the array {error.args[0]!r}") from None
        return np.asarray(kernel, dtype=np.float32), np.asarray(bias, dtype=np.float32)

    def network_input(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """What the network sees of one observation ``[obs]`` or a batch ``[batch, obs]``: the
        observation, then the mask when the policy was trained with ``mask_in_observation``."""
        observations = np.asarray(observations, dtype=np.float32)
        if not self.policy_input.mask:
            return observations
        return np.concatenate([observations, np.asarray(masks, dtype=np.float32)], axis=-1)

    def logits(self, network_inputs: np.ndarray) -> np.ndarray:
        """The actor's logits of one network input ``[input_size]`` or a batch (float32)."""
        x = np.asarray(network_inputs, dtype=np.float32)
        for index, (kernel, bias) in enumerate(self.layers):
            x = x @ kernel + bias
            if index < len(self.hidden_sizes):
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        return x

    def masked_logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The logits with every illegal action set to ``MASKED_LOGIT``."""
        logits = self.logits(self.network_input(observations, masks))
        return np.where(np.asarray(masks) > 0, logits, np.float32(MASKED_LOGIT))

    def greedy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The most likely legal action of each observation (the argmax of the masked logits)."""
        return np.argmax(self.masked_logits(observations, masks), axis=-1)


class JaxPPOAgent(Agent):
    """Plays a policy file (module docstring): the most likely legal action, with numpy."""

    name = "jaxppo"

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.policy = load_policy(path)
        self.metadata = self.policy.metadata

    def check_spaces(self, observation_space: Any, action_space: Any) -> None:
        shape = tuple(getattr(observation_space, "shape", ()) or ())
        actions = int(getattr(action_space, "n", -1))
        if shape != (self.policy.observation_size,) or actions != self.policy.num_actions:
            raise ValueError(
                f"the policy at {self.path!r} was trained on {self.metadata['env_id']} "
                f"(observations of shape ({self.policy.observation_size},), {self.policy.num_actions} actions); "
                f"this env has observations of shape {shape} and {actions} actions"
            )

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if np.shape(action_mask) != (self.policy.num_actions,):
            raise ValueError(
                f"the policy at {self.path!r} has {self.policy.num_actions} actions; "
                f"the mask has {np.shape(action_mask)}"
            )
        if np.shape(observation) != (self.policy.observation_size,):
            raise ValueError(
                f"the policy at {self.path!r} takes observations of shape ({self.policy.observation_size},); "
                f"this env gives {np.shape(observation)}"
            )
        if not np.any(action_mask):
            raise ValueError("no legal action in the mask")
        return int(self.policy.greedy(observation, action_mask))


def pretrained_folder() -> Any:
    """The package's folder of shipped policies (an ``importlib.resources`` traversable)."""
    return resources.files("empire_envs").joinpath(PRETRAINED_FOLDER)


def pretrained_names() -> list[str]:
    """The env names that have a policy shipped with the package (``pretrained:<name>``)."""
    folder = pretrained_folder()
    if not folder.is_dir():
        return []
    return sorted(item.name[: -len(".npz")] for item in folder.iterdir() if item.name.endswith(".npz"))


def pretrained_agent(env_id: str) -> JaxPPOAgent:
    """The policy shipped with the package for ``env_id`` (``EmpireSolo-v0`` or
    ``empire_envs/EmpireSolo-v0``): ``empire_envs/pretrained/<EnvName>.npz``."""
    name = env_id.rsplit("/", 1)[-1]
    resource = pretrained_folder().joinpath(f"{name}.npz")
    if not resource.is_file():
        shipped = ", ".join(pretrained_names()) or "none yet"
        raise ValueError(
            f"no pretrained policy for {name!r} in this package (shipped: {shipped}); train one with "
            f"python -m empire_envs train --backend jax --env {name} and play it as jaxppo:RUN/policy.npz"
        )
    with resources.as_file(resource) as path:
        return JaxPPOAgent(path)
