"""The batched JAX twins play exactly the Python rules (issue 18), and their envs keep their word.

- Differential play (``tests/jax_twins.py``): for every registered one-seat id (each has a
  twin; Map Duel's are played in tests/map_duel/test_jax_twin.py), games dealt
  by the twin and given to the Python rules through the ``deck`` reset option, every mid-game
  reshuffle preset to the twin's order, compared at every step (observation, mask, reward,
  terminated, truncated, outcome). ``make test`` plays 300 games per id (uniformly random masked
  play and the game's own agents); ``pytest -m soak`` plays 20,000 per id.
- Scripted edge positions built in Python and handed to the twin (``from_python``): the
  reshuffle of an empty deck, the last base, the draw limit, a battle lost for want of units,
  the last Solitaire capture.
- The envs: illegal and malformed actions, finished states, same-step autoreset over
  ``gymnasium.make_vec``, fresh deals, seeding.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import empire_envs  # noqa: E402
import empire_envs.jax as empire_jax  # noqa: E402
from empire_envs.core.errors import IllegalActionError  # noqa: E402
from empire_envs.core.rng import PresetOrders  # noqa: E402
from empire_envs.games.solitaire import jax_rules as solitaire_twin  # noqa: E402
from empire_envs.games.solo import jax_rules as solo_twin  # noqa: E402
from empire_envs.registry import entry  # noqa: E402

from .jax_twins import Mismatch, agent_policy, play_lockstep, random_policy  # noqa: E402

TWIN_IDS = empire_jax.twin_ids()
#: the ids of the one-seat games (Gymnasium envs); the Map Duel twin has tests/map_duel/test_jax_twin.py
ONE_SEAT_IDS = [env_id for env_id in TWIN_IDS if entry(env_id).api == "gymnasium"]
SOLO_IDS = [env_id for env_id in ONE_SEAT_IDS if entry(env_id).game == "solo"]
MAP_DUEL_IDS = [item.env_id for item in empire_envs.ENTRIES if item.game == "map_duel"]
PILLARS_IDS = [item.env_id for item in empire_envs.ENTRIES if item.game in ("pillars", "pillars_campaign")]
GENERALS_IDS = [item.env_id for item in empire_envs.ENTRIES if item.game == "generals"]
RANDOM_GAMES, AGENT_GAMES = 200, 100
SOAK_GAMES = 20_000


def _agent(env_id: str):
    """The game's own strongest fair-or-oracle agent that wins often, to reach won endings."""
    from empire_envs.agents import make_agent

    game = entry(env_id).game
    name = "solver" if game == "solitaire" else "heuristic"  # Solitaire's greedy play almost never wins
    return agent_policy(lambda: make_agent(name, game))


def test_every_registered_id_has_a_twin():
    """Every Gymnasium id has a twin, and so have the five Map Duel ids (the first multiplayer
    twin, issue 27), the eight Pillars ids, its campaign included (issue 29), and the seven
    Empires and Generals ids (issue 30): every registered id."""
    one_seat = {item.env_id for item in empire_envs.ENTRIES if item.api == "gymnasium"}
    assert len(MAP_DUEL_IDS) == 5
    assert len(PILLARS_IDS) == 8
    assert len(GENERALS_IDS) == 7
    assert set(TWIN_IDS) == one_seat | set(MAP_DUEL_IDS) | set(PILLARS_IDS) | set(GENERALS_IDS)
    assert set(TWIN_IDS) == {item.env_id for item in empire_envs.ENTRIES}
    assert set(ONE_SEAT_IDS) == one_seat


@pytest.mark.parametrize("env_id", ONE_SEAT_IDS)
def test_twin_plays_the_python_rules_step_for_step(env_id):
    random = play_lockstep(env_id, random_policy, RANDOM_GAMES, seed=0)
    agent = play_lockstep(env_id, _agent(env_id), AGENT_GAMES, seed=RANDOM_GAMES)
    assert random.games + agent.games >= 300
    outcomes = random.outcomes + agent.outcomes
    assert outcomes["won"] > 0 and outcomes["lost"] > 0, outcomes
    if env_id in SOLO_IDS:
        assert random.reshuffles + agent.reshuffles > 0, "no game reached a reshuffle"


@pytest.mark.soak
@pytest.mark.parametrize("env_id", ONE_SEAT_IDS)
def test_twin_plays_the_python_rules_step_for_step_soak(env_id):
    random = play_lockstep(env_id, random_policy, SOAK_GAMES // 2, seed=10_000)
    agent = play_lockstep(env_id, _agent(env_id), SOAK_GAMES // 2, seed=20_000, batch=500)
    assert random.games + agent.games == SOAK_GAMES
    print(env_id, "games", random.games + agent.games, "outcomes", random.outcomes + agent.outcomes)


def test_the_lockstep_catches_a_difference(monkeypatch):
    """The harness is not vacuous: a twin that pays one wrong reward is caught."""
    from tests import jax_twins

    monkeypatch.setattr(jax_twins, "_same_reward", _strict_reward_check_that_fails_on_wins)
    with pytest.raises(Mismatch, match="reward"):
        play_lockstep("empire_envs/EmpireSolitaire-v0", _agent("empire_envs/EmpireSolitaire-v0"), 20, seed=3)


def _strict_reward_check_that_fails_on_wins(python: float, twin: float, where: str) -> None:
    if python > 0:
        raise Mismatch(f"{where}: reward differs")


# --------------------------------------------------------------------------- scripted positions


def _twin_and_python(python_state, key=0):
    """The twin of a Python position and the Python state the twin stands for (same deck order)."""
    twin = solo_twin.from_python(python_state, jax.random.PRNGKey(key))
    return twin, solo_twin.to_python(twin, python_state.config)


def _step_both(twin, python, action, key=1):
    from empire_envs.games.solo import GAME, rules

    step = jax.jit(solo_twin.make_step(python.config))
    after = step(twin, jnp.int32(action), jax.random.PRNGKey(key))
    (reward,) = rules.apply_action(python, action, PresetOrders(solo_twin.reshuffle_orders(twin, after)))
    assert np.array_equal(GAME.observe(python, 0), np.asarray(after.observation))
    assert np.array_equal(GAME.legal_mask(python).astype(bool), np.asarray(after.legal_action_mask))
    assert np.float32(reward) == np.asarray(after.rewards)[0]
    assert GAME.outcome(python) == solo_twin.OUTCOME_NAMES[int(after.outcome)]
    return after, python, reward


def test_scripted_reshuffle_of_an_empty_deck():
    from empire_envs.games.solo import actions as A
    from tests.solo.helpers import build_state

    state = build_state({3: "5C"}, drawn="7D", deck=[], rest="discard")  # no merge: the card is drawn at once
    twin, python = _twin_and_python(state)
    after, python, _ = _step_both(twin, python, A.DISCARD)
    assert not np.asarray(twin.deck).any()
    assert np.asarray(after.deck).sum() == 50  # 51 cards formed the deck (all but the 5C), one drawn
    assert int(after.last_draw) == python.drawn and python.discard == []


def test_scripted_last_base_wins():
    from empire_envs.games.solo import actions as A
    from empire_envs.games.solo.state import BASE, BUILDER
    from tests.solo.helpers import build_state

    state = build_state({0: "X:QS+7D+KC+8H", 3: "B:AC", 4: "B:JC"}, drawn="KS", deck=["3D", "4D"])
    assert state.unit_kind[0] == BUILDER and state.unit_kind[3] == state.unit_kind[4] == BASE
    twin, python = _twin_and_python(state)
    after, python, reward = _step_both(twin, python, A.FOUND[0, 5])
    assert reward == 1.0 and bool(after.terminated) and python.outcome == solo_twin.WON


def test_scripted_draw_limit_truncates():
    from empire_envs.games.solo import actions as A
    from tests.solo.helpers import build_state

    state = build_state({3: "2H"}, drawn="9D", deck=["3D", "4D"], draws=3, length_limit=3)
    twin, python = _twin_and_python(state)
    after, python, reward = _step_both(twin, python, A.DISCARD)
    assert reward == 0.0 and bool(after.truncated) and not bool(after.terminated)


def test_scripted_battle_lost_for_want_of_units():
    from empire_envs.games.solo import actions as A
    from tests.solo.helpers import build_state

    state = build_state({3: "2H"}, drawn="QD", deck=["KC", "9C"])
    twin, python = _twin_and_python(state)
    after, python, _ = _step_both(twin, python, A.FIGHT)  # the Queen reveals the King of clubs
    after, python, reward = _step_both(after, python, A.SEND[3])  # 2 < 13: the round is lost, no unit left
    assert reward == -1.0 and bool(after.terminated) and python.outcome == solo_twin.LOST


def test_scripted_last_solitaire_capture_wins():
    from empire_envs.games.solitaire import GAME, rules
    from tests.solitaire.helpers import WIN_LINE, WIN_ROWS, WIN_STOCK, act, deal

    python = rules.new_game(None, 0, deck=deal(WIN_ROWS, WIN_STOCK))
    for name in WIN_LINE[:-1]:
        rules.apply_action(python, act(name))
    twin = solitaire_twin.from_python(python)
    step = jax.jit(solitaire_twin.make_step(python.config))
    after = step(twin, jnp.int32(act(WIN_LINE[-1])), jax.random.PRNGKey(0))
    (reward,) = rules.apply_action(python, act(WIN_LINE[-1]))
    assert reward == 1.0 == float(after.rewards[0]) and bool(after.terminated)
    assert np.array_equal(GAME.observe(python, 0), np.asarray(after.observation))


# --------------------------------------------------------------------------- the pgx-style env


@pytest.fixture(scope="module")
def solo_env():
    env = empire_jax.make("EmpireSolo-v0")
    return env, jax.jit(env.init), jax.jit(env.step)


def test_pgx_style_env_has_pgx_fields_and_handles(solo_env):
    env, init, step = solo_env
    state = init(jax.random.PRNGKey(0))
    for name in ("current_player", "observation", "rewards", "terminated", "truncated", "legal_action_mask"):
        assert hasattr(state, name)
    assert state.observation.shape == env.observation_shape == (207,) and env.num_actions == 68
    assert state.rewards.shape == (1,) and int(state.current_player) == 0


def test_an_illegal_action_in_a_compiled_loop_ends_the_game_with_the_penalty(solo_env):
    env, init, step = solo_env
    state = init(jax.random.PRNGKey(0))
    illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    after = step(state, jnp.int32(illegal), jax.random.PRNGKey(1))
    assert bool(after.terminated) and float(after.rewards[0]) == -1.0
    assert env.outcome(after) == "illegal action"
    assert np.asarray(after.legal_action_mask).all(), "a finished state's mask is all ones, as in pgx"
    again = step(after, jnp.int32(0), jax.random.PRNGKey(2))
    assert float(again.rewards[0]) == 0.0 and np.array_equal(np.asarray(again.kind), np.asarray(after.kind))


# --------------------------------------------------------------------------- the Gymnasium vector env


@pytest.fixture(scope="module")
def vector_small():
    import gymnasium

    return gymnasium.make_vec("empire_envs/EmpireSolo-v0", num_envs=1, vectorization_mode="vector_entry_point")


def test_make_vec_returns_the_batched_env_with_its_spaces(vector_small):
    import gymnasium
    from gymnasium.vector import AutoresetMode

    env = vector_small
    assert isinstance(env, empire_jax.JaxVectorEnv) and isinstance(env, gymnasium.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.observation_space.shape == (1, 207) and env.single_action_space.n == 68
    python = gymnasium.make("empire_envs/EmpireSolo-v0")
    assert env.single_observation_space == python.observation_space
    assert env.single_action_space == python.action_space
    observation, info = env.reset(seed=3)
    assert observation.dtype == np.float32 and info["action_mask"].dtype == np.int8
    assert np.array_equal(info["action_mask"], env.action_masks())


def _sampled_steps_never_raise_and_every_reset_is_a_fresh_deal(env, steps: int) -> None:
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    deals, finished = set(), 0
    for _ in range(steps):
        mask = info["action_mask"]
        assert mask.any(axis=1).all(), "a mask row is empty"
        action = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        _, _, terminated, truncated, info = env.step(action)
        if (terminated | truncated).any():
            finished += 1
            assert info["final_info"]["outcome"][0] in ("won", "lost", "truncated")
            state = env.state
            assert int(state.step_count[0]) == 0, "the returned game is a new one"
            deals.add(tuple(np.asarray(state.cards)[0, :, 0]) + tuple(np.asarray(state.deck_key)[0]))
    # a random game of Empire solo lasts about 100 decisions: many games end, each dealt afresh
    assert finished > steps // 200 and len(deals) == finished, "every reset deals a game never seen before"


def test_sampled_steps_never_raise_and_every_reset_is_a_fresh_deal(vector_small):
    """A sample of the soak's 20,000 steps: 5,000 host steps, one game at a time."""
    _sampled_steps_never_raise_and_every_reset_is_a_fresh_deal(vector_small, 5_000)


@pytest.mark.soak
def test_twenty_thousand_sampled_steps_never_raise_and_every_reset_is_a_fresh_deal(vector_small):
    _sampled_steps_never_raise_and_every_reset_is_a_fresh_deal(vector_small, 20_000)


def test_a_large_batch_steps_and_autoresets():
    import gymnasium

    env = gymnasium.make_vec("empire_envs/EmpireSolitaire-v0", num_envs=4096, vectorization_mode="vector_entry_point")
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(30):
        mask = info["action_mask"].astype(bool)
        choice = (rng.random(mask.shape) * mask).argmax(axis=1)
        _, reward, terminated, truncated, info = env.step(choice)
        ended += int((terminated | truncated).sum())
        assert info["action_mask"].any(axis=1).all()
    assert ended > 4096, "Solitaire games last at most 23 steps: most ended and were dealt again"


def test_illegal_and_malformed_actions_give_clear_errors_and_change_nothing(vector_small):
    env = vector_small
    observation, info = env.reset(seed=5)
    before = jax.tree_util.tree_map(np.asarray, env.state)
    illegal = int(np.flatnonzero(info["action_mask"][0] == 0)[0])
    with pytest.raises(IllegalActionError, match=rf"env 0: action {illegal} is not legal"):
        env.step(np.array([illegal]))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.array([0, 1]))
    with pytest.raises(ValueError, match="integers"):
        env.step(np.array([0.5]))
    with pytest.raises(ValueError, match="outside"):
        env.step(np.array([68]))
    after = jax.tree_util.tree_map(np.asarray, env.state)
    assert all(
        np.array_equal(a, b)
        for a, b in zip(jax.tree_util.tree_leaves(before), jax.tree_util.tree_leaves(after), strict=True)
    )
    legal = int(np.flatnonzero(info["action_mask"][0])[0])
    env.step(np.array([legal]))  # still plays


def test_penalize_mode_ends_the_game_like_the_compiled_env():
    env = empire_jax.make_vec("EmpireSolo-v0", num_envs=2, illegal_action="penalize")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"][0] == 0)[0])
    legal = int(np.flatnonzero(info["action_mask"][1])[0])
    _, reward, terminated, _, info = env.step(np.array([illegal, legal]))
    assert terminated[0] and reward[0] == -1.0 and info["final_info"]["outcome"][0] == "illegal action"


def test_same_seed_same_games():
    first = empire_jax.make_vec("EmpireSolitaire-v0", num_envs=3)
    second = empire_jax.make_vec("EmpireSolitaire-v0", num_envs=3)
    assert np.array_equal(first.reset(seed=9)[0], second.reset(seed=9)[0])
    assert not np.array_equal(first.reset(seed=9)[0], first.reset(seed=10)[0])
