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

A file whose metadata has ``network`` holds another architecture instead of the two MLPs:
``network`` is a JSON object whose ``architecture`` names it and whose other keys are its sizes,
and the arrays are named by that architecture (``hidden_sizes`` and ``activation`` are then not
needed). The one known is ``"solitaire-relational"`` (``games.solitaire.network``: Empire
Solitaire's observation and actions only; ``imitate --backend jax --network relational`` writes
it), played with numpy like the MLP.

The agent masks the logits as training did (an illegal action gets ``MASKED_LOGIT``, as
sb3-contrib's MaskablePPO does) and plays the most likely legal action, so it is deterministic.
Playing needs numpy only: no jax, flax or torch.

What is checked, each failure a ``ValueError`` that names the file and what is wrong:

- at load (``load_policy``): the file is a readable, complete ``.npz`` archive (not a folder, an
  empty file, a text file, a truncated or corrupted archive, nor one holding Python objects,
  which is never unpickled); the metadata is a JSON object whose keys have the types above; every
  array is numeric and finite (a NaN or infinite weight is named); the actor's shapes fit the
  metadata. A file that records no ``env_id`` (an older one) loads with a warning: what it was
  trained on cannot be checked;
- against the env (``JaxPPOAgent.check_spaces``, ``check_env``, and ``act`` on the first state of
  a game config): the spaces' shapes, the game, and the game's rules. The rules are the config the
  file's ``env_id`` and ``env_kwargs`` build (``GameEntry`` of the registry), compared field by
  field with the config of the env asked to play, except the settings that change only the
  rewards (``REWARD_SETTINGS``: a policy trained on ``EmpireSolitaireShaped-v0`` plays
  ``EmpireSolitaire-v0``, which is how the shipped Solitaire policy is meant) and those that only
  cut a game short (``LENGTH_SETTINGS``, a warning) or only change the number of seats
  (``SEAT_SETTINGS``, a warning: the 4-seat Pillars policy plays the 3- and 6-seat games). Any
  other difference (``pretrained:EmpireSolo-v0`` on ``EmpireSoloMergeInBattle-v0``) refuses the
  policy. Where only the game reaches the agent
  (``make_agent(spec, game)``: a registry key or an env id), it is checked against the game of
  the file's ``env_id``; an ``env_id`` this package does not register is not checked (a warning
  says so).
"""

from __future__ import annotations

import dataclasses
import json
import warnings
import zipfile
import zlib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..core.agent import Agent
from ..core.policy_input import PolicyInput
from ..games.solitaire import network as relational

FORMAT = "empire_envs.jaxppo"
FORMAT_VERSION = 1
#: the logit an illegal action gets: far below any trained logit, yet finite, so a softmax over a
#: masked row has no NaN and an illegal action has probability 0 in float32
MASKED_LOGIT = -1e9
ACTIVATIONS = ("tanh", "relu")
#: the networks a policy file may hold besides the MLP, by ``metadata["network"]["architecture"]``
ARCHITECTURES = (relational.ARCHITECTURE,)
#: where the policies shipped with the package lie (``pretrained:<env id>``), one ``<EnvName>.npz`` each
PRETRAINED_FOLDER = "pretrained"
#: game config settings that change only the rewards: a policy trained with other values plays
#: the same game (trained on a ``...Shaped`` id, it plays the plain id)
REWARD_SETTINGS = frozenset({"shaping", "shaping_values", "shaping_cap", "reward_scheme"})
#: game config settings that only cut a game short: a policy plays with other values, with a warning
LENGTH_SETTINGS = frozenset({"length_limit"})
#: game config settings that only change how many seats play: the spaces are checked apart (a game
#: whose observation has a block for every possible seat keeps its shape), so a policy plays other
#: seat counts with a warning that it plays outside what it was trained on (``pretrained:Pillars-v0``
#: on ``Pillars3p-v0``)
SEAT_SETTINGS = frozenset({"num_players"})
#: keyword arguments of the env classes that are not game settings (``env_kwargs`` may hold them)
ENV_SETTINGS = frozenset({"render_mode", "illegal_action", "illegal_action_penalty"})

_REQUIRED_METADATA = ("observation_size", "num_actions", "hidden_sizes", "activation")
#: what a policy file starts with: a zip archive's local file header (or an empty archive's end record)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def layer_names(network: str, hidden_sizes: list[int] | tuple[int, ...]) -> list[str]:
    """The array-name prefixes of one network's layers, input side first: ``actor/0`` ... ``actor/<k>``."""
    return [f"{network}/{index}" for index in range(len(hidden_sizes) + 1)]


def save_policy(path: str | Path, arrays: Mapping[str, np.ndarray], metadata: Mapping[str, Any]) -> Path:
    """Write a policy file: ``arrays`` named as in the module docstring, ``metadata`` as JSON.

    Checks that the metadata and the arrays describe the same network, and the metadata as it
    will be read back, before writing, so a file that ``load_policy`` would refuse is never written."""
    path = Path(path)
    record = json.loads(json.dumps({"format": FORMAT, "format_version": FORMAT_VERSION, **metadata}))
    policy = NumpyPolicy({name: np.asarray(value, dtype=np.float32) for name, value in arrays.items()}, record)
    path.parent.mkdir(parents=True, exist_ok=True)
    # np.savez appends ".npz" to a name without it; write through a handle so the name stays as given
    with path.open("wb") as handle:
        entries: dict[str, Any] = {"metadata": np.array(json.dumps(record, sort_keys=True)), **policy.arrays}
        np.savez(handle, **entries)
    return path


def load_policy(path: str | Path) -> NumpyPolicy:
    """Read a policy file (module docstring); a ``ValueError`` naming the file for anything that
    is not a complete, finite policy of this format."""
    path = Path(path)
    arrays = _read_archive(path)
    metadata = _read_metadata(path, arrays.pop("metadata", None))
    try:
        policy = NumpyPolicy(arrays, metadata)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    if "env_id" not in metadata:
        warnings.warn(
            f"the policy file {path} records no env id (an older file): which env and variant it was trained "
            "on cannot be checked; it is played on any env whose spaces fit",
            UserWarning,
            stacklevel=2,
        )
    return policy


def _read_archive(path: Path) -> dict[str, Any]:
    """Every entry of the ``.npz`` at ``path``, with clear errors for what is not one."""
    if path.is_dir():
        inside = path / "policy.npz"
        hint = f": did you mean {inside}?" if inside.is_file() else " (a jax PPO run writes RUN/policy.npz)"
        raise ValueError(f"{path} is a folder, not a policy file{hint}")
    if not path.is_file():
        raise ValueError(f"no policy file at {str(path)!r} (a jax PPO run writes RUN/policy.npz)")
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
    except OSError as error:
        raise ValueError(f"cannot read the policy file {path}: {error.strerror or error}") from None
    if not head:
        raise ValueError(f"{path} is empty: not a policy file (a .npz archive written by a jax PPO run)")
    if head not in _ZIP_MAGIC:
        raise ValueError(
            f"{path} is not a policy file: a policy file is a .npz (zip) archive, and this file starts with {head!r}"
        )
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except ValueError as error:
        if "pickle" in str(error):  # an array of Python objects: never unpickled, that could run code
            raise ValueError(
                f"{path} holds an array of Python objects, which a policy file never does; it is not loaded"
            ) from None
        raise _corrupted(path, error) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError, NotImplementedError) as error:
        raise _corrupted(path, error) from None


def _corrupted(path: Path, error: BaseException) -> ValueError:
    return ValueError(f"{path} is a truncated or corrupted policy file (.npz): {type(error).__name__}: {error}")


def _read_metadata(path: Path, entry: Any) -> dict[str, Any]:
    """The JSON object of the ``metadata`` entry, its format checked."""
    if entry is None:
        raise ValueError(f"{path} has no metadata entry: not a {FORMAT} policy file")
    if not isinstance(entry, np.ndarray) or entry.shape != () or entry.dtype.kind not in "US":
        described = f"{entry.dtype} array of shape {entry.shape}" if isinstance(entry, np.ndarray) else "raw bytes"
        raise ValueError(f"{path}: the metadata entry must be one string holding a JSON object, got a {described}")
    text = entry.item()
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    try:
        metadata = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: the metadata is not JSON ({error}): {_shorten(text)}") from None
    if not isinstance(metadata, dict):
        raise ValueError(
            f"{path}: the metadata must be a JSON object, got a {type(metadata).__name__}: {_shorten(metadata)}"
        )
    if metadata.get("format") != FORMAT:
        raise ValueError(f"{path} is a {metadata.get('format')!r} file, not a {FORMAT} policy")
    version = metadata.get("format_version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise ValueError(f"{path} has format_version {version!r}; this package reads {FORMAT_VERSION}")
    return metadata


def _shorten(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"the metadata's {name} must be a positive integer, got {value!r}")
    return value


def check_metadata(metadata: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` naming the key when the metadata lacks a key the agent needs or holds
    one of the wrong type (module docstring)."""
    network = metadata.get("network")
    required = _REQUIRED_METADATA if network is None else _REQUIRED_METADATA[:2]
    missing = [key for key in required if key not in metadata]
    if missing:
        raise ValueError(f"the policy metadata lacks {missing}")
    _positive_int("observation_size", metadata["observation_size"])
    _positive_int("num_actions", metadata["num_actions"])
    if network is not None:
        _check_network(network, metadata)
    else:
        _check_mlp(metadata)
    if "env_id" in metadata and (not isinstance(metadata["env_id"], str) or not metadata["env_id"]):
        raise ValueError(f"the metadata's env_id must be an env id (a string), got {metadata['env_id']!r}")
    if not isinstance(metadata.get("env_kwargs", {}), dict):
        raise ValueError(f"the metadata's env_kwargs must be a JSON object, got {metadata['env_kwargs']!r}")


def _check_network(network: Any, metadata: Mapping[str, Any]) -> None:
    """The ``network`` record of an architecture other than the MLP (module docstring)."""
    if not isinstance(network, dict) or network.get("architecture") not in ARCHITECTURES:
        described = network.get("architecture") if isinstance(network, dict) else network
        raise ValueError(
            f"unknown network {_shorten(described)} in the metadata; known: {sorted(ARCHITECTURES)} (or no "
            "'network' key: the MLP)"
        )
    relational.sizes_of(network)
    expected = relational.SIZES_OF_SPACES
    found = (metadata["observation_size"], metadata["num_actions"])
    if found != expected:
        raise ValueError(
            f"the {relational.ARCHITECTURE} network reads Empire Solitaire's {expected[0]} observation entries "
            f"and gives its {expected[1]} actions; the metadata says {found[0]} and {found[1]}"
        )
    if metadata.get("mask_in_observation", False):
        raise ValueError(f"the {relational.ARCHITECTURE} network does not read the mask (mask_in_observation)")


def _check_mlp(metadata: Mapping[str, Any]) -> None:
    hidden = metadata["hidden_sizes"]
    if not isinstance(hidden, (list, tuple)):
        raise ValueError(f"the metadata's hidden_sizes must be a list of layer widths, got {hidden!r}")
    for width in hidden:
        _positive_int("hidden_sizes entries", width)
    if not isinstance(metadata["activation"], str) or metadata["activation"] not in ACTIVATIONS:
        raise ValueError(f"unknown activation {metadata['activation']!r} in the metadata; known: {ACTIVATIONS}")
    if not isinstance(metadata.get("mask_in_observation", False), bool):
        raise ValueError(
            f"the metadata's mask_in_observation must be true or false, got {metadata['mask_in_observation']!r}"
        )


class NumpyPolicy:
    """The actor network of a policy file, evaluated with numpy (``logits``, ``masked_logits``)."""

    def __init__(self, arrays: Mapping[str, np.ndarray], metadata: Mapping[str, Any]) -> None:
        check_metadata(metadata)
        for name, array in arrays.items():
            if not isinstance(array, np.ndarray) or array.dtype.kind not in "fiu":
                kind = f"{array.dtype} array" if isinstance(array, np.ndarray) else type(array).__name__
                raise ValueError(f"the array {name!r} must hold numbers, got a {kind}")
            if not np.all(np.isfinite(array)):
                bad = int(np.size(array) - np.count_nonzero(np.isfinite(array)))
                raise ValueError(
                    f"the array {name!r} is not finite: NaN or infinite values in {bad} of its {array.size} places"
                )
        self.metadata = dict(metadata)
        self.arrays = dict(arrays)
        self.observation_size = int(metadata["observation_size"])
        self.num_actions = int(metadata["num_actions"])
        self.policy_input = PolicyInput(mask=bool(metadata.get("mask_in_observation", False)))
        self.input_size = self.policy_input.width(self.observation_size, self.num_actions)
        #: the architecture's name when it is not the MLP (module docstring), else None
        self.architecture: str | None = None
        self.hidden_sizes: list[int] = []
        self.activation = "relu"
        self.layers: list[tuple[np.ndarray, np.ndarray]] = []
        if "network" in metadata:
            self.architecture = str(metadata["network"]["architecture"])
            relational.check_arrays(self.arrays, relational.sizes_of(metadata["network"]))
            self.arrays = {name: np.asarray(array, dtype=np.float32) for name, array in self.arrays.items()}
            return
        self.hidden_sizes = [int(width) for width in metadata["hidden_sizes"]]
        self.activation = str(metadata["activation"])
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
        if self.architecture is not None:
            batch = x[None] if x.ndim == 1 else x
            logits, _ = relational.forward(self.arrays, batch, np)
            return logits[0] if x.ndim == 1 else logits
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


@dataclasses.dataclass(frozen=True)
class TrainedOn:
    """What a policy file says it was trained on: the registry's game and the game config that
    the file's ``env_id`` and ``env_kwargs`` build."""

    env_id: str
    env_kwargs: Mapping[str, Any]
    game_key: str
    game_name: str
    config: Any

    def describe(self) -> str:
        extra = f" with env_kwargs {dict(self.env_kwargs)}" if self.env_kwargs else ""
        return f"{self.env_id}{extra}"


def trained_on(path: str | Path, metadata: Mapping[str, Any]) -> TrainedOn | None:
    """The game and config a policy was trained on, from its metadata; None when the file records
    no env id or one this package does not register (nothing to check against)."""
    from ..registry import NAMESPACE, all_entries, game_entry

    env_id = metadata.get("env_id")
    if not isinstance(env_id, str):
        return None
    names = {env_id, f"{NAMESPACE}/{env_id}"}
    item = next((candidate for candidate in all_entries() if candidate.env_id in names), None)
    if item is None:
        return None
    game = game_entry(item.game).load()
    env_kwargs = dict(metadata.get("env_kwargs") or {})
    settings = {key: value for key, value in {**item.kwargs, **env_kwargs}.items() if key not in ENV_SETTINGS}
    try:
        config = game.config_class(**settings)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"the policy file {path} records env_kwargs {env_kwargs} that {item.env_id} refuses: {error}"
        ) from None
    return TrainedOn(item.env_id, env_kwargs, item.game, game.name, config)


def config_differences(trained: Any, playing: Any) -> dict[str, tuple[Any, Any]]:
    """The settings of two configs of one game that differ, name -> (trained, playing) (the whole
    config under ``"config"`` for a game whose config is not a dataclass)."""
    if not dataclasses.is_dataclass(trained):
        return {} if trained == playing else {"config": (trained, playing)}
    return {
        field.name: (getattr(trained, field.name), getattr(playing, field.name))
        for field in dataclasses.fields(trained)
        if getattr(trained, field.name) != getattr(playing, field.name)
    }


def describe_config(config: Any) -> str:
    """A registered id whose config is ``config`` (``empire_envs/EmpireSoloMergeInBattle-v0``),
    else the game's name with the settings that differ from its defaults."""
    from ..registry import NAMESPACE, all_games

    for game in all_games():
        record = game.load()
        if type(config) is not record.config_class:
            continue
        for variant in game.variants:
            try:
                if record.config_class(**variant.kwargs) == config:
                    return f"{NAMESPACE}/{variant.name}"
            except (TypeError, ValueError):
                continue
        changed = config_differences(record.config_class(), config)
        settings = ", ".join(f"{name}={value!r}" for name, (_, value) in changed.items())
        return f"{record.name} with {settings}" if settings else record.name
    return f"an env whose config is a {type(config).__name__}"


class JaxPPOAgent(Agent):
    """Plays a policy file (module docstring): the most likely legal action, with numpy.

    ``game`` is the game the agent is made for, its registry key or an env id (``make_agent``
    passes it); the file's ``env_id`` must be of that game. The env's rules are checked by ``check_env`` and, as
    ``check_spaces`` sees only shapes, by ``act`` on the first state of each game config."""

    name = "jaxppo"

    def __init__(self, path: str | Path, game: str | None = None) -> None:
        self.path = str(path)
        self.policy = load_policy(path)
        self.metadata = self.policy.metadata
        self.game = game
        self.trained_on = trained_on(self.path, self.metadata)
        self._checked_config: Any = None
        self._warned_foreign = False

    def _where(self) -> str:
        trained = self.trained_on.describe() if self.trained_on else self.metadata.get("env_id", "an unrecorded env")
        return f"the policy {self.path} was trained on {trained}"

    def check_spaces(self, observation_space: Any, action_space: Any) -> None:
        shape = tuple(getattr(observation_space, "shape", ()) or ())
        actions = int(getattr(action_space, "n", -1))
        if shape != (self.policy.observation_size,) or actions != self.policy.num_actions:
            raise ValueError(
                f"the policy at {self.path!r} was trained on {self.metadata.get('env_id', 'an unrecorded env')} "
                f"(observations of shape ({self.policy.observation_size},), {self.policy.num_actions} actions); "
                f"this env has observations of shape {shape} and {actions} actions"
            )
        self._check_game()

    def _check_game(self) -> None:
        """The game named to ``make_agent`` against the game of the file's env id (all that
        reaches the agent there; the rules are checked where the env's config reaches it)."""
        trained = self.trained_on
        if self.game is None or trained is None:
            return
        from ..registry import find_game

        asked = find_game(self.game)
        if asked is not None and asked.key != trained.game_key:
            raise ValueError(f"{self._where()}, a game of {trained.game_name}; it cannot play {asked.load().name}")
        # None: an env of another package (named by its id): only its spaces could be checked

    def check_env(self, env: Any) -> None:
        """Raise ``ValueError`` unless this policy may play ``env``: its spaces, its game and its
        rules (``env.unwrapped.config`` against the file's env id and env kwargs, reward-only
        settings aside; a different ``length_limit`` or number of seats warns)."""
        super().check_env(env)
        self._check_config(getattr(getattr(env, "unwrapped", env), "config", None))

    def _check_config(self, config: Any) -> None:
        if config is None or config is self._checked_config:
            return
        trained = self.trained_on
        if trained is None:
            env_id_recorded = self.metadata.get("env_id")
            if env_id_recorded is not None and not self._warned_foreign:
                self._warned_foreign = True
                warnings.warn(
                    f"the policy file {self.path} records the env id {env_id_recorded!r}, which this package "
                    "does not register: the rules of the env it plays cannot be checked against it",
                    UserWarning,
                    stacklevel=3,
                )
            self._checked_config = config
            return
        asked = describe_config(config)
        if type(config) is not type(trained.config):
            raise ValueError(f"{self._where()}, a game of {trained.game_name}; it cannot play {asked}")
        changed = config_differences(trained.config, config)
        rules = {
            name: pair
            for name, pair in changed.items()
            if name not in REWARD_SETTINGS | LENGTH_SETTINGS | SEAT_SETTINGS
        }
        if rules:
            listed = "; ".join(
                f"{name}: trained with {old!r}, this env has {new!r}" for name, (old, new) in rules.items()
            )
            raise ValueError(
                f"{self._where()} and cannot play {asked}: the rules differ ({listed}). Play it on the env it "
                "was trained on, or train a policy for this variant"
            )
        lengths = {name: pair for name, pair in changed.items() if name in LENGTH_SETTINGS}
        if lengths:
            listed = "; ".join(
                f"{name}: trained with {old!r}, this env has {new!r}" for name, (old, new) in lengths.items()
            )
            warnings.warn(
                f"{self._where()} and plays {asked}, whose games are cut short differently ({listed})",
                UserWarning,
                stacklevel=3,
            )
        seats = {name: pair for name, pair in changed.items() if name in SEAT_SETTINGS}
        if seats:
            (old, new), *_ = seats.values()
            warnings.warn(
                f"{self._where()} and plays {asked}: it was trained with {old!r} seats, this env has {new!r}, "
                "so it plays outside what it was trained on",
                UserWarning,
                stacklevel=3,
            )
        self._checked_config = config

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
        config = getattr(state, "config", None)
        if config is not None and config is not self._checked_config:
            self._check_config(config)
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


def pretrained_agent(env_id: str, game: str | None = None) -> JaxPPOAgent:
    """The policy shipped with the package for ``env_id`` (``EmpireSolo-v0`` or
    ``empire_envs/EmpireSolo-v0``): ``empire_envs/pretrained/<EnvName>.npz``. ``game`` as for
    ``JaxPPOAgent``."""
    name = env_id.rsplit("/", 1)[-1]
    resource = pretrained_folder().joinpath(f"{name}.npz")
    if not resource.is_file():
        shipped = ", ".join(pretrained_names()) or "none yet"
        raise ValueError(
            f"no pretrained policy for {name!r} in this package (shipped: {shipped}); train one with "
            f"python -m empire_envs train --backend jax --env {name} and play it as jaxppo:RUN/policy.npz"
        )
    with resources.as_file(resource) as path:
        return JaxPPOAgent(path, game=game)
