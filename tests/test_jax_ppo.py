"""Compiled PPO on the batched twins (issue 19): the trainer, its policy file and agent, its command.

The trainer's functions compile once per module (the ``trainer`` fixture, a tiny network on a few
games) and every test reuses them: a short run through the host loop, the rollout, the updates.
The policy file format and the numpy agent need no jax and are tested without it too.
"""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import empire_envs  # noqa: F401  (registers the ids)
from empire_envs.agents import jax_ppo as policy_files
from empire_envs.agents.base import make_agent
from empire_envs.cli import main as cli_main
from empire_envs.games.solitaire import network as relational
from empire_envs.training.jax_config import JaxTrainConfig, load_jax_config
from tests.aec_play import play_aec_game

ROOT = Path(__file__).resolve().parents[1]
SOLO = "empire_envs/EmpireSolo-v0"
#: 8 games x 16 steps = 128 decisions per update, 4 updates; evaluations and checkpoints at 256 and 512
TINY = [
    ("num_envs", 8),
    ("ppo.num_steps", 16),
    ("ppo.num_minibatches", 2),
    ("ppo.update_epochs", 2),
    ("ppo.hidden_sizes", [16]),
    ("total_timesteps", 512),
    ("log_freq", 128),
    ("eval.freq", 256),
    ("eval.episodes", 4),
    ("checkpoint.freq", 256),
    ("progress_bar", False),
]


def tiny_config(**changes: object) -> JaxTrainConfig:
    return load_jax_config(None, TINY + list(changes.items()))


# --------------------------------------------------------------------------- compiled once per module


@pytest.fixture(scope="module")
def trainer():
    pytest.importorskip("flax")
    pytest.importorskip("optax")
    from empire_envs.training.jax_ppo import Trainer

    return Trainer(tiny_config())


@pytest.fixture(scope="module")
def start(trainer):
    import jax

    return trainer.init(jax.random.PRNGKey(trainer.config.seed))


@pytest.fixture(scope="module")
def run(trainer, tmp_path_factory):
    """A whole run through the host loop (``train``), on the module's compiled trainer."""
    from empire_envs.training import jax_ppo

    out = tmp_path_factory.mktemp("jax_run") / "run"
    lines: list[str] = []
    summary = jax_ppo.train(trainer.config, out, log=lines.append, trainer=trainer)
    return out, summary, lines


@pytest.fixture(scope="module")
def final_params(trainer, start):
    """The parameters after the run's 4 updates, in one compiled call from the same start."""
    import jax.numpy as jnp

    runner, _, _ = trainer.train_updates(start, jnp.int32(trainer.config.num_updates))
    return runner.params


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


# --------------------------------------------------------------------------- the trainer


def test_a_short_run_writes_its_files_without_nan(run):
    out, summary, lines = run
    for name in ("config.json", "progress.csv", "summary.json", "policy.npz", "learning_curve.png"):
        assert (out / name).is_file(), name
    assert sorted(path.name for path in (out / "checkpoints").iterdir()) == ["policy_256.npz", "policy_512.npz"]
    assert (out / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert summary["timesteps"] == 512 and summary["env_steps_per_s"] > 0
    assert json.loads((out / "summary.json").read_text()) == summary
    assert json.loads((out / "config.json").read_text())["backend"] == "jax"
    rows = _rows(out / "progress.csv")
    assert [int(row["timesteps"]) for row in rows] == [128, 256, 384, 512]
    for row in rows:
        for column in ("policy_loss", "value_loss", "entropy", "approx_kl", "learning_rate", "steps_per_s"):
            assert math.isfinite(float(row[column])), (column, row)
        assert int(row["illegal_actions"]) == 0  # a sampled illegal action would end its game so
        assert float(row["entropy"]) > 0
    assert int(rows[-1]["episodes"]) > 0  # 8 random-ish solo games end within 128 decisions
    assert float(rows[-1]["episode_length"]) >= 1
    assert [row["eval_win_rate"] != "" for row in rows] == [False, True, False, True]
    assert float(rows[-1]["learning_rate"]) == 0.0  # annealed linearly to 0 at the last update
    assert any(line.startswith("eval at 512 steps") for line in lines)


def _tensorboard_scalars(folder: Path) -> dict[str, list[tuple[int, float]]]:
    """The scalars of TensorBoard event files (TFRecord framing: length, its CRC, an Event
    protobuf, its CRC), read with tensorboardX's own protobuf classes."""
    import struct

    from tensorboardX.proto.event_pb2 import Event

    scalars: dict[str, list[tuple[int, float]]] = {}
    for path in sorted(folder.glob("events.out.tfevents.*")):
        data, offset = path.read_bytes(), 0
        while offset < len(data):
            (length,) = struct.unpack_from("<Q", data, offset)
            event = Event.FromString(data[offset + 12 : offset + 12 + length])
            offset += 12 + length + 4
            for value in event.summary.value:
                scalars.setdefault(value.tag, []).append((event.step, value.simple_value))
    return scalars


def test_runs_are_plotted_side_by_side(run, tmp_path):
    pytest.importorskip("matplotlib")
    from empire_envs.training.jax_ppo import plot_runs

    out = plot_runs({"a": run[0], "b": run[0]}, tmp_path / "curves" / "runs.png", title="two runs")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_run_writes_its_progress_to_tensorboard_too(run):
    pytest.importorskip("tensorboardX")
    out, _, _ = run
    scalars = _tensorboard_scalars(out / "tb")
    rows = _rows(out / "progress.csv")
    assert [step for step, _ in scalars["train/entropy"]] == [128, 256, 384, 512]
    assert [value for _, value in scalars["train/entropy"]] == pytest.approx([float(r["entropy"]) for r in rows])
    assert [step for step, _ in scalars["eval/win_rate"]] == [256, 512]  # the rows with an evaluation


def test_rollouts_never_sample_a_masked_action(trainer, start):
    runner, transitions, stats = trainer.collect(start)
    masks = np.asarray(transitions.mask)
    actions = np.asarray(transitions.action)
    assert masks.shape == (16, 8, 68) and actions.shape == (16, 8)
    assert not masks.all(axis=-1).all()  # most rows forbid something, so the check can fail
    chosen = np.take_along_axis(masks, actions[..., None], axis=-1)[..., 0]
    assert chosen.all(), np.argwhere(~chosen)
    assert len(np.unique(actions)) > 3  # sampled, not one fixed action
    # the log-probabilities stored are those of the masked distribution: finite, at most 0
    log_probs = np.asarray(transitions.log_prob)
    assert np.isfinite(log_probs).all() and (log_probs <= 0).all()
    assert float(stats.illegal) == 0


def test_same_seed_same_parameters_whatever_the_chunks(trainer, start, run, final_params):
    import jax
    import jax.numpy as jnp

    def leaves(params):
        return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(params)]

    once, _, _ = trainer.train_updates(start, jnp.int32(2))
    again, _, _ = trainer.train_updates(start, jnp.int32(2))
    first, _, _ = trainer.train_updates(start, jnp.int32(1))
    split, _, _ = trainer.train_updates(first, jnp.int32(1))
    for a, b, c in zip(leaves(once.params), leaves(again.params), leaves(split.params), strict=True):
        assert np.array_equal(a, b) and np.array_equal(a, c)
    assert not all(np.array_equal(a, b) for a, b in zip(leaves(once.params), leaves(start.params), strict=True))
    other = trainer.init(jax.random.PRNGKey(trainer.config.seed + 1))
    assert not all(np.array_equal(a, b) for a, b in zip(leaves(other.params), leaves(start.params), strict=True))
    # the host loop's run (chunks of one update, evaluations, checkpoints between them) ends
    # with the very parameters of four updates in one call
    saved = np.load(run[0] / "policy.npz")
    for name, array in trainer.params_to_arrays(final_params).items():
        assert np.array_equal(saved[name], array), name


def test_the_saved_policy_reloads_and_numpy_plays_as_the_network(trainer, start, run, final_params):
    policy = policy_files.load_policy(run[0] / "policy.npz")
    assert policy.metadata["env_id"] == SOLO and policy.metadata["timesteps"] == 512
    assert policy.metadata["hidden_sizes"] == [16] and policy.metadata["seed"] == trainer.config.seed
    assert (policy.observation_size, policy.num_actions) == (207, 68)
    # a batch of real positions: the rollout's observations and masks
    _, transitions, _ = trainer.collect(start)
    observations = np.asarray(transitions.network_input).reshape(-1, 207)
    masks = np.asarray(transitions.mask).reshape(-1, 68)
    logits, _ = trainer.forward(final_params, observations)
    np.testing.assert_allclose(policy.logits(observations), np.asarray(logits), rtol=1e-5, atol=1e-6)
    from empire_envs.training.jax_ppo import masked_logits

    expected = np.asarray(masked_logits(logits, masks).argmax(axis=1))
    assert np.array_equal(policy.greedy(observations, masks), expected)
    agent = make_agent(f"jaxppo:{run[0] / 'policy.npz'}", "solo")
    played = [agent.act(o, m) for o, m in zip(observations[:20], masks[:20].astype(np.int8), strict=True)]
    assert played == list(expected[:20])


def test_a_policy_fed_the_mask_trains_saves_and_plays_the_same_in_numpy(tmp_path):
    """``mask_in_observation``: the network's input is the observation then the 0/1 mask, in
    training and in the numpy agent alike (its own compile: one update on 8 games)."""
    pytest.importorskip("flax")
    import jax

    from empire_envs.training.jax_ppo import Trainer, masked_logits

    config = tiny_config(mask_in_observation=True, total_timesteps=128, **{"eval.freq": 0, "checkpoint.freq": 0})
    trainer = Trainer(config)
    assert trainer.input_size == 207 + 68
    runner = trainer.init(jax.random.PRNGKey(0))
    _, transitions, _ = trainer.collect(runner)
    inputs = np.asarray(transitions.network_input).reshape(-1, 207 + 68)
    masks = np.asarray(transitions.mask).reshape(-1, 68)
    assert np.array_equal(inputs[:, 207:], masks.astype(np.float32))  # the mask follows the observation
    path = trainer.save(tmp_path / "policy.npz", runner.params, 0)
    policy = policy_files.load_policy(path)
    assert policy.metadata["mask_in_observation"] is True and policy.input_size == 207 + 68
    logits, _ = trainer.forward(runner.params, inputs)
    np.testing.assert_allclose(policy.logits(inputs), np.asarray(logits), rtol=1e-5, atol=1e-6)
    expected = np.asarray(masked_logits(logits, masks).argmax(axis=1))
    agent = make_agent(f"jaxppo:{path}", "solo")
    # the agent gets the bare observation and the mask, as every agent does, and builds the input
    played = [agent.act(i[:207], m) for i, m in zip(inputs[:20], masks[:20].astype(np.int8), strict=True)]
    assert played == list(expected[:20])
    # the mask really reaches the network: a different mask on the same observation moves a logit
    flipped = inputs[:1].copy()
    flipped[0, 207:] = 1.0 - flipped[0, 207:]
    assert not np.allclose(policy.logits(flipped), policy.logits(inputs[:1]))


def test_the_agent_plays_a_whole_game_through_gymnasium_make(run):
    agent = make_agent(f"jaxppo:{run[0] / 'policy.npz'}", "solo")
    env = gym.make(SOLO)  # an illegal action raises here: finishing the game proves every move legal
    agent.check_spaces(env.observation_space, env.action_space)
    observation, info = env.reset(seed=0)
    moves, done = 0, False
    while not done:
        action = agent.act(observation, info["action_mask"], env.unwrapped.state)
        observation, _, terminated, truncated, info = env.step(action)
        moves, done = moves + 1, terminated or truncated
    assert moves > 1 and info["outcome"] in ("won", "lost", "truncated")


def test_the_compiled_evaluation_plays_every_game_to_its_end(trainer, final_params):
    from empire_envs.training.jax_ppo import eval_key

    wins, returns, lengths, ended = trainer.evaluate(final_params, eval_key(0))
    assert int(ended) == 4 and 0 <= int(wins) <= 4 and int(lengths) >= 4
    # solo's return is 1 for a win, -1 for a loss (no shaping)
    assert float(returns) == pytest.approx(2 * int(wins) - 4)


def test_calls_end_where_evaluations_and_checkpoints_are_due():
    pytest.importorskip("flax")
    from empire_envs.training.jax_ppo import _due, chunk_plan

    # 128 decisions per update, 40 updates; evaluations every 1000 and checkpoints every 2500
    # timesteps fall inside updates: the call ends with the update that reaches each
    config = tiny_config(total_timesteps=5120, log_freq=640, **{"eval.freq": 1000, "checkpoint.freq": 2500})
    plan = chunk_plan(config)
    assert sum(plan) == 40 and max(plan) == 5
    ends = np.cumsum(plan) * 128
    for freq in (1000, 2500):
        due = [int(end) for end, before in zip(ends, [0, *ends[:-1]], strict=True) if _due(end, before, freq)]
        assert due == [-(-k * freq // 128) * 128 for k in range(1, 5120 // freq + 1)]
        assert set(due) <= set(ends.tolist())


# --------------------------------------------------------------------------- the policy file without jax


def random_policy_file(path: Path, hidden=(8, 8), observation_size=207, num_actions=68) -> Path:
    rng = np.random.default_rng(0)
    widths = [observation_size, *hidden]
    arrays = {}
    for network, outputs in (("actor", num_actions), ("critic", 1)):
        sizes = [*widths, outputs]
        for index, prefix in enumerate(policy_files.layer_names(network, hidden)):
            arrays[f"{prefix}/kernel"] = rng.normal(size=(sizes[index], sizes[index + 1])).astype(np.float32)
            arrays[f"{prefix}/bias"] = rng.normal(size=sizes[index + 1]).astype(np.float32)
    metadata = {
        "env_id": SOLO,
        "env_kwargs": {},
        "observation_size": observation_size,
        "num_actions": num_actions,
        "hidden_sizes": list(hidden),
        "activation": "relu",
        "timesteps": 0,
        "seed": 0,
    }
    return policy_files.save_policy(path, arrays, metadata)


def test_the_policy_file_is_plain_numpy(tmp_path):
    path = random_policy_file(tmp_path / "policy.npz")
    with np.load(path, allow_pickle=False) as archive:
        assert json.loads(str(archive["metadata"]))["format"] == "empire_envs.jaxppo"
        assert archive["actor/0/kernel"].shape == (207, 8) and archive["actor/2/kernel"].shape == (8, 68)
        assert archive["critic/2/kernel"].shape == (8, 1)
        kernels = [archive[f"actor/{i}/kernel"] for i in range(3)]
        biases = [archive[f"actor/{i}/bias"] for i in range(3)]
    observation = np.random.default_rng(1).random(207).astype(np.float32)
    x = observation
    for index, (kernel, bias) in enumerate(zip(kernels, biases, strict=True)):  # the forward pass the docstring states
        x = x @ kernel + bias
        x = np.maximum(x, 0) if index < 2 else x
    policy = policy_files.load_policy(path)
    np.testing.assert_allclose(policy.logits(observation), x, rtol=1e-6)
    mask = np.zeros(68, dtype=np.int8)
    mask[[3, 40]] = 1
    assert policy.greedy(observation, mask) == (3 if x[3] >= x[40] else 40)


def test_policy_file_errors_are_clear(tmp_path):
    with pytest.raises(ValueError, match="no policy file"):
        policy_files.load_policy(tmp_path / "missing.npz")
    (tmp_path / "text.npz").write_text("not an archive")
    with pytest.raises(ValueError, match="not a policy file"):
        policy_files.load_policy(tmp_path / "text.npz")
    np.savez(tmp_path / "bare.npz", x=np.zeros(3))
    with pytest.raises(ValueError, match="no metadata"):
        policy_files.load_policy(tmp_path / "bare.npz")
    good = random_policy_file(tmp_path / "good.npz")
    with np.load(good) as archive:
        entries = {name: archive[name] for name in archive.files}
    entries["actor/1/kernel"] = np.zeros((8, 9), dtype=np.float32)
    np.savez(tmp_path / "bent.npz", **entries)
    with pytest.raises(ValueError, match="actor layer 1 has shapes"):
        policy_files.load_policy(tmp_path / "bent.npz")
    agent = make_agent(f"jaxppo:{good}", "solitaire")
    solitaire = gym.make("empire_envs/EmpireSolitaire-v0")
    with pytest.raises(ValueError, match="trained on empire_envs/EmpireSolo-v0"):
        agent.check_spaces(solitaire.observation_space, solitaire.action_space)
    with pytest.raises(ValueError, match="has 68 actions"):
        agent.act(np.zeros(326, dtype=np.float32), np.ones(136, dtype=np.int8))
    with pytest.raises(ValueError, match="names no file; write jaxppo:PATH"):
        make_agent("jaxppo:", "solo")
    with pytest.raises(ValueError, match="write pretrained:ENV_ID"):
        make_agent("pretrained:", "solo")


def test_pretrained_policies_load_by_env_id(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="no pretrained policy for 'NoSuchGame-v0'"):
        make_agent("pretrained:NoSuchGame-v0", "solo")
    random_policy_file(tmp_path / "EmpireSolo-v0.npz")
    monkeypatch.setattr(policy_files, "pretrained_folder", lambda: tmp_path)
    assert policy_files.pretrained_names() == ["EmpireSolo-v0"]
    for spec in ("pretrained:EmpireSolo-v0", "pretrained:empire_envs/EmpireSolo-v0"):
        agent = make_agent(spec, "solo")
        assert isinstance(agent, policy_files.JaxPPOAgent)
    from empire_envs.evaluation.evaluate import evaluate_agent

    result = evaluate_agent(SOLO, "pretrained:EmpireSolo-v0", 2, seed=0)
    assert result["episodes"] == 2 and result["illegal"] == 0


def test_playing_a_policy_and_the_command_line_need_no_jax(tmp_path):
    """With jax, flax and optax unimportable: the CLI imports, a policy file plays a game through
    evaluate, and ``train --backend jax`` says which extra it needs."""
    path = random_policy_file(tmp_path / "policy.npz")
    code = textwrap.dedent(f"""
        import sys
        for name in ("jax", "jaxlib", "flax", "optax"):
            sys.modules[name] = None  # any import of these now raises ImportError
        import empire_envs.cli
        from empire_envs.cli import main
        from empire_envs.evaluation.evaluate import evaluate_agent
        result = evaluate_agent("{SOLO}", "jaxppo:{path}", 2, seed=0)
        assert result["episodes"] == 2 and result["illegal"] == 0, result
        code = main(["train", "--backend", "jax", "--timesteps", "0", "--out", "{tmp_path / "run"}"])
        print("jax-free", code)
    """)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "jax-free 2" in result.stdout
    assert "needs the jax extra" in result.stderr


# --------------------------------------------------------------------------- config and command line


def test_config_files_and_overrides(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('env_id = "empire_envs/EmpireSolitaire-v0"\nnum_envs = 64\n[ppo]\nhidden_sizes = [32]\n')
    config = load_jax_config(path, [("ppo.learning_rate", 1e-3), ("env_kwargs.shaping", 0.5), ("seed", 3)])
    assert (config.env_id, config.num_envs, config.seed) == ("empire_envs/EmpireSolitaire-v0", 64, 3)
    assert config.ppo.hidden_sizes == [32] and config.ppo.learning_rate == 1e-3
    assert config.env_kwargs == {"shaping": 0.5}
    assert config.steps_per_update == 64 * 64 and config.num_updates == -(-5_000_000 // 4096)


def test_shipped_jax_configs_load():
    paths = sorted((ROOT / "experiments" / "configs" / "jax").glob("*.toml"))
    names = [
        "demo.toml",
        "generals.toml",
        "generals_best_response.toml",
        "map_duel.toml",
        "map_duel_best_response.toml",
        "pillars.toml",
        "pillars_best_response.toml",
        "solitaire.toml",
        "solitaire_1b.toml",
        "solo.toml",
    ]
    assert [path.name for path in paths] == names
    for path in paths:
        load_jax_config(path)
    # a best response keeps the network and PPO settings of the run it answers
    for run, response in ((names[1], names[2]), (names[3], names[4]), (names[5], names[6])):
        trained, answer = (load_jax_config(paths[0].parent / name) for name in (run, response))
        assert trained.ppo == answer.ppo and trained.env_kwargs == answer.env_kwargs
        assert trained.env_id == answer.env_id
        assert answer.self_play.share == 0 and answer.self_play.refresh_updates == 0
    # the demo trains the network and settings of the published solo run, for fewer steps
    demo, solo = (load_jax_config(paths[0].parent / name) for name in ("demo.toml", "solo.toml"))
    assert demo.ppo == solo.ppo and demo.env_id == solo.env_id and demo.num_envs == solo.num_envs
    assert demo.total_timesteps < solo.total_timesteps and demo.checkpoint.freq == 0
    # the billion-step Solitaire run keeps solitaire.toml's learner on 8x the games per update
    solitaire, billion = (load_jax_config(paths[0].parent / name) for name in ("solitaire.toml", "solitaire_1b.toml"))
    assert billion.ppo == solitaire.ppo and billion.env_id == solitaire.env_id
    assert billion.mask_in_observation and billion.num_envs == 8 * solitaire.num_envs
    assert billion.total_timesteps == 1_000_000_000


@pytest.mark.parametrize(
    "overrides, message",
    [
        ([("ppo.learnin_rate", 1e-3)], "unknown config key 'ppo.learnin_rate'"),
        ([("num_env", 8)], "unknown config key 'num_env'"),
        ([("num_envs", "many")], "config key 'num_envs' takes a int"),
        ([("num_envs", 0)], "num_envs must be at least 1"),
        ([("num_envs", 10), ("ppo.num_steps", 3), ("ppo.num_minibatches", 4)], "must split into"),
        ([("ppo.activation", "gelu")], "ppo.activation must be one of"),
        ([("ppo.hidden_sizes", [])], "ppo.hidden_sizes must list positive"),
        ([("ppo.hidden_sizes", [16, 0])], "ppo.hidden_sizes must list positive"),
        ([("ppo.gamma", 1.5)], r"ppo.gamma must be in \[0, 1\]"),
        ([("eval.freq", -1)], "eval.freq must be 0"),
        ([("ppo", 3)], "is a section"),
    ],
)
def test_config_errors_are_clear(overrides, message):
    with pytest.raises(ValueError, match=message):
        load_jax_config(None, overrides)


def test_config_file_errors_are_clear(tmp_path):
    with pytest.raises(ValueError, match="no config file"):
        load_jax_config(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("num_envs = = 3\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_jax_config(broken)
    # the SB3 trainer's config is not a jax one: the error names the key and where the jax configs are
    with pytest.raises(ValueError, match=r"unknown config key 'n_envs'.*experiments/configs/jax/"):
        load_jax_config(ROOT / "experiments" / "configs" / "solo.toml")


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--n-envs", "4"], "--n-envs is a flag of the sb3 backend; the jax backend steps num_envs games"),
        (["--vec-env", "subproc"], "--vec-env is a flag of the sb3 backend"),
        (["--set", "ppo.n_steps=64"], "unknown config key 'ppo.n_steps'"),
    ],
)
def test_the_jax_backend_refuses_sb3_settings(flags, message, tmp_path, capsys):
    assert cli_main(["train", "--backend", "jax", "--out", str(tmp_path / "run"), *flags]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_the_jax_backend_takes_the_shared_flags(tmp_path, capsys, monkeypatch):
    """The named flags reach the config (the run itself is replaced: the trainer is tested above)."""
    pytest.importorskip("flax")
    from empire_envs.training import jax_ppo

    seen = {}

    def fake_train(config, out, trainer=None):
        seen.update(config=config, out=out, trainer=trainer)
        (out / "config.json").write_text("{}\n")  # what a run writes first
        return {"env_id": config.env_id, "policy": str(out / "policy.npz")}

    monkeypatch.setattr(jax_ppo, "train", fake_train)
    out = tmp_path / "run"
    argv = ["train", "--backend", "jax", "--config", str(ROOT / "experiments/configs/jax/solo.toml"),
            "--env", "empire_envs/EmpireSoloShaped-v0", "--env-kwarg", "length_limit=300", "--timesteps", "4096",
            "--seed", "5", "--out", str(out), "--no-progress", "--set", "ppo.hidden_sizes=[8]"]  # fmt: skip
    assert cli_main(argv) == 0
    config = seen["config"]
    assert (config.env_id, config.total_timesteps, config.seed) == ("empire_envs/EmpireSoloShaped-v0", 4096, 5)
    assert config.env_kwargs == {"length_limit": 300} and config.ppo.hidden_sizes == [8]
    assert config.progress_bar is False and seen["out"] == out
    assert seen["trainer"].config == config  # built and checked before the folder was claimed
    assert f"--agent jaxppo:{out / 'policy.npz'}" in capsys.readouterr().out
    assert cli_main(argv) == 2  # a folder holding a run is refused unless --overwrite
    assert cli_main([*argv, "--overwrite"]) == 0


def test_experiments_train_picks_the_config_of_the_backend(monkeypatch):
    import runpy

    calls = []
    module = runpy.run_path(str(ROOT / "experiments" / "train.py"))
    monkeypatch.setitem(module["main"].__globals__, "cli_main", lambda argv: calls.append(argv) or 0)
    module["main"](["--timesteps", "10"])
    module["main"](["--backend", "jax", "--timesteps", "10"])
    module["main"](["--backend=jax"])
    assert calls[0][:3] == ["train", "--config", str(ROOT / "experiments" / "configs" / "solo.toml")]
    assert calls[1][:3] == ["train", "--config", str(ROOT / "experiments" / "configs" / "jax" / "solo.toml")]
    assert calls[2][2] == calls[1][2]


def test_every_shipped_policy_plays_a_whole_game_of_its_env():
    """The policies in empire_envs/pretrained load by id and finish a game through gymnasium.make
    (where an illegal action raises); the solo one is the README's published run."""
    shipped = policy_files.pretrained_names()
    assert shipped == ["EmpireSolitaire-v0", "EmpireSolo-v0", "Generals-v0", "MapDuel-v0", "Pillars-v0"]
    for name in shipped[:2]:
        agent = make_agent(f"pretrained:{name}", "solo" if "Solo" in name else "solitaire")
        env = gym.make(agent.policy.metadata["env_id"], **agent.policy.metadata["env_kwargs"])
        observation, info = env.reset(seed=0)
        agent.reset(0)
        done = False
        while not done:
            action = agent.act(observation, info["action_mask"], env.unwrapped.state)
            observation, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert info["outcome"] in ("won", "lost", "truncated")
    solo = make_agent("pretrained:EmpireSolo-v0", "solo").policy.metadata
    assert solo["env_id"] == "empire_envs/EmpireSolo-v0" and solo["timesteps"] == 20_021_248
    # Solitaire's: the relational network fitted to reveal-solve, then to optimal (imitate --network relational)
    solitaire = make_agent("pretrained:EmpireSolitaire-v0", "solitaire").policy.metadata
    assert solitaire["env_id"] == "empire_envs/EmpireSolitaire-v0"
    assert solitaire["network"] == {"architecture": "solitaire-relational", **relational.DEFAULT_SIZES}
    # the network it went on from (fitted to reveal-solve alone) stays for the docs' rows
    first = ROOT / "experiments" / "policies" / "EmpireSolitaire-v0-relational-reveal-solve.npz"
    assert make_agent(f"jaxppo:{first}", "solitaire").policy.metadata["network"] == solitaire["network"]
    # the PPO policy it replaced stays for the docs' rows: shaped variant, fed the mask, 750M steps on a GPU
    ppo = make_agent(f"jaxppo:{ROOT / 'experiments' / 'policies' / 'EmpireSolitaire-v0-ppo-750m.npz'}", "solitaire")
    assert ppo.policy.metadata["env_id"] == "empire_envs/EmpireSolitaireShaped-v0"
    assert ppo.policy.metadata["timesteps"] == 750_059_520 and ppo.policy.metadata["mask_in_observation"] is True


def _plays_every_seat_against_the_heuristic(agent, game: str, env_id: str, seed: int) -> None:
    """``agent`` finishes a game of the Python AEC env ``env_id`` (deal ``seed``) from each seat,
    the heuristic on the others, every move legal (``play_aec_game`` checks each)."""
    from empire_envs.registry import make_any

    heuristic = make_agent("heuristic", game, seed=0)
    env = make_any(env_id)
    agent.check_env(env)
    for seat in env.possible_agents:

        def choose(name, observation, env, seat=seat):
            player = agent if name == seat else heuristic
            return player.act(observation["observation"], observation["action_mask"], env.unwrapped.game_state)

        assert play_aec_game(env, seed, choose).get(seat, 0) > 0
    env.close()


def test_the_shipped_pillars_policy_plays_whole_games_from_every_seat():
    """``pretrained:Pillars-v0`` (compiled PPO from a heuristic warm start against that warm start
    frozen, docs/training.md) finishes games of the Python AEC env from each of the four seats
    against the heuristic, every move legal; on the 3- and 6-seat games it plays with a warning."""
    from empire_envs.registry import make_any

    agent = make_agent("pretrained:Pillars-v0", "pillars")
    metadata = agent.policy.metadata
    assert metadata["env_id"] == "empire_envs/Pillars-v0" and metadata["env_kwargs"] == {"shaping": 0.05}
    assert metadata["trainer"] == "empire_envs.training.jax_ppo" and metadata["config"]["init_policy"]
    assert metadata["config"]["self_play"]["opponent_policy"] == metadata["config"]["init_policy"]
    _plays_every_seat_against_the_heuristic(agent, "pillars", "empire_envs/Pillars-v0", seed=5)
    for seats in (3, 6):
        with pytest.warns(UserWarning, match=f"trained with 4 seats, this env has {seats}"):
            agent.check_env(make_any(f"empire_envs/Pillars{seats}p-v0"))


def test_the_shipped_generals_policy_plays_whole_games_from_either_seat():
    """``pretrained:Generals-v0`` (compiled PPO from a heuristic warm start against that warm
    start frozen, docs/training.md) finishes games of the Python AEC env on each seat against
    the heuristic, every move legal."""

    agent = make_agent("pretrained:Generals-v0", "generals")
    metadata = agent.policy.metadata
    assert metadata["env_id"] == "empire_envs/Generals-v0" and metadata["env_kwargs"] == {"shaping": 0.05}
    assert metadata["trainer"] == "empire_envs.training.jax_ppo" and metadata["config"]["init_policy"]
    assert metadata["config"]["self_play"]["opponent_policy"] == metadata["config"]["init_policy"]
    _plays_every_seat_against_the_heuristic(agent, "generals", "empire_envs/Generals-v0", seed=3)


def test_the_shipped_map_duel_policy_plays_whole_games_from_either_seat():
    """``pretrained:MapDuel-v0`` (self-play PPO from a heuristic warm start, docs/training.md; its last
    stage trained on the unshaped reward)
    finishes games of the Python AEC env on each seat against the heuristic, every move legal."""

    agent = make_agent("pretrained:MapDuel-v0", "map_duel")
    metadata = agent.policy.metadata
    assert metadata["env_id"] == "empire_envs/MapDuel-v0" and metadata["env_kwargs"] == {"shaping": 0.0}
    assert metadata["trainer"] == "empire_envs.training.jax_ppo" and metadata["config"]["init_policy"]
    _plays_every_seat_against_the_heuristic(agent, "map_duel", "empire_envs/MapDuel-v0", seed=11)
