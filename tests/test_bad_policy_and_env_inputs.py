"""Bad policy files and env edges end in clear errors, never a raw traceback (issue 24, items 4 and 7).

Policy files (``jaxppo:PATH``, ``pretrained:ENV_ID``, ``ppo:PATH``): a truncated or corrupted
archive, a text file named ``.npz``, an empty file, a folder, metadata that is not a JSON object or
holds a key of the wrong type, NaN or infinite weights, and a policy asked to play a variant with
other rules than the one it was trained on are each refused with a ``ValueError`` that names the
file and what is wrong. A policy trained on a reward-shaped id plays its plain id (the shipped
Solitaire policy does), and the shipped policies still play their ids.

Env edges: the multiplayer envs, raw and wrapped, raise ``ResetNeeded`` for every attribute and
call that needs a game before the first ``reset`` (``last()``, ``agent_selection``, ...), while
``possible_agents``, the spaces and the metadata keep working; an out-of-space action through the
``env()`` factory is a clear ``ValueError`` naming the action, the agent and the space; a bad
``opening_hand`` is quoted whole.
"""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import empire_envs
from empire_envs import envs
from empire_envs.agents import jax_ppo as policy_files
from empire_envs.agents.base import make_agent
from empire_envs.cli import main as cli_main
from empire_envs.core.errors import ResetNeeded
from empire_envs.evaluation.evaluate import USAGE_ERRORS, evaluate_agent
from empire_envs.registry import ENTRIES

SOLO = "empire_envs/EmpireSolo-v0"
SHIPPED_SOLO = Path(policy_files.__file__).resolve().parents[1] / "pretrained" / "EmpireSolo-v0.npz"
PZ_ENTRIES = [entry for entry in ENTRIES if entry.api == "pettingzoo"]
pz_entries = pytest.mark.parametrize("entry", PZ_ENTRIES, ids=[e.env_id.split("/")[1] for e in PZ_ENTRIES])


# --------------------------------------------------------------------------- building policy files


def random_policy_file(
    path: Path,
    env_id: str = SOLO,
    env_kwargs: Any = None,
    observation_size: int = 207,
    num_actions: int = 68,
    **metadata: Any,
) -> Path:
    """A small valid policy with random weights, by default for Empire solo (207 observations, 68
    actions)."""
    rng = np.random.default_rng(0)
    hidden = (8,)
    arrays = {}
    for network, outputs in (("actor", num_actions), ("critic", 1)):
        sizes = [observation_size, *hidden, outputs]
        for index, prefix in enumerate(policy_files.layer_names(network, hidden)):
            arrays[f"{prefix}/kernel"] = rng.normal(size=(sizes[index], sizes[index + 1])).astype(np.float32)
            arrays[f"{prefix}/bias"] = rng.normal(size=sizes[index + 1]).astype(np.float32)
    record = {
        "env_id": env_id,
        "env_kwargs": {} if env_kwargs is None else env_kwargs,
        "observation_size": observation_size,
        "num_actions": num_actions,
        "hidden_sizes": list(hidden),
        "activation": "tanh",
        "timesteps": 0,
        "seed": 0,
        **metadata,
    }
    return policy_files.save_policy(path, arrays, record)


def entries_of(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


def rewritten(path: Path, source: Path, **changes: Any) -> Path:
    """``source``'s arrays with some replaced (None removes one), written to ``path`` with np.savez."""
    entries = entries_of(source)
    for name, value in changes.items():
        name = name.replace("__", "/")
        if value is None:
            entries.pop(name)
        else:
            entries[name] = value
    with path.open("wb") as handle:
        np.savez(handle, **entries)
    return path


def with_metadata(path: Path, source: Path, **changes: Any) -> Path:
    """``source`` with some metadata keys changed (None removes one)."""
    metadata = json.loads(str(entries_of(source)["metadata"]))
    for key, value in changes.items():
        if value is None:
            metadata.pop(key, None)
        else:
            metadata[key] = value
    return rewritten(path, source, metadata=np.array(json.dumps(metadata)))


def refused(path: Path, *patterns: str) -> str:
    """Load ``path``; it must raise a ValueError naming the file and matching every pattern."""
    with pytest.raises(ValueError) as error:
        policy_files.load_policy(path)
    message = str(error.value)
    assert str(path) in message, f"the message does not name the file: {message}"
    for pattern in patterns:
        assert pattern in message, f"{pattern!r} not in {message!r}"
    assert "allow_pickle" not in message and "Traceback" not in message
    return message


@pytest.fixture
def good(tmp_path: Path) -> Path:
    return random_policy_file(tmp_path / "good.npz")


# --------------------------------------------------------------------------- broken files


def test_a_truncated_policy_file_is_refused_by_name(tmp_path):
    """``head -c 20000 policy.npz > t.npz`` gave zipfile's BadZipFile."""
    truncated = tmp_path / "t.npz"
    truncated.write_bytes(SHIPPED_SOLO.read_bytes()[:20000])
    refused(truncated, "truncated or corrupted")


def test_a_policy_file_with_a_corrupted_member_is_refused_by_name(tmp_path, good):
    data = bytearray(good.read_bytes())
    start = data.find(b"actor/0/kernel.npy")
    assert start > 0
    # damage the bytes of the first kernel (the zip's CRC no longer matches)
    for offset in range(start + 200, start + 400):
        data[offset] ^= 0xFF
    broken = tmp_path / "broken.npz"
    broken.write_bytes(bytes(data))
    refused(broken, "truncated or corrupted")


def test_a_text_file_named_npz_is_refused_without_suggesting_allow_pickle(tmp_path):
    text = tmp_path / "text.npz"
    text.write_text("this is not an archive\n")
    refused(text, "not a policy file")


def test_an_empty_file_is_refused_by_name(tmp_path):
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    refused(empty, "empty")


def test_a_folder_and_a_missing_file_are_refused_by_name(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    random_policy_file(folder / "policy.npz")
    message = refused(folder, "folder")
    assert str(folder / "policy.npz") in message  # the file the user probably meant
    refused(tmp_path / "missing.npz", "no policy file")


def test_metadata_that_is_a_json_list_is_refused(tmp_path, good):
    """It gave ``AttributeError: 'list' object has no attribute 'get'``."""
    listed = rewritten(tmp_path / "list.npz", good, metadata=np.array(json.dumps([1, 2])))
    refused(listed, "JSON object", "list")


def test_metadata_that_is_not_json_or_not_text_is_refused(tmp_path, good):
    refused(rewritten(tmp_path / "prose.npz", good, metadata=np.array("not json {")), "not JSON")
    refused(rewritten(tmp_path / "numbers.npz", good, metadata=np.arange(3)), "metadata")


@pytest.mark.parametrize(
    "key, value",
    [
        ("hidden_sizes", "8"),
        ("hidden_sizes", [8.5]),
        ("hidden_sizes", [0]),
        ("observation_size", "207"),
        ("observation_size", True),
        ("num_actions", [68]),
        ("activation", 3),
        ("env_id", 7),
        ("env_kwargs", [1, 2]),
        ("mask_in_observation", "yes"),
        ("format_version", "1"),
    ],
)
def test_metadata_keys_of_the_wrong_type_are_refused_by_name(tmp_path, good, key, value):
    refused(with_metadata(tmp_path / "bad.npz", good, **{key: value}), key)


@pytest.mark.parametrize("key", ["observation_size", "num_actions", "hidden_sizes", "activation"])
def test_missing_metadata_keys_are_refused_by_name(tmp_path, good, key):
    refused(with_metadata(tmp_path / "short.npz", good, **{key: None}), key)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("array", ["actor/1/kernel", "critic/0/bias"])
def test_weights_that_are_not_finite_are_refused_by_array_name(tmp_path, good, bad, array):
    """NaN weights used to load and play (every logit NaN: always action 0)."""
    values = entries_of(good)[array].copy()
    values.flat[0] = bad
    refused(rewritten(tmp_path / "nan.npz", good, **{array.replace("/", "__"): values}), array, "not finite")


def test_weights_that_are_not_numbers_are_refused_by_array_name(tmp_path, good):
    kernel = np.full((8, 68), "x")
    refused(rewritten(tmp_path / "text-weights.npz", good, actor__1__kernel=kernel), "actor/1/kernel")


def test_the_command_line_ends_a_bad_policy_in_one_error_line(tmp_path, capsys):
    truncated = tmp_path / "t.npz"
    truncated.write_bytes(SHIPPED_SOLO.read_bytes()[:20000])
    for bad in (truncated, tmp_path / "missing.npz", tmp_path):
        code = cli_main(["evaluate", "--env", "EmpireSolo-v0", "--agent", f"jaxppo:{bad}", "--episodes", "1"])
        err = capsys.readouterr().err
        assert code == 2, err
        assert err.startswith("empire_envs evaluate: error: ") and err.count("\n") == 1, err
        assert str(bad) in err


# --------------------------------------------------------------------------- the env a policy plays


def test_a_policy_refuses_a_variant_with_other_rules():
    """``pretrained:EmpireSolo-v0`` used to play EmpireSoloMergeInBattle-v0: only shapes were compared."""
    with pytest.raises(ValueError) as error:
        evaluate_agent("EmpireSoloMergeInBattle-v0", "pretrained:EmpireSolo-v0", 1, seed=0)
    message = str(error.value)
    for part in ("EmpireSolo-v0.npz", "empire_envs/EmpireSolo-v0", "merge_in_battle"):
        assert part in message, message
    assert isinstance(error.value, USAGE_ERRORS)


def test_a_policy_refuses_a_variant_given_as_env_kwargs(good):
    agent = make_agent(f"jaxppo:{good}", "solo")
    env = gym.make(SOLO, merge_in_battle=True)
    agent.check_spaces(env.observation_space, env.action_space)  # the same shapes
    observation, info = env.reset(seed=0)
    with pytest.raises(ValueError, match="merge_in_battle"):
        agent.act(observation, info["action_mask"], env.unwrapped.state)
    with pytest.raises(ValueError, match="merge_in_battle"):
        agent.check_env(env)


def test_a_policy_trained_with_a_variant_refuses_the_plain_game(tmp_path):
    path = random_policy_file(tmp_path / "merge.npz", env_id="empire_envs/EmpireSoloMergeInBattle-v0")
    agent = make_agent(f"jaxppo:{path}", "solo")
    with pytest.raises(ValueError, match="EmpireSoloMergeInBattle-v0"):
        agent.check_env(gym.make(SOLO))
    agent.check_env(gym.make("empire_envs/EmpireSolo-v0", merge_in_battle=True))  # the same rules


def test_a_policy_trained_with_shaping_plays_the_plain_id_silently(tmp_path):
    path = random_policy_file(tmp_path / "shaped.npz", env_id="empire_envs/EmpireSoloShaped-v0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = evaluate_agent(SOLO, f"jaxppo:{path}", 2, seed=0)
        assert result["episodes"] == 2 and result["illegal"] == 0
        shaped = random_policy_file(tmp_path / "kwargs.npz", env_kwargs={"shaping": 0.5, "shaping_cap": 0.3})
        evaluate_agent(SOLO, f"jaxppo:{shaped}", 1, seed=0)


def test_a_different_length_limit_warns_but_plays(tmp_path):
    path = random_policy_file(tmp_path / "short.npz", env_kwargs={"length_limit": 50})
    with pytest.warns(UserWarning, match="length_limit"):
        result = evaluate_agent(SOLO, f"jaxppo:{path}", 1, seed=0)
    assert result["episodes"] == 1


def test_a_policy_plays_other_seat_counts_with_a_warning_and_refuses_other_rules(tmp_path):
    """A Pillars observation has a block for each of six seats, so the 4-seat policy keeps its
    shapes on the 3- and 6-seat games (table A plays them); a battle decided by a coin is
    another game."""
    from empire_envs.registry import make_any

    path = random_policy_file(
        tmp_path / "pillars.npz", env_id="empire_envs/Pillars-v0", observation_size=2096, num_actions=192
    )
    agent = make_agent(f"jaxppo:{path}", "pillars")
    for seats, env_id in ((3, "empire_envs/Pillars3p-v0"), (6, "empire_envs/Pillars6p-v0")):
        with pytest.warns(UserWarning, match=f"trained with 4 seats, this env has {seats}"):
            agent.check_env(make_any(env_id))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.check_env(make_any("empire_envs/Pillars-v0"))
    with pytest.raises(ValueError, match="rps_mode"):
        agent.check_env(make_any("empire_envs/PillarsRPSRandom-v0"))


def test_a_policy_without_an_env_id_warns_and_plays(tmp_path, good):
    old = with_metadata(tmp_path / "old.npz", good, env_id=None, env_kwargs=None)
    with pytest.warns(UserWarning, match="records no env id"):
        agent = make_agent(f"jaxppo:{old}", "solo")
    env = gym.make(SOLO)
    agent.check_spaces(env.observation_space, env.action_space)
    observation, info = env.reset(seed=0)
    assert info["action_mask"][agent.act(observation, info["action_mask"], env.unwrapped.state)] == 1


def test_a_policy_of_an_unknown_env_id_warns(tmp_path):
    path = random_policy_file(tmp_path / "foreign.npz", env_id="other_package/Game-v3")
    agent = make_agent(f"jaxppo:{path}", "solo")
    with pytest.warns(UserWarning, match="other_package/Game-v3"):
        agent.check_env(gym.make(SOLO))


def test_a_policy_refuses_a_game_given_by_name_only(good):
    """Where only the game's name reaches the agent (``make_agent``), it is checked against the
    game the file's env id plays."""
    agent = make_agent(f"jaxppo:{good}", "solitaire")
    env = gym.make(SOLO)  # Empire solo's spaces: the shapes agree, the game named does not
    with pytest.raises(ValueError, match="Empire Solitaire"):
        agent.check_spaces(env.observation_space, env.action_space)


def test_the_shipped_policies_play_their_ids_without_a_warning():
    """The Solitaire policy was trained on EmpireSolitaireShaped-v0 and is evaluated on
    EmpireSolitaire-v0: reward shaping only, the same rules."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in policy_files.pretrained_names():
            result = evaluate_agent(name, f"pretrained:{name}", 1, seed=0)
            assert result["episodes"] == 1 and result["illegal"] == 0
        result = evaluate_agent("EmpireSolitaireShaped-v0", "pretrained:EmpireSolitaire-v0", 1, seed=0)
        assert result["illegal"] == 0


# --------------------------------------------------------------------------- ppo: files


def test_ppo_given_a_policy_npz_says_use_jaxppo():
    with pytest.raises(ValueError, match="jaxppo:") as error:
        make_agent(f"ppo:{SHIPPED_SOLO}", "solo")
    assert str(SHIPPED_SOLO) in str(error.value)


def test_ppo_given_a_renamed_npz_says_use_jaxppo(tmp_path, good):
    renamed = tmp_path / "model.zip"
    renamed.write_bytes(good.read_bytes())
    with pytest.raises(ValueError, match="jaxppo:"):
        make_agent(f"ppo:{renamed}", "solo")


@pytest.mark.parametrize("content", [b"", b"not a zip at all\n", b"PK\x03\x04truncated"])
def test_ppo_given_a_file_that_is_not_a_model_names_it(tmp_path, content):
    path = tmp_path / "model.zip"
    path.write_bytes(content)
    with pytest.raises(ValueError) as error:
        make_agent(f"ppo:{path}", "solo")
    assert str(path) in str(error.value) and "MaskablePPO" in str(error.value)


def test_ppo_given_a_zip_that_is_not_a_model_names_it(tmp_path):
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(ValueError) as error:
        make_agent(f"ppo:{path}", "solo")
    assert str(path) in str(error.value) and "MaskablePPO" in str(error.value)


def test_ppo_given_a_model_with_corrupted_data_names_it(tmp_path):
    pytest.importorskip("sb3_contrib")
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", "{not json")
        archive.writestr("policy.pth", b"\x00\x01")
    with pytest.raises(ValueError) as error:
        make_agent(f"ppo:{path}", "solo")
    assert str(path) in str(error.value)


# --------------------------------------------------------------------------- multiplayer envs before reset

BEFORE_RESET = {
    "last()": lambda env: env.last(),
    "last(observe=False)": lambda env: env.last(observe=False),
    "agent_selection": lambda env: env.agent_selection,
    "rewards": lambda env: env.rewards,
    "terminations": lambda env: env.terminations,
    "truncations": lambda env: env.truncations,
    "infos": lambda env: env.infos,
    "_cumulative_rewards": lambda env: env._cumulative_rewards,
}
#: PettingZoo's order-enforcing wrapper also hides these until reset (and its api_test never reads
#: them before); the raw env's ``agents`` is ``[]`` before reset, as PettingZoo's own raw envs have it
WRAPPED_BEFORE_RESET = {
    **BEFORE_RESET,
    "agents": lambda env: env.agents,
    "num_agents": lambda env: env.num_agents,
    "agent_iter()": lambda env: env.agent_iter(),
    "state()": lambda env: env.state(),
}


def raw(entry, **kwargs):
    return envs.raw_env(entry.game, **{**entry.kwargs, **kwargs})


@pz_entries
@pytest.mark.parametrize("how", ["raw", "wrapped"])
def test_everything_that_needs_a_game_raises_reset_needed_before_reset(entry, how):
    env = raw(entry) if how == "raw" else empire_envs.make(entry.env_id)
    calls = BEFORE_RESET if how == "raw" else WRAPPED_BEFORE_RESET
    for name, call in calls.items():
        with pytest.raises(ResetNeeded, match="reset") as error:
            call(env)
        assert name.split("(")[0] in str(error.value), (name, str(error.value))
    # an attribute that needs a game is still absent to hasattr / getattr with a default
    assert not hasattr(env, "agent_selection") and getattr(env, "rewards", None) is None
    # what PettingZoo needs before reset still works
    agent = env.possible_agents[0]
    assert env.max_num_agents == len(env.possible_agents)
    assert env.observation_space(agent)["action_mask"].shape == (env.action_space(agent).n,)
    assert env.metadata["name"]
    if how == "raw":
        assert env.agents == [] and env.num_agents == 0
    env.reset(seed=1)
    observation, reward, terminated, truncated, info = env.last()
    assert observation["action_mask"].any() and env.agent_selection in env.agents
    assert reward == 0 and not terminated and not truncated and isinstance(info, dict)


def test_an_unknown_attribute_is_still_a_plain_attribute_error():
    env = raw(PZ_ENTRIES[0])
    with pytest.raises(AttributeError, match="no_such_thing") as error:
        env.no_such_thing  # noqa: B018
    assert not isinstance(error.value, ResetNeeded)


# --------------------------------------------------------------------------- out-of-space actions, wrapped


@pz_entries
def test_an_out_of_space_action_through_the_factory_is_a_clear_error(entry):
    env = empire_envs.make(entry.env_id)
    env.reset(seed=3)
    agent = env.agent_selection
    n = env.action_space(agent).n
    before = env.observe(agent)
    for action in (-1, n, np.int64(n + 5), np.array(-2)):
        with pytest.raises(ValueError) as error:
            env.step(action)
        message = str(error.value)
        assert f"action {int(action)}" in message and agent in message and f"Discrete({n})" in message, message
        assert "outside the action space" in message
        assert isinstance(error.value, AssertionError)  # what PettingZoo's wrapper raised, still caught
    # refused before anything moved: the same agent, observation and mask, and a legal step plays
    after = env.observe(agent)
    assert env.agent_selection == agent
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])
    env.step(int(np.flatnonzero(after["action_mask"])[0]))


# --------------------------------------------------------------------------- Generals opening_hand


@pytest.mark.parametrize("value", ["52", (5, "2"), 5, None, (5,), (5, 2, 1), (5.0, 2), b"52"])
def test_a_bad_opening_hand_is_quoted_whole(value):
    """``GeneralsEnv(opening_hand="52")`` used to report ``got '5'`` (it read the string's characters)."""
    with pytest.raises((TypeError, ValueError)) as error:
        envs.GeneralsEnv(opening_hand=value)
    message = str(error.value)
    assert "opening_hand must be" in message and repr(value) in message, message
    assert "options are" not in message  # the list of option names is for an unknown name only


def test_a_good_opening_hand_is_accepted_as_a_tuple():
    for value in ((5, 2), [5, 2], (0, 30)):
        env = envs.GeneralsEnv(opening_hand=value)
        assert env.config.opening_hand == tuple(value)
