"""Training with MaskablePPO: every solo env trains with masks and never acts illegally (asserted by
an audit of every action), masks stay right across auto-resets, and the train script's config,
outputs and saved model work as documented. Budgets are tiny: these test plumbing, not learning.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402

from empire_envs.agents.base import Agent, make_agent  # noqa: E402
from empire_envs.cli import main as cli_main  # noqa: E402
from empire_envs.evaluation import benchmark, evaluate  # noqa: E402
from empire_envs.registry import ENTRIES  # noqa: E402
from empire_envs.training import config as train_config  # noqa: E402
from empire_envs.training import imitate  # noqa: E402
from empire_envs.training import train as train_run  # noqa: E402
from empire_envs.training.sb3 import audit_totals, build_vec_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SOLO_IDS = [e.env_id for e in ENTRIES if e.api == "gymnasium"]
MULTI_SPECS = [e.env_id for e in ENTRIES if e.api == "pettingzoo"] + [
    "classic/tictactoe-v3"
]

TINY_PPO = {"n_steps": 256, "batch_size": 128, "n_epochs": 2,
            "policy_kwargs": {"net_arch": [32]}, "device": "cpu", "seed": 0}


def train_command(argv: list[str]) -> int:
    """``python -m empire_envs train ARGV``, in this process."""
    return cli_main(["train", *argv])


def _train_audited(spec: str, timesteps: int, **env_options) -> tuple[MaskablePPO, int, int]:
    venv = build_vec_env(spec, n_envs=2, seed=0, audit=True, **env_options)
    try:
        model = MaskablePPO("MlpPolicy", venv, **TINY_PPO)
        model.learn(timesteps)
        checked, violations = audit_totals(venv)
    finally:
        venv.close()
    return model, checked, violations


@pytest.mark.parametrize("env_id", SOLO_IDS)
def test_maskable_ppo_trains_on_every_solo_env_without_illegal_actions(env_id):
    # The envs penalize (not raise) an illegal action, so a violation would be counted, not hidden.
    model, checked, violations = _train_audited(env_id, 2048, env_kwargs={})
    assert model.num_timesteps >= 2048
    assert checked == model.num_timesteps, "the audit missed some actions"
    assert violations == 0


@pytest.mark.parametrize("spec", MULTI_SPECS)
def test_maskable_ppo_trains_on_multiplayer_views_without_illegal_actions(spec):
    model, checked, violations = _train_audited(
        spec, 1024, illegal_action="penalize", opponents=["random"]
    )
    assert checked == model.num_timesteps >= 1024
    assert violations == 0


@pytest.mark.parametrize("vec_env", ["dummy", "subproc"])
def test_masks_stay_right_across_auto_reset(vec_env):
    """Act only through ``get_action_masks`` over many episode ends: a stale mask from a finished
    episode (all zero) or from the state before the reset would pick an illegal action, which the
    audit counts."""
    venv = build_vec_env("empire_envs/EmpireSolitaire-v0", n_envs=2, seed=3, vec_env=vec_env,
                         audit=True)
    rng = np.random.default_rng(0)
    episode_ends = 0
    try:
        venv.reset()
        for _ in range(600):
            masks = get_action_masks(venv)
            assert masks.shape == (2, 136) and masks.any(axis=1).all()
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
            _, _, dones, infos = venv.step(actions)
            episode_ends += int(dones.sum())
            for done, info in zip(dones, infos, strict=True):
                if done:  # the finished episode's last mask is all zero; the next one is live
                    assert not info["action_mask"].any()
        checked, violations = audit_totals(venv)
    finally:
        venv.close()
    assert episode_ends >= 40
    assert checked == 1200 and violations == 0


def test_build_vec_env_rejects_bad_settings():
    with pytest.raises(ValueError, match="n_envs"):
        build_vec_env("empire_envs/EmpireSolo-v0", n_envs=0)
    with pytest.raises(ValueError, match="vec_env"):
        build_vec_env("empire_envs/EmpireSolo-v0", vec_env="threads")


# --------------------------------------------------------------------------- the run's config


def test_config_file_and_overrides(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('env_id = "empire_envs/EmpireSolitaire-v0"\ntotal_timesteps = 1000\n'
                    "[ppo]\nlearning_rate = 1e-3\nnet_arch = [64]\n[env_kwargs]\nshaping = 0.02\n")
    config = train_config.load_config(path, [("ppo.gamma", 0.9), ("env_kwargs.shaping", 0.01),
                                             ("seed", 7)])
    assert config.env_id == "empire_envs/EmpireSolitaire-v0"
    assert config.total_timesteps == 1000 and config.seed == 7
    assert config.ppo.learning_rate == 1e-3 and config.ppo.gamma == 0.9
    assert config.ppo.net_arch == [64]
    assert config.env_kwargs == {"shaping": 0.01}
    assert config.ppo.n_epochs == train_config.PPOSettings().n_epochs  # untouched default


@pytest.mark.parametrize("overrides, message", [
    ([("ppo.learnin_rate", 1e-3)], "unknown config key 'ppo.learnin_rate'"),
    ([("total_timesteps", "many")], "total_timesteps"),
    ([("progress_bar", 1)], "progress_bar"),
    ([("n_envs", 0)], "n_envs must be at least 1"),
    ([("total_timesteps", -1)], "total_timesteps must be 0"),
    ([("vec_env", "threads")], "vec_env"),
    ([("ppo", 3)], "is a section"),
    ([("ppo.activation", "gelu")], "activation"),
    ([("eval.freq", -5)], "eval.freq"),
])
def test_bad_config_values_are_clear_errors(overrides, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        train_config.load_config(None, overrides)


def test_bad_config_file(tmp_path):
    with pytest.raises(ValueError, match="no config file"):
        train_config.load_config(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("total_timesteps = = 3\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        train_config.load_config(broken)


def test_shipped_configs_load():
    configs = sorted((ROOT / "experiments" / "configs").glob("*.toml"))
    assert configs
    for path in configs:
        train_config.load_config(path)


# --------------------------------------------------------------------------- the train command end to end


def test_train_command_end_to_end(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["--env", "empire_envs/EmpireSoloShaped-v0", "--timesteps", "2048", "--out", str(out),
            "--no-progress", "--set", "ppo.n_steps=256", "--set", "ppo.batch_size=128",
            "--set", "ppo.net_arch=[32]", "--set", "eval.freq=1024", "--set", "eval.episodes=3",
            "--set", "checkpoint.freq=1024", "--env-kwarg", "length_limit=300"]
    assert train_command(argv) == 0
    for name in ("model.zip", "config.json", "progress.csv", "summary.json", "learning_curve.png",
                 "eval/evaluations.npz", "eval/best_model.zip"):
        assert (out / name).is_file(), name
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "model_1024_steps.zip", "model_2048_steps.zip"
    ]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timesteps"] == 2048 and summary["env_steps_per_s"] > 0
    config = json.loads((out / "config.json").read_text())
    assert config["env_kwargs"] == {"length_limit": 300} and config["ppo"]["net_arch"] == [32]
    assert (out / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    evaluations = np.load(out / "eval" / "evaluations.npz")
    assert list(evaluations["timesteps"]) == [1024, 2048]
    assert evaluations["results"].shape == (2, 3)
    assert "ppo:" in capsys.readouterr().out

    # The saved model plays as an agent in evaluate, legally, on the same variant.
    result = evaluate.evaluate_agent("empire_envs/EmpireSoloShaped-v0", f"ppo:{out / 'model.zip'}",
                                     5, env_kwargs={"length_limit": 300})
    assert result["episodes"] == 5 and result["illegal"] == 0

    # A second run into the same directory is refused unless asked to overwrite.
    assert train_command(argv) == 2
    assert "already holds a run" in capsys.readouterr().err


def test_train_command_bad_env_is_a_clean_error(tmp_path, capsys):
    code = train_command(["--env", "empire_envs/NoSuchGame-v0", "--timesteps", "100",
                              "--out", str(tmp_path / "x"), "--no-progress"])
    assert code == 2
    assert "NoSuchGame" in capsys.readouterr().err


# --------------------------------------------------------------------------- agents from files


@pytest.fixture(scope="module")
def tiny_solo_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "solo.zip"
    venv = build_vec_env("empire_envs/EmpireSolo-v0", n_envs=1)
    MaskablePPO("MlpPolicy", venv, **TINY_PPO).save(path)
    venv.close()
    return path


def test_ppo_agent_acts_legally_and_checks_shapes(tiny_solo_model):
    agent = make_agent(f"ppo:{tiny_solo_model}", "solo")
    rng = np.random.default_rng(0)
    for _ in range(50):
        mask = (rng.random(68) < 0.2).astype(np.int8)
        mask[rng.integers(68)] = 1
        obs = rng.random(207).astype(np.float32)
        assert mask[agent.act(obs, mask)] == 1
    with pytest.raises(ValueError, match="has 68 actions"):
        agent.act(np.zeros(326, dtype=np.float32), np.ones(136, dtype=np.int8))
    with pytest.raises(ValueError, match="trained on inputs of shape"):
        agent.act(np.zeros(326, dtype=np.float32), np.ones(68, dtype=np.int8))


def test_ppo_agent_spec_errors(tmp_path):
    with pytest.raises(ValueError, match="no saved model"):
        make_agent(f"ppo:{tmp_path / 'nothing.zip'}", "solo")
    with pytest.raises(ValueError, match="names no file"):
        make_agent("ppo:", "solo")


class ConstantFirstAgent(Agent):
    """The lowest legal action (a user-defined agent loaded by import path)."""

    def act(self, observation, action_mask, state=None):
        return int(np.flatnonzero(action_mask)[0])


def test_user_agent_by_import_path():
    agent = make_agent("tests.test_training:ConstantFirstAgent", "solo")
    assert isinstance(agent, ConstantFirstAgent)
    assert agent.act(None, np.array([0, 0, 1, 1], dtype=np.int8)) == 2
    with pytest.raises(ValueError, match="not an empire_envs Agent"):
        make_agent("tests.test_training:TINY_PPO", "solo")
    with pytest.raises(ValueError, match="cannot import agent"):
        make_agent("tests.no_such_module:Agent", "solo")


def test_demo_runs_with_a_tiny_budget(tmp_path, capsys):
    demo_config = ROOT / "experiments" / "configs" / "demo.toml"  # what experiments/demo.py --backend sb3 passes
    assert cli_main(["demo", "--backend", "sb3", "--config", str(demo_config), "--timesteps", "1024",
                     "--episodes", "5", "--out", str(tmp_path / "demo"), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    for row in ("random", "heuristic", "ppo:"):
        assert row in printed
    assert (tmp_path / "demo" / "learning_curve.png").is_file()
    assert (tmp_path / "demo" / "model.zip").is_file()


def test_the_compiled_demo_runs_with_a_tiny_budget_and_compares_another_agent(tmp_path, capsys):
    """The default demo backend is the compiled trainer; ``--compare`` adds a row to the table
    (experiments/demo.py passes the SB3 demo's model there once it exists)."""
    pytest.importorskip("flax")
    demo_config = ROOT / "experiments" / "configs" / "jax" / "demo.toml"  # what experiments/demo.py passes
    tiny = ["num_envs=8", "ppo.num_steps=16", "ppo.num_minibatches=2", "ppo.hidden_sizes=[8]", "eval.episodes=4"]
    argv = ["demo", "--config", str(demo_config), "--timesteps", "128", "--episodes", "3",
            "--out", str(tmp_path / "demo"), "--no-progress", "--compare", "pretrained:EmpireSolo-v0"]
    for setting in tiny:
        argv += ["--set", setting]
    assert cli_main(argv) == 0
    printed = capsys.readouterr().out
    table = printed[printed.index("3 deals per agent"):]
    for row in ("random", "heuristic", f"jaxppo:{tmp_path / 'demo' / 'policy.npz'}", "pretrained:EmpireSolo-v0"):
        assert row in table
    assert (tmp_path / "demo" / "policy.npz").is_file()
    assert (tmp_path / "demo" / "learning_curve.png").is_file()


def test_the_demo_refuses_an_agent_to_compare_before_training(tmp_path, capsys):
    argv = ["demo", "--timesteps", "128", "--out", str(tmp_path / "demo"), "--no-progress",
            "--compare", f"ppo:{tmp_path / 'missing.zip'}"]
    assert cli_main(argv) == 2
    assert "missing.zip" in capsys.readouterr().err
    assert not (tmp_path / "demo").exists()  # nothing was trained


@pytest.mark.parametrize(
    "argv, expected",
    [([], "sb3"), (["--backend", "jax"], "jax"), (["--backend=jax"], "jax"),
     (["--backend", "jax", "--seed", "1", "--backend", "sb3"], "sb3"), (["--backend"], "sb3")],
)
def test_backend_named_reads_the_flag_as_argparse_does(argv, expected):
    from empire_envs.cli.training_commands import backend_named

    assert backend_named(argv, "sb3") == expected


def test_core_package_does_not_need_torch(tmp_path):
    """Envs, adapters, the multiplayer view, the non-learning agents, the measuring tools, the
    command line and the training modules that start runs import with torch and
    stable-baselines3 made unimportable (they import them when a run starts)."""
    import subprocess
    import textwrap

    code = textwrap.dedent("""
        import sys
        for name in ("torch", "stable_baselines3", "sb3_contrib"):
            sys.modules[name] = None  # any import of these now raises ImportError
        import gymnasium
        import empire_envs
        from empire_envs.adapters.single_agent import AECSingleAgentEnv
        from empire_envs.agents import make_agent
        import empire_envs.cli, empire_envs.evaluation.benchmark, empire_envs.evaluation.speed
        import empire_envs.training.demo, empire_envs.training.imitate, empire_envs.training.train
        for item in empire_envs.ENTRIES:
            env = empire_envs.make(item.env_id)
            env.reset(seed=0)
            make_agent("random", "any game")
        make_agent("heuristic", "solo")
        try:
            make_agent("ppo:" + sys.argv[1], "solo")
        except ImportError as error:
            print("ppo needs:", error)
        print("torch-free")
    """)
    import zipfile

    model = tmp_path / "model.zip"  # passes the file checks, so the agent gets as far as importing sb3
    with zipfile.ZipFile(model, "w") as archive:
        archive.writestr("data", "{}")
    result = subprocess.run([sys.executable, "-c", code, str(model)], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "torch-free" in result.stdout
    assert "train extra" in result.stdout  # the ppo agent says what to install


# --------------------------------------------------------------------------- mask input, warm starts


@pytest.mark.parametrize("mask, lookahead", [(True, False), (False, True), (True, True)])
def test_policy_input_wrapper_appends_the_live_extras(mask, lookahead):
    from empire_envs.core.policy_input import PolicyInput, successor_mobility
    from empire_envs.training.sb3 import make_env_factory

    policy_input = PolicyInput(mask=mask, lookahead=lookahead)
    env = make_env_factory("empire_envs/EmpireSolitaire-v0", policy_input=policy_input)()
    base = env.unwrapped
    width = 326 + 136 * (mask + lookahead)
    obs, info = env.reset(seed=4)
    assert env.observation_space.shape == (width,)
    rng = np.random.default_rng(0)
    while True:
        assert env.observation_space.contains(obs)
        assert np.array_equal(obs[:326], base.game.observe(base.state))
        extras = obs[326:].reshape(mask + lookahead, 136)
        if mask:
            assert np.array_equal(extras[0], info["action_mask"])
        if lookahead:
            mobility = extras[-1]
            assert np.all((mobility > 0) <= (info["action_mask"] == 1)), "an illegal action scored"
            expected = successor_mobility(base.game, base.state, np.random.default_rng(0))
            assert np.array_equal(mobility, expected)
        obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated or truncated:
            assert not obs[326:].any()
            break


def test_successor_mobility_counts_the_moves_after_each_action():
    import math

    from empire_envs.core.policy_input import successor_mobility
    from empire_envs.games.solitaire import GAME, rules

    state = rules.new_game(GAME.config_class(), np.random.default_rng(7))
    features = successor_mobility(GAME, state, np.random.default_rng(0))
    legal = GAME.legal_actions(state)
    assert set(np.flatnonzero(features)) <= set(legal)
    for action in legal:  # captures are deterministic: recount them on the true state
        child = state.clone()
        GAME.apply_action(child, action, np.random.default_rng(0))
        expected = 0.0 if GAME.is_terminal(child) else (
            math.log1p(len(GAME.legal_actions(child))) / math.log1p(GAME.num_actions(state.config)))
        assert features[action] == pytest.approx(expected)
    assert state == rules.new_game(GAME.config_class(), np.random.default_rng(7)), "state changed"


def test_ppo_agent_rebuilds_the_input_its_run_used(tmp_path):
    import gymnasium

    from empire_envs.core.policy_input import PolicyInput

    venv = build_vec_env("empire_envs/EmpireSolitaire-v0", n_envs=1,
                         policy_input=PolicyInput(mask=True, lookahead=True))
    MaskablePPO("MlpPolicy", venv, **TINY_PPO).save(tmp_path / "model.zip")
    venv.close()
    (tmp_path / "config.json").write_text(json.dumps({
        "env_id": "empire_envs/EmpireSolitaire-v0", "env_kwargs": {},
        "mask_in_observation": True, "lookahead_features": True}))
    agent = make_agent(f"ppo:{tmp_path / 'model.zip'}", "solitaire")
    env = gymnasium.make("empire_envs/EmpireSolitaire-v0")
    agent.check_spaces(env.observation_space, env.action_space)
    obs, info = env.reset(seed=1)
    with pytest.raises(ValueError, match="pass the game state"):
        agent.act(obs, info["action_mask"])
    for _ in range(5):
        action = agent.act(obs, info["action_mask"], env.unwrapped.state)  # plain 326-wide obs
        assert info["action_mask"][action] == 1
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    (tmp_path / "config.json").unlink()  # without its config the model's input is unexplained
    with pytest.raises(ValueError, match="trained on inputs of shape"):
        make_agent(f"ppo:{tmp_path / 'model.zip'}", "solitaire").check_spaces(
            env.observation_space, env.action_space)


def test_init_model_copies_weights_and_refuses_another_network(tmp_path):
    import torch

    venv = build_vec_env("empire_envs/EmpireSolo-v0", n_envs=1)
    source = MaskablePPO("MlpPolicy", venv, **{**TINY_PPO, "seed": 1})
    source.save(tmp_path / "source.zip")
    target = MaskablePPO("MlpPolicy", venv, **{**TINY_PPO, "seed": 2})
    key = next(iter(source.policy.state_dict()))
    assert not torch.equal(source.policy.state_dict()[key], target.policy.state_dict()[key])
    train_run.load_initial_weights(target, str(tmp_path / "source.zip"))
    for name, tensor in source.policy.state_dict().items():
        assert torch.equal(tensor, target.policy.state_dict()[name]), name
    wider = MaskablePPO("MlpPolicy", venv, **{**TINY_PPO, "policy_kwargs": {"net_arch": [48]}})
    with pytest.raises(ValueError, match="another network"):
        train_run.load_initial_weights(wider, str(tmp_path / "source.zip"))
    venv.close()


def test_imitate_collects_teacher_moves_and_fits_a_loadable_model(tmp_path, capsys):
    data = imitate.collect_demonstrations("empire_envs/EmpireSolo-v0", "heuristic", 3, seed=2,
                                          gamma=1.0)
    n = data["actions"].size
    assert n > 3 and data["observations"].shape == (n, 207) and data["masks"].shape == (n, 68)
    assert data["masks"][np.arange(n), data["actions"]].all(), "the teacher moved illegally"
    for episode in range(3):
        rows = np.flatnonzero(data["episodes"] == episode)
        # unshaped rewards come only at the end, so every undiscounted return-to-go is the same
        assert data["returns"][rows[0]] in (1.0, -1.0, 0.0)  # won, lost, truncated
        assert np.all(data["returns"][rows] == data["returns"][rows[0]])

    out = tmp_path / "bc"
    assert cli_main(["imitate", "--env", "empire_envs/EmpireSolitaire-v0", "--teacher", "greedy",
                     "--episodes", "40", "--epochs", "2", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert 0.0 <= summary["held_out_agreement"] <= 1.0 and summary["decisions"] >= 40
    agent = make_agent(f"ppo:{out / 'model.zip'}", "solitaire")
    assert evaluate.evaluate_agent("empire_envs/EmpireSolitaire-v0", f"ppo:{out / 'model.zip'}",
                                   5)["illegal"] == 0
    assert agent.policy is not None
    assert cli_main(["imitate", "--env", "empire_envs/EmpireSolo-v0", "--teacher", "nobody",
                     "--episodes", "2", "--out", str(tmp_path / "x")]) == 2
    assert "unknown agent" in capsys.readouterr().err


def test_a_model_refuses_an_env_with_other_spaces(tiny_solo_model):
    import gymnasium

    agent = make_agent(f"ppo:{tiny_solo_model}", "solo")
    solo = gymnasium.make("empire_envs/EmpireSolo-v0")
    agent.check_spaces(solo.observation_space, solo.action_space)  # its own env: fine
    solitaire = gymnasium.make("empire_envs/EmpireSolitaire-v0")
    with pytest.raises(ValueError, match="trained on inputs of shape"):
        agent.check_spaces(solitaire.observation_space, solitaire.action_space)
    with pytest.raises(ValueError, match="trained on inputs"):
        evaluate.evaluate_agent("empire_envs/EmpireSolitaire-v0", f"ppo:{tiny_solo_model}", 2)
    plan = benchmark.plan_benchmark(
        ["empire_envs/EmpireSolo-v0", "empire_envs/EmpireSolitaire-v0"],
        ["random", f"ppo:{tiny_solo_model}"],
    )
    assert [p.agents for p in plan] == [["random", f"ppo:{tiny_solo_model}"], ["random"]]


def test_lookahead_logits_policy_adds_the_gain_times_the_features(tmp_path):
    import torch

    from empire_envs.core.policy_input import PolicyInput
    from empire_envs.training.policies import LookaheadLogitsPolicy

    venv = build_vec_env("empire_envs/EmpireSolitaire-v0", n_envs=1,
                         policy_input=PolicyInput(mask=True, lookahead=True))
    model = MaskablePPO(LookaheadLogitsPolicy, venv,
                        **{**TINY_PPO, "policy_kwargs": {"net_arch": [16], "initial_gain": 7.0}})
    policy = model.policy
    assert any(p is policy.lookahead_gain for g in policy.optimizer.param_groups for p in g["params"])
    obs = torch.as_tensor(venv.reset())
    lookahead = obs[:, -136:]
    with torch.no_grad():
        latent_pi, _ = policy.mlp_extractor(policy.extract_features(obs))
        expected = policy.action_net(latent_pi) + 7.0 * lookahead
        logits = policy.get_distribution(obs).distribution.logits
    assert torch.allclose(logits, torch.log_softmax(expected, dim=1), atol=1e-5)
    assert policy._logit_bias is None  # the bias never outlives the call that set it

    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert isinstance(loaded.policy, LookaheadLogitsPolicy)
    assert loaded.policy.lookahead_gain.item() == 7.0
    venv.close()


def test_lookahead_logits_needs_the_lookahead_input():
    with pytest.raises(ValueError, match="lookahead_logits needs lookahead_features"):
        train_config.load_config(None, [("lookahead_logits", True)])


def test_zero_timesteps_saves_the_untrained_policy(tmp_path):
    out = tmp_path / "prior"
    assert train_command(["--env", "empire_envs/EmpireSolo-v0", "--timesteps", "0",
                              "--out", str(out), "--no-progress", "--set", "ppo.net_arch=[16]"]) == 0
    assert json.loads((out / "summary.json").read_text())["timesteps"] == 0
    model = MaskablePPO.load(out / "model.zip", device="cpu")
    assert model.num_timesteps == 0


def test_imitate_builds_the_student_a_training_run_would_build():
    """A warm start must fit the run it seeds: same policy class and network as a training run."""
    from empire_envs.training.policies import LookaheadLogitsPolicy

    config = train_config.load_config(ROOT / "experiments" / "configs" / "solitaire.toml",
                                      [("ppo.net_arch", [16])])
    student = imitate.build_model(config)
    assert isinstance(student.policy, LookaheadLogitsPolicy)
    assert student.observation_space.shape == (326 + 2 * 136,)
    run = train_run.build_model(config, student.get_env())
    run.policy.load_state_dict(student.policy.state_dict())  # the same network: loads as is
