"""Behaviour cloning for the compiled trainer (training.jax_imitate) and ``init_policy``: the
teacher's moves on every seat, the credit of rewards between a seat's turns, a fitted policy
file that starts a run."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flax")
pytest.importorskip("optax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from empire_envs.adapters.jax_env import seed_key  # noqa: E402
from empire_envs.agents import jax_ppo as policy_files  # noqa: E402
from empire_envs.agents.base import make_agent  # noqa: E402
from empire_envs.agents.solitaire import OptimalSolitaireAgent  # noqa: E402
from empire_envs.cli import main as cli_main  # noqa: E402
from empire_envs.games.solitaire import rules as solitaire_rules  # noqa: E402
from empire_envs.games.solitaire import state as solitaire_state  # noqa: E402
from empire_envs.games.solitaire.solver import solve  # noqa: E402
from empire_envs.registry import make_any  # noqa: E402
from empire_envs.training import jax_imitate  # noqa: E402
from empire_envs.training.jax_config import load_jax_config  # noqa: E402
from empire_envs.training.jax_trainers import make_trainer  # noqa: E402

DUEL = "empire_envs/MapDuel-v0"
SMALL = [
    ("env_id", DUEL),
    ("num_envs", 8),
    ("ppo.num_steps", 8),
    ("ppo.num_minibatches", 2),
    ("ppo.hidden_sizes", [8]),
    ("self_play.pool_size", 2),
    ("progress_bar", False),
]


def small_config(**changes: object):
    return load_jax_config(None, SMALL + list(changes.items()))


#: a one-seat config of the same size (Solitaire: reveal-solve labels sets of winning moves)
SOLITAIRE_SMALL = [(key, value) for key, value in SMALL if not key.startswith("self_play")]


def solitaire_config(**changes: object):
    return load_jax_config(None, [*SOLITAIRE_SMALL, ("env_id", "empire_envs/EmpireSolitaire-v0"), *changes.items()])


def test_returns_to_go_follow_each_seat_over_its_own_decisions():
    # seats decide 0, 1, 1, 0; what each decision was credited: 0.5, 0, 1, -1
    seats = [0, 1, 1, 0]
    credited = [0.5, 0.0, 1.0, -1.0]
    returns = jax_imitate._returns_to_go(seats, credited, 0.5)
    assert returns == pytest.approx([0.5 + 0.5 * -1.0, 0.0 + 0.5 * 1.0, 1.0, -1.0])


@pytest.fixture(scope="module")
def demonstrations():
    return jax_imitate.collect(small_config(), "heuristic", episodes=2, seed=3, explore=0.25)


def test_the_teacher_labels_every_decision_of_both_seats(demonstrations):
    data = demonstrations
    size = data["actions"].size
    assert size > 20
    assert data["observations"].shape == (size, 3400) and data["masks"].shape == (size, 396)
    assert set(data["seats"].tolist()) == {0, 1} and set(data["games"].tolist()) == {0, 1}
    assert data["masks"][np.arange(size), data["actions"]].all()  # every label is legal
    assert np.isfinite(data["returns"]).all()
    # the labels are the heuristic's: replaying a decision's state is not possible here, but the
    # heuristic's choices on the same observations are a deterministic function of its seed, so
    # the same collection again gives the same data
    again = jax_imitate.collect(small_config(), "heuristic", episodes=2, seed=3, explore=0.25)
    for key in data:
        np.testing.assert_array_equal(data[key], again[key])


def test_a_won_game_gives_the_winner_positive_and_the_loser_negative_targets(demonstrations):
    data = demonstrations
    config = small_config()
    for game in (0, 1):
        rows = np.flatnonzero(data["games"] == game)
        last = {seat: rows[data["seats"][rows] == seat][-1] for seat in (0, 1)}
        finals = sorted(float(data["returns"][row]) for row in last.values())
        # the last decision of each seat carries the result (+-1, shaped by at most the shaping
        # of its last steps), or 0 apiece for a draw or a truncation
        assert (finals[0] < -0.5 and finals[1] > 0.5) or abs(finals[0]) < 0.5 and abs(finals[1]) < 0.5, finals
    assert config.ppo.gamma < 1.0


def test_fit_learns_the_teachers_moves_and_saves_a_policy_that_starts_a_run(demonstrations, tmp_path):
    config = small_config()
    trainer = make_trainer(config)
    params, agreements = jax_imitate.fit(
        trainer, demonstrations, epochs=30, learning_rate=3e-3, batch_size=64, log=lambda _: None
    )
    assert agreements["agreement_fitted"] > 0.5  # a random network agrees far less (tested below)
    fresh = trainer.network.init(jax.random.PRNGKey(0), jnp.zeros((trainer.input_size,), jnp.float32))
    fitted_rows = np.flatnonzero(demonstrations["games"] % 10 != 9)
    assert jax_imitate.agreement(trainer, fresh, demonstrations, fitted_rows) < agreements["agreement_fitted"]
    path = trainer.save(tmp_path / "policy.npz", params, 0)
    started = make_trainer(small_config(init_policy=str(path)))
    runner = started.init(seed_key(0))
    for left, right in zip(jax.tree_util.tree_leaves(runner.params), jax.tree_util.tree_leaves(params), strict=True):
        np.testing.assert_array_equal(np.asarray(left), np.asarray(right))
    # the pool starts as the starting actor too
    np.testing.assert_array_equal(
        np.asarray(runner.pool["actor_0"]["kernel"][1]), np.asarray(params["params"]["actor_0"]["kernel"])
    )
    agent = make_agent(f"jaxppo:{path}", "map_duel")
    assert agent.policy.hidden_sizes == [8]


def test_a_network_fed_the_mask_fits_and_its_policy_file_plays_what_it_learned(tmp_path):
    # mask_in_observation (one-seat games): the network reads the observation and then the mask,
    # in the fit as in play
    config = solitaire_config(mask_in_observation=True)
    data = jax_imitate.collect(config, "reveal-solve", episodes=10, seed=0, explore=0.1)
    trainer = make_trainer(config)
    assert trainer.input_size == data["observations"].shape[1] + data["masks"].shape[1]
    params, agreements = jax_imitate.fit(trainer, data, epochs=5, learning_rate=3e-3, batch_size=32, log=lambda _: None)
    assert 0.0 <= agreements["agreement_held_out"] <= 1.0
    policy = make_agent(f"jaxppo:{trainer.save(tmp_path / 'policy.npz', params, 0)}", "solitaire").policy
    observations, masks = data["observations"], data["masks"]
    inputs = jax_imitate.network_inputs(trainer, jnp.asarray(observations), jnp.asarray(masks))
    logits, _ = trainer.forward(params, inputs)
    compiled = np.asarray(jnp.argmax(jax_imitate.masked_logits(logits, jnp.asarray(masks)), axis=-1))
    np.testing.assert_array_equal(policy.greedy(observations, masks), compiled)


@pytest.fixture(scope="module")
def solitaire_lessons():
    return jax_imitate.collect(solitaire_config(), "reveal-solve", episodes=12, seed=5, explore=0.1)


def test_a_teacher_without_acceptable_moves_accepts_its_own_move_alone(demonstrations):
    targets = demonstrations["targets"]
    assert targets.shape == demonstrations["masks"].shape
    expected = np.zeros_like(targets)
    expected[np.arange(targets.shape[0]), demonstrations["actions"]] = True
    np.testing.assert_array_equal(targets, expected)


def test_reveal_solve_accepts_every_move_that_keeps_the_visible_game_won(solitaire_lessons):
    data = solitaire_lessons
    targets, masks = data["targets"], data["masks"]
    assert targets[np.arange(targets.shape[0]), data["actions"]].all()  # its own move is always accepted
    assert not (targets & ~masks).any()  # and only legal moves
    assert (targets.sum(axis=1) > 1).any()  # the dozen games hold positions with several winning moves


# optimal on a node budget: deterministic, and quick enough to play whole games
@pytest.mark.parametrize(
    "teacher",
    [lambda: make_agent("reveal-solve", "solitaire"), lambda: OptimalSolitaireAgent(time_limit=None, node_limit=300)],
    ids=["reveal-solve", "optimal"],
)
def test_a_fair_planner_accepts_exactly_the_moves_that_keep_the_visible_game_won(teacher):
    # each accepted set against the python solver on the env's own positions (nothing hidden)
    env = make_any("empire_envs/EmpireSolitaire-v0")
    teacher = teacher()
    checked = 0
    for game in range(3):
        observation, info = env.reset(seed=100 + game)
        teacher.reset(seed=0)
        done = False
        while not done:
            state, mask = env.unwrapped.state, info["action_mask"]
            move = teacher.act(observation, mask, state)
            accepted = {move, *teacher.acceptable_actions(observation, mask, state)}
            if not state.stock:
                winning = {a for a in map(int, np.flatnonzero(mask)) if _wins_after(state, a)}
                assert accepted == (winning or {move})
                assert teacher.judges(observation, mask, state)
                checked += 1
            else:
                assert accepted == {move}
                assert not teacher.judges(observation, mask, state)
            observation, _, terminated, truncated, info = env.step(move)
            done = terminated or truncated
    assert checked > 10


def _wins_after(state, action):
    after = state.clone()
    solitaire_rules.apply_action(after, action)
    if after.outcome != solitaire_state.ONGOING:
        return after.outcome == solitaire_state.WON
    return solve(after.grid, [], backend="python") is not None


def test_the_fit_raises_the_accepted_sets_probability_and_agreement_counts_any_accepted_move(solitaire_lessons):
    config = solitaire_config(mask_in_observation=True, **{"ppo.hidden_sizes": [128]})
    trainer = make_trainer(config)
    data = solitaire_lessons
    params, agreements = jax_imitate.fit(
        trainer, data, epochs=60, learning_rate=3e-3, batch_size=32, log=lambda _: None
    )
    fresh = trainer.network.init(jax.random.PRNGKey(1), jnp.zeros((trainer.input_size,), jnp.float32))
    rows = np.flatnonzero(data["games"] % 10 != 9)

    def accepted_probability(params):
        masks = jnp.asarray(data["masks"][rows])
        inputs = jax_imitate.network_inputs(trainer, jnp.asarray(data["observations"][rows]), masks)
        logits, _ = trainer.forward(params, inputs)
        probs = jax.nn.softmax(jax_imitate.masked_logits(logits, masks))
        return float(jnp.where(jnp.asarray(data["targets"][rows]), probs, 0.0).sum(axis=1).mean())

    assert accepted_probability(params) > max(0.9, accepted_probability(fresh) + 0.2)
    assert agreements["agreement_fitted"] > 0.9
    # agreement reads the accepted set: a label swapped for another accepted move changes nothing
    several = rows[data["targets"][rows].sum(axis=1) > 1]
    assert several.size
    swapped = dict(data, actions=data["actions"].copy())
    for row in several:
        others = np.flatnonzero(data["targets"][row])
        swapped["actions"][row] = int(others[others != data["actions"][row]][0])
    assert jax_imitate.agreement(trainer, params, swapped, rows) == jax_imitate.agreement(trainer, params, data, rows)


def test_in_a_dagger_round_the_student_plays_and_the_teacher_labels():
    config = solitaire_config()

    def first_legal(observation, mask):
        return int(np.flatnonzero(mask)[0])

    data = jax_imitate.collect(config, "reveal-solve", episodes=4, seed=11, explore=0.0, student=first_legal)
    env = make_any("empire_envs/EmpireSolitaire-v0")
    row = 0
    for game in range(4):
        observation, info = env.reset(seed=11 + game)
        done = False
        while not done:  # the positions recorded are those of the student's own line
            np.testing.assert_array_equal(data["observations"][row], observation)
            assert data["games"][row] == game
            observation, _, terminated, truncated, info = env.step(first_legal(observation, info["action_mask"]))
            done, row = terminated or truncated, row + 1
    assert row == data["actions"].size
    assert data["outcomes"].shape == (4,) and set(data["outcomes"].tolist()) <= {-1.0, 1.0}
    # the labels are the teacher's: somewhere the student's move differs from them
    assert (data["actions"] != [first_legal(None, m) for m in data["masks"]]).any()


def test_imitate_runs_dagger_rounds_on_new_deals_and_reports_the_students_games(tmp_path):
    config = solitaire_config()
    summary = jax_imitate.imitate(
        config, "reveal-solve", 10, 2, 3e-3, 32, 0.0, tmp_path / "run", log=lambda _: None, dagger_rounds=2
    )
    assert [entry["round"] for entry in summary["rounds"]] == [0, 1, 2]
    assert summary["rounds"][0]["student_win_rate"] is None  # the first fit: the teacher played
    assert all(0.0 <= entry["student_win_rate"] <= 1.0 for entry in summary["rounds"][1:])
    assert summary["rounds"][-1]["agreement_fitted"] == summary["agreement_fitted"]
    first = jax_imitate.collect(config, "reveal-solve", 10, config.seed, 0.0)
    assert summary["decisions"] > first["actions"].size  # the rounds' positions were added
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["dagger_rounds"] == 2
    with pytest.raises(ValueError, match="dagger_rounds must be at least 0"):
        jax_imitate.imitate(config, "reveal-solve", 10, 1, 3e-3, 32, 0.0, tmp_path / "bad", dagger_rounds=-1)


def test_init_policy_refuses_a_network_of_other_widths(tmp_path):
    trainer = make_trainer(small_config())
    params = trainer.network.init(jax.random.PRNGKey(0), jnp.zeros((trainer.input_size,), jnp.float32))
    path = trainer.save(tmp_path / "policy.npz", params, 0)
    with pytest.raises(ValueError, match="init_policy .* this run's network has"):
        make_trainer(small_config(init_policy=str(path), **{"ppo.hidden_sizes": [16]}))
    with pytest.raises(ValueError, match="no policy file"):
        make_trainer(small_config(init_policy=str(tmp_path / "missing.npz")))


def test_collect_refuses_bad_settings():
    with pytest.raises(ValueError, match="episodes must be at least 1"):
        jax_imitate.collect(small_config(), "heuristic", episodes=0, seed=0, explore=0.0)
    with pytest.raises(ValueError, match="explore must be in"):
        jax_imitate.collect(small_config(), "heuristic", episodes=1, seed=0, explore=1.0)


def test_the_imitate_command_writes_a_policy_and_says_how_to_use_it(tmp_path, capsys):
    config = tmp_path / "duel.toml"
    config.write_text("[ppo]\nhidden_sizes = [8]\nnum_steps = 8\nnum_minibatches = 2\n[self_play]\npool_size = 2\n")
    out = tmp_path / "bc"
    code = cli_main(
        ["imitate", "--backend", "jax", "--env", "MapDuel-v0", "--config", str(config), "--teacher", "random"]
        + ["--episodes", "2", "--epochs", "1", "--batch-size", "32", "--out", str(out)]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert f"jaxppo:{out / 'policy.npz'}" in printed and f"init_policy={out / 'policy.npz'}" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["teacher"] == "random" and summary["decisions"] > 0
    assert policy_files.load_policy(out / "policy.npz").metadata["env_id"] == DUEL


def test_the_imitate_command_refuses_explore_without_jax_and_out_of_range(tmp_path, capsys):
    code = cli_main(
        ["imitate", "--env", "EmpireSolo-v0", "--teacher", "heuristic", "--explore", "0.2"]
        + ["--out", str(tmp_path / "x")]
    )
    assert code == 2
    assert "--explore is for --backend jax" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:  # argparse refuses it before anything runs
        cli_main(
            ["imitate", "--backend", "jax", "--env", "MapDuel-v0", "--teacher", "heuristic"]
            + ["--explore", "1.5", "--out", str(tmp_path / "y")]
        )
    assert exit_info.value.code == 2
    assert "must be between 0 and 1, got 1.5" in capsys.readouterr().err
    code = cli_main(
        ["imitate", "--backend", "jax", "--env", "MapDuel-v0", "--teacher", "heuristic"]
        + ["--explore", "1", "--out", str(tmp_path / "y")]
    )
    assert code == 2
    assert "--explore must be in [0, 1), got 1.0" in capsys.readouterr().err
    # a negative --dagger-rounds is one of tests/test_cli_bad_inputs.py's bad numbers
    code = cli_main(
        ["imitate", "--env", "EmpireSolo-v0", "--teacher", "heuristic", "--dagger-rounds", "2"]
        + ["--out", str(tmp_path / "x")]
    )
    assert code == 2
    assert "--dagger-rounds is for --backend jax" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


# --------------------------------------------------------------------------- the relational network

#: a relational network small enough to compile and fit in seconds
RELATIONAL_SMALL = {"width": 16, "heads": 2, "layers": 1, "feedforward": 16}


def test_drop_lost_leaves_out_exactly_the_judged_positions_where_no_move_wins():
    config = solitaire_config()
    kept = jax_imitate.collect(config, "reveal-solve", episodes=12, seed=21, explore=0.3, drop_lost=True)
    every = jax_imitate.collect(config, "reveal-solve", episodes=12, seed=21, explore=0.3)
    nothing_hidden = every["observations"][:, 272] == 0  # observe.py: the stock size entry
    lost = nothing_hidden & ~every["complete"]
    assert lost.any()  # random moves at 0.3 lose some end games: the case is exercised
    # the same games are played (the random draws do not depend on the drop); only the lost rows go
    assert kept["actions"].size == every["actions"].size - int(lost.sum())
    np.testing.assert_array_equal(kept["observations"], every["observations"][~lost])
    np.testing.assert_array_equal(kept["outcomes"], every["outcomes"])
    # what is left: a row is complete exactly when nothing is hidden (every winning move named)
    np.testing.assert_array_equal(kept["complete"], kept["observations"][:, 272] == 0)
    assert (kept["targets"][kept["complete"]].sum(axis=1) >= 1).all()


def test_every_move_weight_fits_each_legal_moves_verdict(solitaire_lessons):
    config = solitaire_config(mask_in_observation=True, **{"ppo.hidden_sizes": [128]})
    trainer = make_trainer(config)
    data = solitaire_lessons
    rows = np.flatnonzero((data["games"] % 10 != 9) & data["complete"])
    assert rows.size > 50

    def verdicts_right(params):
        masks = jnp.asarray(data["masks"][rows])
        inputs = jax_imitate.network_inputs(trainer, jnp.asarray(data["observations"][rows]), masks)
        logits, _ = trainer.forward(params, inputs)
        right = (np.asarray(logits) > 0) == data["targets"][rows]
        return float(right[data["masks"][rows]].mean())

    plain, _ = jax_imitate.fit(trainer, data, epochs=60, learning_rate=3e-3, batch_size=32, log=lambda _: None)
    weighted, _ = jax_imitate.fit(
        trainer, data, epochs=60, learning_rate=3e-3, batch_size=32, log=lambda _: None, every_move_weight=1.0
    )
    # the softmax alone leaves the sign of a logit free; the weight fits it to the verdict
    assert verdicts_right(weighted) > max(0.9, verdicts_right(plain) + 0.1)
    with pytest.raises(ValueError, match="every_move_weight must be at least 0"):
        jax_imitate.fit(trainer, data, epochs=1, learning_rate=3e-3, batch_size=32, every_move_weight=-1.0)


def test_the_relational_network_is_for_solitaire_and_checks_its_sizes():
    with pytest.raises(ValueError, match="reads Empire Solitaire's observation; .*MapDuel-v0 is a game of 'map_duel'"):
        jax_imitate.RelationalNetwork(small_config())
    with pytest.raises(ValueError, match=r"unknown network sizes \['depth'\]"):
        jax_imitate.RelationalNetwork(solitaire_config(), {"depth": 3})
    with pytest.raises(ValueError, match="must be a multiple of heads"):
        jax_imitate.RelationalNetwork(solitaire_config(), {"width": 10, "heads": 4})
    with pytest.raises(ValueError, match="'layers' must be a positive integer"):
        jax_imitate.RelationalNetwork(solitaire_config(), {"layers": 0})
    with pytest.raises(ValueError, match="takes its sizes from the config"):
        jax_imitate.make_network(solitaire_config(), "mlp", {"width": 8})
    with pytest.raises(ValueError, match="unknown network 'cnn'"):
        jax_imitate.make_network(solitaire_config(), "cnn")


def test_imitate_fits_the_relational_network_and_its_file_plays_what_it_learned(tmp_path):
    config = solitaire_config()
    summary = jax_imitate.imitate(
        config,
        "reveal-solve",
        10,
        3,
        3e-3,
        32,
        0.1,
        tmp_path / "run",
        log=lambda _: None,
        dagger_rounds=1,
        network="relational",
        drop_lost=True,
        every_move_weight=1.0,
        network_sizes=RELATIONAL_SMALL,
    )
    assert summary["network"] == "relational" and summary["drop_lost"] and summary["every_move_weight"] == 1.0
    assert [entry["round"] for entry in summary["rounds"]] == [0, 1]
    path = tmp_path / "run" / "policy.npz"
    agent = make_agent(f"jaxppo:{path}", "solitaire")
    assert agent.policy.metadata["network"] == {"architecture": "solitaire-relational", **RELATIONAL_SMALL}
    # the numpy player picks the compiled network's move on positions of new deals
    data = jax_imitate.collect(config, "reveal-solve", episodes=3, seed=500, explore=0.2)
    model = jax_imitate.RelationalNetwork(config, RELATIONAL_SMALL)
    params = {name: jnp.asarray(array) for name, array in agent.policy.arrays.items()}
    # jitted: run eagerly, JAX would compile each of the network's operations for this row count
    greedy = jax.jit(functools.partial(jax_imitate.greedy_actions, model))
    compiled = np.asarray(greedy(params, jnp.asarray(data["observations"]), jnp.asarray(data["masks"])))
    np.testing.assert_array_equal(agent.policy.greedy(data["observations"], data["masks"]), compiled)
    assert data["masks"][np.arange(compiled.size), compiled].all()
    # compiled PPO trains its MLP: the file cannot start a run
    with pytest.raises(ValueError, match="holds the solitaire-relational network; compiled PPO trains the MLP"):
        make_trainer(solitaire_config(init_policy=str(path)))


def test_imitate_goes_on_from_a_policy_file_of_the_same_network_and_env(tmp_path):
    config = solitaire_config()
    model = jax_imitate.RelationalNetwork(config, RELATIONAL_SMALL)
    start = model.save(tmp_path / "start.npz", model.init(jax.random.PRNGKey(42)))
    started = policy_files.load_policy(start).arrays
    # a learning rate too small to move the parameters: what the run saves is where it started
    summary = jax_imitate.imitate(
        config,
        "reveal-solve",
        10,
        1,
        1e-12,
        32,
        0.1,
        tmp_path / "run",
        log=lambda _: None,
        network="relational",
        network_sizes=RELATIONAL_SMALL,
        init_policy=start,
        lr_schedule="cosine",
    )
    assert summary["init_policy"] == str(start) and summary["lr_schedule"] == "cosine"
    fitted = policy_files.load_policy(tmp_path / "run" / "policy.npz").arrays
    assert set(fitted) == set(started)
    for name in started:
        np.testing.assert_allclose(fitted[name], started[name], atol=1e-6)
    fresh = model.init(jax.random.PRNGKey(config.seed))  # what a run without the file would start from
    assert any(not np.allclose(fresh[name], started[name]) for name in started)


def test_init_policy_refuses_a_file_of_another_network_sizes_or_env(tmp_path):
    config = solitaire_config()
    small = jax_imitate.RelationalNetwork(config, RELATIONAL_SMALL)
    relational_file = small.save(tmp_path / "relational.npz", small.init(jax.random.PRNGKey(0)))
    with pytest.raises(ValueError, match=r"has the network sizes .* this run's network has"):
        jax_imitate.RelationalNetwork(config).load(relational_file)
    mlp = jax_imitate.MlpNetwork(make_trainer(config))
    mlp_file = mlp.save(tmp_path / "mlp.npz", mlp.init(jax.random.PRNGKey(0)))
    with pytest.raises(ValueError, match="holds an MLP, not the relational network"):
        small.load(mlp_file)
    with pytest.raises(ValueError, match="holds the solitaire-relational network, not the MLP .*--network relational"):
        mlp.load(relational_file)
    np.testing.assert_array_equal(
        np.asarray(mlp.load(mlp_file)["params"]["actor_0"]["kernel"]),
        policy_files.load_policy(mlp_file).arrays["actor/0/kernel"],
    )
    duel = jax_imitate.MlpNetwork(make_trainer(small_config()))
    duel_file = duel.save(tmp_path / "duel.npz", duel.init(jax.random.PRNGKey(0)))
    with pytest.raises(ValueError, match=r"init_policy: the policy .* was trained on empire_envs/MapDuel-v0"):
        mlp.load(duel_file)
    # a file fitted with rewards shaped reads the same positions: taken
    shaped = jax_imitate.MlpNetwork(make_trainer(solitaire_config(env_kwargs={"shaping": 0.01})))
    shaped_file = shaped.save(tmp_path / "shaped.npz", shaped.init(jax.random.PRNGKey(3)))
    np.testing.assert_array_equal(
        np.asarray(mlp.load(shaped_file)["params"]["actor_0"]["kernel"]),
        policy_files.load_policy(shaped_file).arrays["actor/0/kernel"],
    )


def test_the_cosine_schedule_changes_the_fit_and_an_unknown_schedule_is_refused(demonstrations):
    """The schedule is the optimizer's, whatever the network: checked on the MLP, whose fit
    compiles in a fraction of the relational network's time."""
    with pytest.raises(ValueError, match="unknown lr_schedule 'step'"):
        jax_imitate.fit(
            make_trainer(small_config()), demonstrations, 1, 1e-3, 32, log=lambda _: None, lr_schedule="step"
        )
    fitted = {}
    for schedule in jax_imitate.LR_SCHEDULES:
        fitted[schedule], _ = jax_imitate.fit(
            make_trainer(small_config()), demonstrations, 2, 1e-2, 32, log=lambda _: None, lr_schedule=schedule
        )
    # the same start, data and order: only the learning rates differ
    constant, cosine = (jax.tree_util.tree_leaves(fitted[name]) for name in ("constant", "cosine"))
    assert any(not np.allclose(a, b) for a, b in zip(constant, cosine, strict=True))


def test_the_imitate_command_refuses_the_relational_network_off_solitaire(tmp_path, capsys):
    code = cli_main(
        ["imitate", "--backend", "jax", "--env", "MapDuel-v0", "--teacher", "heuristic", "--network", "relational"]
        + ["--out", str(tmp_path / "x")]
    )
    assert code == 2
    assert "reads Empire Solitaire's observation" in capsys.readouterr().err
    code = cli_main(
        ["imitate", "--env", "EmpireSolo-v0", "--teacher", "heuristic", "--drop-lost", "--out", str(tmp_path / "y")]
    )
    assert code == 2
    assert "--network, --drop-lost and --every-move-weight are for --backend jax" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        cli_main(
            ["imitate", "--backend", "jax", "--env", ENV_SOLITAIRE, "--teacher", "reveal-solve"]
            + ["--every-move-weight", "-1", "--out", str(tmp_path / "z")]
        )
    assert exit_info.value.code == 2
    assert "must be at least 0, got -1" in capsys.readouterr().err
    code = cli_main(
        ["imitate", "--env", "EmpireSolo-v0", "--teacher", "heuristic", "--lr-schedule", "cosine"]
        + ["--out", str(tmp_path / "v")]
    )
    assert code == 2
    assert "--init-policy and --lr-schedule are for --backend jax" in capsys.readouterr().err
    # a start file of the other network: refused before any folder is made
    code = cli_main(
        ["imitate", "--backend", "jax", "--env", ENV_SOLITAIRE, "--teacher", "reveal-solve", "--network", "relational"]
        + ["--init-policy", str(PPO_SOLITAIRE_POLICY)]
        + ["--out", str(tmp_path / "w")]
    )
    assert code == 2
    assert "holds an MLP, not the relational network" in capsys.readouterr().err
    assert not any((tmp_path / name).exists() for name in "vwxyz")


ENV_SOLITAIRE = "empire_envs/EmpireSolitaire-v0"
#: an MLP policy file of Solitaire kept in the repository (compiled PPO, 750M steps)
PPO_SOLITAIRE_POLICY = Path(__file__).parents[1] / "experiments" / "policies" / "EmpireSolitaire-v0-ppo-750m.npz"
