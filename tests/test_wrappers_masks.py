"""Masks reach the caller through wrappers, as the README and docs/training.md say.

Gymnasium 1.x wrappers do not forward their env's methods, so ``gym.make(id).action_masks()``
raises AttributeError. What the docs show must work on what users really hold: ``gym.make``'s
stack under SB3's ``Monitor``, and an ``AECSingleAgentEnv`` under ``Monitor``. The vector-env half
checks the next-step autoreset convention the README documents for ``gym.make_vec``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from empire_envs.adapters.single_agent import AECSingleAgentEnv
from empire_envs.registry import ENTRIES, make

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOCS_THAT_CALL_ACTION_MASKS = ("README.md", "docs/training.md", "docs/rules/solo.md", "docs/rules/solitaire.md")
GYM_IDS = [item.env_id for item in ENTRIES if item.api == "gymnasium"]


def _wrapped_gym_env(env_id: str, **kwargs: Any) -> gym.Env:
    return Monitor(gym.make(env_id, **kwargs))


def _wrapped_single_agent_env(**kwargs: Any) -> gym.Env:
    # the quick Generals game: a learner's episode is some 60 decisions, so PPO sees several end
    return Monitor(AECSingleAgentEnv(make("empire_envs/GeneralsQuick-v0"), learner_seat=0, **kwargs))


WRAPPED_ENVS: dict[str, Callable[..., gym.Env]] = {
    **{env_id: lambda env_id=env_id, **kw: _wrapped_gym_env(env_id, **kw) for env_id in GYM_IDS},
    "AECSingleAgentEnv(GeneralsQuick-v0)": _wrapped_single_agent_env,
}


def documented_mask_calls(text: str) -> list[str]:
    """Inline code spans that call ``action_masks`` on a variable named ``env``."""
    spans = re.findall(r"(?<!`)`([^`\n]+)`(?!`)", text)
    return [span for span in spans if "action_masks" in span and re.search(r"\benv\b", span)]


def test_the_docs_show_mask_calls_to_check():
    found = {name: documented_mask_calls((ROOT / name).read_text()) for name in DOCS_THAT_CALL_ACTION_MASKS}
    assert all(found.values()), f"a page lost its action_masks call, so nothing is checked there: {found}"


@pytest.mark.parametrize("doc", DOCS_THAT_CALL_ACTION_MASKS)
@pytest.mark.parametrize("stack", list(WRAPPED_ENVS))
def test_every_documented_mask_call_works_through_wrappers(doc, stack):
    """Each call the page shows, evaluated with ``env`` bound to a wrapped env, gives the mask that
    reset reported; a call that only works on the bare env (``env.action_masks()``) fails here."""
    calls = documented_mask_calls((ROOT / doc).read_text())
    env = WRAPPED_ENVS[stack]()
    _obs, info = env.reset(seed=5)
    assert isinstance(env, gym.Wrapper), "the check is about wrapped envs"
    for call in calls:
        mask = eval(call, {"env": env, "get_action_masks": get_action_masks})  # noqa: S307
        assert isinstance(mask, np.ndarray) and mask.dtype == np.int8, call
        assert np.array_equal(mask, info["action_mask"]), call
    env.close()


def test_the_readme_action_masker_recipe_works_under_gym_make():
    """The README's ``ActionMasker`` form (a function, not the method's name) reads the mask
    through ``gym.make``'s wrappers."""
    from sb3_contrib.common.wrappers import ActionMasker

    recipes = [span for span in re.findall(r"`([^`\n]+)`", (ROOT / "README.md").read_text()) if "ActionMasker(" in span]
    assert len(recipes) == 1, recipes
    wrapped = gym.make("empire_envs/EmpireSolitaire-v0")
    masker = eval(recipes[0], {"ActionMasker": ActionMasker, "wrapped": wrapped})  # noqa: S307
    _obs, info = masker.reset(seed=3)
    assert np.array_equal(masker.action_masks(), info["action_mask"])
    masker.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert np.array_equal(masker.action_masks(), wrapped.unwrapped.action_masks())


@pytest.mark.parametrize("stack", list(WRAPPED_ENVS))
def test_maskable_ppo_learns_on_monitor_without_action_masker(stack):
    """A few hundred steps of MaskablePPO on ``Monitor(...)`` with no ActionMasker. The env raises
    on any illegal action, so a mask that did not reach the policy would stop the run; several
    episodes end inside the run, so the masks of fresh episodes are read too."""
    env = WRAPPED_ENVS[stack](illegal_action="raise")
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    assert len(env.get_episode_lengths()) >= 2, "episodes ended inside the run"
    obs, _info = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
    assert get_action_masks(env)[int(action)] == 1
    env.close()


# ---------------------------------------------------------------- vector envs


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("env_id", ["empire_envs/EmpireSolo-v0", "empire_envs/EmpireSolitaire-v0"])
def test_next_step_autoreset_gives_a_zero_row_then_a_fresh_episode(env_id, mode):
    """Gymnasium's default next-step autoreset, as the README states it: the step that ends a
    copy's episode returns its all-zero mask row; the next step resets that copy whatever action
    it is given (reward 0, not done) and returns the new episode's mask."""
    envs = gym.make_vec(env_id, num_envs=3, vectorization_mode=mode)
    _obs, info = envs.reset(seed=11)
    rng = np.random.default_rng(11)
    ended_last_step = np.zeros(3, dtype=bool)
    resets_seen = 0
    try:
        for _ in range(400):
            masks = info["action_mask"]
            zero_rows = ~masks.any(axis=1)
            assert np.array_equal(zero_rows, ended_last_step), "a zero row appears exactly after an episode ends"
            actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in masks])
            _obs, rewards, terminated, truncated, info = envs.step(actions)
            for i in np.flatnonzero(ended_last_step):
                assert rewards[i] == 0 and not terminated[i] and not truncated[i]
                assert info["action_mask"][i].any(), "the reset copy has a legal action"
                resets_seen += 1
            ended_last_step = terminated | truncated
    finally:
        envs.close()
    assert resets_seen >= 3, "copies finished and were reset during the run"
