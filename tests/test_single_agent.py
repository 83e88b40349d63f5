"""``AECSingleAgentEnv`` (one seat of an AEC game as a Gymnasium env) and the SB3 helpers around it,
on PettingZoo's classic tic-tac-toe.

Tic-tac-toe facts used here, read from ``pettingzoo/classic/tictactoe/{tictactoe,board}.py``:

- seats ``player_1`` (X, moves first) and ``player_2`` (O); a win is +1 / -1, a draw 0 / 0;
- action ``a`` marks cell ``a`` of ``board.squares``, laid out column-major on screen
  (``0 3 6 / 1 4 7 / 2 5 8``: ``a = col * 3 + row``); the winning lines are (0,1,2), (3,4,5),
  (6,7,8) (columns), (0,3,6), (1,4,7), (2,5,8) (rows) and the diagonals (0,4,8), (2,4,6);
- ``observe(seat)`` is ``squares.reshape(3, 3)`` split in two int8 planes, plane 0 the observing
  seat's own marks and plane 1 the other seat's, so ``obs.reshape(9, 2)[a]`` is cell ``a`` from
  that seat's perspective;
- the mask is int8, the empty cells for the seat to move and all zeros for the other seat; a
  cell is empty iff both its planes are 0.

``test_tictactoe_facts_this_file_relies_on`` checks these on the raw env before anything uses them.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from pettingzoo.classic import tictactoe_v3

from empire_envs.adapters.single_agent import AECSingleAgentEnv
from empire_envs.agents.base import Agent, RandomAgent
from empire_envs.core.errors import IllegalActionError

TTT = "classic/tictactoe-v3"
SEATS = ("player_1", "player_2")
OTHER = {"player_1": "player_2", "player_2": "player_1"}

# Scripted games as (X's cells, O's cells), X moving first.
X_WINS = ([0, 1, 2], [3, 4])  # X fills column 0 with the 5th move
O_WINS = ([0, 1, 8], [3, 4, 5])  # O fills column 1 with the 6th move
DRAW = ([0, 6, 1, 5, 8], [3, 4, 7, 2])  # X O X / X O O / O X X on screen: full, no line


# --------------------------------------------------------------------------- helpers


class ScriptedAgent(Agent):
    """Plays a fixed list of cells; refuses (AssertionError) to play a cell its mask forbids."""

    name = "scripted"

    def __init__(self, cells: list[int]) -> None:
        self.cells = list(cells)
        self.played: list[int] = []
        self.seen: list[tuple[np.ndarray, np.ndarray, Any]] = []
        self.resets: list[int | None] = []

    def reset(self, seed: int | None = None) -> None:
        self.played = []
        self.seen = []
        self.resets.append(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        cell = self.cells[len(self.played)]
        assert action_mask[cell] == 1, f"script error: cell {cell} is not legal in {action_mask}"
        self.played.append(cell)
        self.seen.append((np.array(observation), np.array(action_mask), state))  # copies
        return cell


class RecordingAgent(Agent):
    """Wraps an agent and appends every move it makes to a shared move log."""

    name = "recording"

    def __init__(self, inner: Agent, log: list[int]) -> None:
        self.inner = inner
        self.log = log

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        move = self.inner.act(observation, action_mask, state)
        self.log.append(int(move))
        return move


def make_env(**kwargs: Any) -> AECSingleAgentEnv:
    return AECSingleAgentEnv(tictactoe_v3.env(), **kwargs)


def replay(moves: list[int]) -> Any:
    """An independent tic-tac-toe env with ``moves`` played from the start."""
    ref = tictactoe_v3.env()
    ref.reset()
    for move in moves:
        ref.step(move)
    return ref


def cells(obs: np.ndarray) -> np.ndarray:
    """(9, 2): row ``a`` is cell ``a`` as (own mark, other seat's mark)."""
    return np.asarray(obs).reshape(9, 2)


def empty_cells(obs: np.ndarray) -> np.ndarray:
    return (cells(obs) == 0).all(axis=1).astype(np.int8)


def scripted_episode(seat: str, game: tuple[list[int], list[int]], **kwargs: Any):
    """The learner plays its side of ``game`` from ``seat``; a ScriptedAgent plays the other."""
    x_cells, o_cells = game
    mine, theirs = (x_cells, o_cells) if seat == "player_1" else (o_cells, x_cells)
    opponent = ScriptedAgent(theirs)
    env = make_env(learner_seat=seat, opponents=opponent, **kwargs)
    first = env.reset(seed=0)
    results = [env.step(cell) for cell in mine]
    return env, opponent, first, results


def legal(mask: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.asarray(mask))


# --------------------------------------------------------------------------- ground truth


def test_tictactoe_facts_this_file_relies_on():
    ref = tictactoe_v3.env()
    ref.reset()
    assert ref.possible_agents == list(SEATS) and ref.agent_selection == "player_1"
    space = ref.observation_space("player_1")
    assert space["observation"].shape == (3, 3, 2) and space["observation"].dtype == np.int8
    for a in range(9):
        ref = replay([a])
        assert ref.agent_selection == "player_2"
        assert tuple(cells(ref.observe("player_1")["observation"])[a]) == (1, 0)
        assert tuple(cells(ref.observe("player_2")["observation"])[a]) == (0, 1)
        assert ref.observe("player_2")["observation"][a // 3, a % 3, 1] == 1
        mask = ref.observe("player_2")["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (9,)
        assert np.array_equal(mask, empty_cells(ref.observe("player_2")["observation"]))
        assert not ref.observe("player_1")["action_mask"].any()  # not its turn: all zeros
    # The scripted games end as their names say.
    for game, rewards, length in ((X_WINS, (1, -1), 5), (O_WINS, (-1, 1), 6), (DRAW, (0, 0), 9)):
        x_cells, o_cells = game
        moves = [m for pair in zip(x_cells, o_cells + [None], strict=False) for m in pair if m is not None]
        assert len(moves) == length
        ref = replay(moves[:-1])
        assert not any(ref.terminations.values())
        ref.step(moves[-1])
        assert all(ref.terminations.values())
        assert (ref.rewards["player_1"], ref.rewards["player_2"]) == rewards


# --------------------------------------------------------------------------- terminal rewards


@pytest.mark.parametrize(
    "seat, game",
    [("player_2", X_WINS), ("player_1", O_WINS)],
    ids=["learner-O-loses-on-X-move", "learner-X-loses-on-O-move"],
)
def test_terminal_reward_reaches_learner_when_the_opponent_makes_the_final_move(seat, game):
    env, opponent, _, results = scripted_episode(seat, game)
    theirs = game[0] if seat == "player_2" else game[1]
    assert opponent.played == theirs  # the opponent made the last, winning move
    for _obs, reward, terminated, truncated, info in results[:-1]:
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert info["action_mask"].any()
    obs, reward, terminated, truncated, info = results[-1]
    assert reward == -1.0 and isinstance(reward, float)
    assert terminated is True and truncated is False
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (9,)
    assert not info["action_mask"].any()
    assert not env.action_masks().any() and env.action_masks().shape == (9,)
    assert info["is_success"] is False
    assert info["seat"] == seat
    # The last observation is the learner's view of the final board: the winning line is theirs.
    assert all(tuple(cells(obs)[c]) == (0, 1) for c in theirs)
    empty = int(legal(empty_cells(obs))[0])
    with pytest.raises(ResetNeeded):
        env.step(empty)
    assert not env.action_masks().any()
    obs, info = env.reset(seed=1)  # and the env is usable again
    assert info["action_mask"].any()


@pytest.mark.parametrize(
    "seat, game, reward, success",
    [
        ("player_1", X_WINS, 1.0, True),
        ("player_2", O_WINS, 1.0, True),
        ("player_1", DRAW, 0.0, False),  # the learner makes the last move
        ("player_2", DRAW, 0.0, False),  # the opponent makes the last move
    ],
    ids=["X-wins-own-move", "O-wins-own-move", "draw-learner-last", "draw-opponent-last"],
)
def test_win_on_own_move_and_draw(seat, game, reward, success):
    env, opponent, _, results = scripted_episode(seat, game)
    for _obs, r, terminated, truncated, _info in results[:-1]:
        assert (r, terminated, truncated) == (0.0, False, False)
    obs, r, terminated, truncated, info = results[-1]
    assert r == reward and terminated is True and truncated is False
    assert info["is_success"] is success
    assert not info["action_mask"].any() and not env.action_masks().any()
    if game is DRAW:
        assert not empty_cells(obs).any()  # the learner sees the full board
    with pytest.raises(ResetNeeded):
        env.step(0)


# --------------------------------------------------------------------------- masks, observations


@pytest.mark.parametrize("seat", SEATS)
def test_masks_and_observations_match_an_independent_replay(seat):
    moves: list[int] = []
    env = make_env(learner_seat=seat, opponents=RecordingAgent(RandomAgent(), moves))
    assert env.observation_space == tictactoe_v3.env().observation_space(seat)["observation"]
    assert env.action_space.n == 9
    rng = np.random.default_rng(123)
    decisions = terminals = 0
    for seed in range(10):
        moves.clear()
        obs, info = env.reset(seed=seed)
        while True:
            ref = replay(moves)
            assert ref.agent_selection == seat and not any(ref.terminations.values())
            expected = ref.observe(seat)
            assert info["seat"] == seat
            assert obs.dtype == np.int8 and obs.shape == (3, 3, 2) and obs in env.observation_space
            assert np.array_equal(obs, expected["observation"])
            mask = info["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (9,)
            assert np.array_equal(mask, expected["action_mask"])
            assert np.array_equal(mask, empty_cells(obs))
            now = env.action_masks()
            assert now.dtype == np.int8 and np.array_equal(now, expected["action_mask"])
            # The masks handed out are copies: writing into them changes nothing in the env.
            choices = legal(mask)
            mask[:] = 1 - mask
            now[:] = 0
            assert np.array_equal(env.action_masks(), expected["action_mask"])
            decisions += 1
            cell = int(rng.choice(choices))
            moves.append(cell)
            obs, reward, terminated, truncated, info = env.step(cell)
            assert truncated is False
            if terminated:
                ref = replay(moves)
                assert all(ref.terminations.values())
                assert np.array_equal(obs, ref.observe(seat)["observation"])
                assert reward == ref.rewards[seat]
                assert info["is_success"] is (ref.rewards[seat] > 0)
                assert not info["action_mask"].any() and not env.action_masks().any()
                terminals += 1
                break
            assert reward == 0.0
    assert terminals == 10 and decisions >= 30


def test_observation_is_the_learner_seats_own_view():
    # Learner O: X (scripted) opens in the centre.
    opponent = ScriptedAgent([4, 8, 6])
    env = make_env(learner_seat="player_2", opponents=opponent)
    obs, _ = env.reset(seed=0)
    expected = np.zeros((9, 2), dtype=np.int8)
    expected[4] = (0, 1)
    assert np.array_equal(cells(obs), expected)
    obs, *_ = env.step(0)
    expected[0] = (1, 0)  # own mark in plane 0
    expected[8] = (0, 1)  # X's reply in plane 1
    assert np.array_equal(cells(obs), expected)
    ref = replay([4, 0, 8])
    assert np.array_equal(obs, ref.observe("player_2")["observation"])
    assert not np.array_equal(obs, ref.observe("player_1")["observation"])  # not X's view
    # The opponent got its own seat's view: its own X in plane 0.
    assert tuple(cells(opponent.seen[1][0])[4]) == (1, 0)
    assert tuple(cells(opponent.seen[1][0])[0]) == (0, 1)

    # Learner X.
    env = make_env(learner_seat="player_1", opponents=ScriptedAgent([4, 8]))
    obs, _ = env.reset(seed=0)
    assert not obs.any()
    obs, *_ = env.step(0)
    assert tuple(cells(obs)[0]) == (1, 0) and tuple(cells(obs)[4]) == (0, 1)
    assert np.array_equal(obs, replay([0, 4]).observe("player_1")["observation"])


# --------------------------------------------------------------------------- illegal actions


def test_illegal_action_raise_leaves_the_env_usable():
    opponent = ScriptedAgent([4, 0, 1])
    env = make_env(learner_seat="player_2", opponents=opponent, illegal_action="raise")
    obs, info = env.reset(seed=0)
    before = env.action_masks()
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(4)  # X's cell
    assert np.array_equal(env.action_masks(), before)
    assert opponent.played == [4]  # nothing moved
    obs, reward, terminated, truncated, info = env.step(8)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert opponent.played == [4, 0]
    assert np.array_equal(obs, replay([4, 8, 0]).observe("player_2")["observation"])
    for occupied in (0, 4, 8):  # X's, X's, own
        with pytest.raises(IllegalActionError):
            env.step(occupied)
    obs, reward, terminated, truncated, info = env.step(2)
    assert (reward, terminated) == (0.0, False) and opponent.played == [4, 0, 1]
    assert np.array_equal(info["action_mask"], empty_cells(obs))


def test_illegal_action_penalize_ends_the_episode():
    opponent = ScriptedAgent([4, 0, 1])
    env = make_env(
        learner_seat="player_2", opponents=opponent,
        illegal_action="penalize", illegal_action_penalty=-2.5,
    )
    obs_before, _ = env.reset(seed=0)
    obs_before = obs_before.copy()
    obs, reward, terminated, truncated, info = env.step(4)
    assert reward == -2.5
    assert terminated is True and truncated is False
    assert info["outcome"] == "illegal action" and info["illegal_action"] is True
    assert "not legal" in info["illegal_reason"]
    assert info["seat"] == "player_2"
    assert not info["action_mask"].any() and info["action_mask"].dtype == np.int8
    assert np.array_equal(obs, obs_before)  # the board did not change
    assert opponent.played == [4]
    with pytest.raises(ResetNeeded):
        env.step(0)
    obs, info = env.reset(seed=0)
    assert np.array_equal(obs, obs_before) and info["action_mask"].sum() == 8


@pytest.mark.parametrize("mode", ["raise", "penalize"])
@pytest.mark.parametrize(
    "action, error",
    [
        (1.0, TypeError),
        (np.float32(2), TypeError),
        ("3", TypeError),
        (True, TypeError),
        (None, TypeError),
        (np.array([2]), TypeError),
        (9, ValueError),
        (-1, ValueError),
        (np.int64(12), ValueError),
    ],
    ids=repr,
)
def test_malformed_actions_raise_in_both_modes(mode, action, error):
    env = make_env(learner_seat="player_1", opponents=ScriptedAgent([4]), illegal_action=mode)
    env.reset(seed=0)
    with pytest.raises(error):
        env.step(action)
    assert env.action_masks().sum() == 9  # the episode goes on
    _, reward, terminated, _, _ = env.step(0)
    assert (reward, terminated) == (0.0, False)


@pytest.mark.parametrize("action", [np.int64(3), np.int8(3), np.uint8(3), np.array(3)], ids=repr)
def test_numpy_integer_actions_are_accepted(action):
    env = make_env(learner_seat="player_1", opponents=ScriptedAgent([4]))
    env.reset(seed=0)
    obs, *_ = env.step(action)
    assert tuple(cells(obs)[3]) == (1, 0)


def test_reset_is_needed_before_anything_and_options_are_refused():
    env = make_env()
    with pytest.raises(ResetNeeded):
        env.step(0)
    with pytest.raises(ResetNeeded):
        env.action_masks()
    with pytest.raises(ValueError, match="options"):
        env.reset(seed=0, options={"board": [0] * 9})
    env.reset(seed=0, options={})
    with pytest.raises(ValueError, match="illegal_action"):
        make_env(illegal_action="ignore")


# --------------------------------------------------------------------------- seats


@pytest.mark.parametrize(
    "learner_seat, seat",
    [(0, "player_1"), (1, "player_2"), (np.int64(1), "player_2"),
     ("player_1", "player_1"), ("player_2", "player_2")],
    ids=repr,
)
def test_fixed_seat(learner_seat, seat):
    env = make_env(learner_seat=learner_seat)
    for seed in (0, None, 1, None, None):
        _, info = env.reset(seed=seed)
        assert env.learner == seat and info["seat"] == seat
        assert set(env.seat_agents) == {OTHER[seat]}
        assert isinstance(env.seat_agents[OTHER[seat]], RandomAgent)


def test_random_seat_covers_both_seats_deterministically():
    def seats(seeds):
        env = make_env(learner_seat="random")
        return [env.reset(seed=s)[1]["seat"] for s in seeds]

    seeded = seats(range(40))
    assert set(seeded) == set(SEATS)
    assert seats(range(40)) == seeded
    chained = seats([7] + [None] * 39)  # one seed, then the env's own RNG
    assert set(chained) == set(SEATS)
    assert seats([7] + [None] * 39) == chained


@pytest.mark.parametrize("offset", [0, 1, 2, 5])
def test_all_seats_rotate_and_a_seeded_reset_restarts_the_rotation(offset):
    env = make_env(learner_seat="all", seat_offset=offset)
    rotation = [env.reset()[1]["seat"] for _ in range(6)]
    assert rotation == [SEATS[(offset + i) % 2] for i in range(6)]

    obs, info = env.reset(seed=11)
    assert info["seat"] == SEATS[offset % 2] == env.learner
    assert env.reset()[1]["seat"] == SEATS[(offset + 1) % 2]
    assert env.reset()[1]["seat"] == SEATS[offset % 2]
    again, info_again = env.reset(seed=11)
    assert info_again["seat"] == info["seat"] and np.array_equal(again, obs)
    fresh = make_env(learner_seat="all", seat_offset=offset)
    first, first_info = fresh.reset(seed=11)
    assert first_info["seat"] == info["seat"] and np.array_equal(first, obs)
    if info["seat"] == "player_2":  # X has moved already: the same opening for the same seed
        assert cells(obs)[:, 1].sum() == 1


@pytest.mark.parametrize(
    "learner_seat, error, message",
    [
        (3, ValueError, "outside"),
        (-1, ValueError, "outside"),
        ("nobody", ValueError, "not a seat"),
        (1.5, TypeError, "learner_seat"),
        (True, TypeError, "learner_seat"),
        (None, TypeError, "learner_seat"),
    ],
    ids=repr,
)
def test_bad_learner_seat(learner_seat, error, message):
    with pytest.raises(error, match=message):
        make_env(learner_seat=learner_seat)


@pytest.mark.parametrize(
    "learner_seat, opponents, error",
    [
        ("player_1", [], ValueError),
        ("player_1", [RandomAgent()] * 3, ValueError),
        ("random", [RandomAgent()], ValueError),
        ("all", [RandomAgent()], ValueError),
        ("player_1", [RandomAgent(), object()], TypeError),
        (0, [object()], TypeError),
        ("player_1", object(), TypeError),
        ("player_1", "random", TypeError),
    ],
    ids=["empty", "too-many", "n-1-random", "n-1-all", "non-agent-in-n",
         "non-agent-in-n-1", "non-agent", "a-string"],
)
def test_bad_opponents(learner_seat, opponents, error):
    with pytest.raises(error):
        make_env(learner_seat=learner_seat, opponents=opponents)


def test_opponent_lists_map_to_seats():
    x_agent, o_agent = ScriptedAgent([4]), ScriptedAgent([4])
    env = make_env(learner_seat="all", opponents=[x_agent, o_agent])  # one per seat
    for _ in range(4):
        _, info = env.reset()
        other = OTHER[info["seat"]]
        assert env.seat_agents == {other: x_agent if other == "player_1" else o_agent}
    only = ScriptedAgent([4])
    env = make_env(learner_seat=0, opponents=[only])  # one per other seat
    env.reset(seed=0)
    assert env.seat_agents == {"player_2": only}


# --------------------------------------------------------------------------- determinism


def _trajectories(env: AECSingleAgentEnv, seeds: list[int | None], policy_seed: int):
    rng = np.random.default_rng(policy_seed)
    out = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        episode: list[Any] = [info["seat"], obs.tobytes()]
        while True:
            cell = int(rng.choice(legal(env.action_masks())))
            obs, reward, terminated, truncated, info = env.step(cell)
            episode += [cell, obs.tobytes(), reward, terminated, truncated]
            if terminated or truncated:
                break
        out.append(episode)
    return out


@pytest.mark.parametrize("learner_seat", ["random", "all", "player_2"])
def test_same_seed_same_trajectory(learner_seat):
    seeds = [3, None, None, 4, None, 3]
    a = _trajectories(make_env(learner_seat=learner_seat), seeds, policy_seed=0)
    b = _trajectories(make_env(learner_seat=learner_seat), seeds, policy_seed=0)
    assert a == b
    assert a[5][:2] == a[0][:2]  # reseeding with 3: the same seat and first observation again
    # A fresh env with seed 3 and the same learner moves replays the first episode exactly.
    assert _trajectories(make_env(learner_seat=learner_seat), [3], policy_seed=0) == a[:1]
    other = _trajectories(make_env(learner_seat=learner_seat), [100, 101, 102], policy_seed=0)
    assert other != a[:3]  # the seeds matter at all


# --------------------------------------------------------------------------- env checkers

# The only warnings the checkers may raise on this env, each for a known, harmless reason:
GYMNASIUM_TOLERATED = [
    # the env is built directly, not through gymnasium.make, so it has no spec
    r"Not able to test alternative render modes due to the environment not having a spec",
]
SB3_TOLERATED = [
    # tic-tac-toe's (3, 3, 2) int8 observation looks like an image to SB3's checker
    r"It seems that your observation\s+is an image but its `dtype` is \(int8\)",
    r"It seems that your observation space\s+is an image but the upper and lower bounds",
    r"The minimal resolution for an image is 36x36",
]


def _run_checker(check, tolerated: list[str]) -> list[str]:
    env = make_env(illegal_action="penalize")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(env)
    messages = [str(w.message) for w in caught]
    unexpected = [m for m in messages if not any(re.search(p, m) for p in tolerated)]
    assert not unexpected, unexpected
    return messages


def test_gymnasium_env_checker_passes():
    from gymnasium.utils.env_checker import check_env

    _run_checker(check_env, GYMNASIUM_TOLERATED)


def test_sb3_env_checker_passes():
    from stable_baselines3.common.env_checker import check_env

    messages = _run_checker(check_env, SB3_TOLERATED)
    assert messages  # the image warnings do come: the filter above is not vacuous


# --------------------------------------------------------------------------- opponent sources


class CountingSource:
    """An OpponentSource with an ``update`` method, recording what it is asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.given: list[Agent] = []
        self.updates: list[tuple[tuple, dict]] = []

    def __call__(self, seat: str, rng: np.random.Generator) -> Agent:
        assert isinstance(rng, np.random.Generator)
        self.calls.append((seat, rng))
        agent = RandomAgent()
        self.given.append(agent)
        return agent

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.updates.append((args, kwargs))


def test_callable_opponent_source_is_called_once_per_other_seat_per_reset():
    source = CountingSource()
    env = make_env(learner_seat="all", opponents=source)
    for i, seed in enumerate([0, None, None, 5, None]):
        _, info = env.reset(seed=seed)
        assert len(source.calls) == i + 1
        seat, rng = source.calls[-1]
        assert seat == OTHER[info["seat"]]
        assert rng is env.np_random
        assert env.seat_agents == {seat: source.given[-1]}
    env.update_opponents({"snapshot": 1}, note="x")
    assert source.updates == [(({"snapshot": 1},), {"note": "x"})]


def test_update_opponents_needs_an_update_method():
    calls = []

    def source(seat, rng):
        calls.append(seat)
        return RandomAgent()

    for opponents in (source, None, RandomAgent(), [RandomAgent(), RandomAgent()]):
        env = make_env(learner_seat="all", opponents=opponents)
        env.reset(seed=0)
        with pytest.raises(TypeError, match="take no updates"):
            env.update_opponents({})
    assert calls == ["player_2"]


def test_an_opponent_source_giving_a_non_agent_fails_at_reset():
    env = make_env(learner_seat=0, opponents=lambda seat, rng: "random")
    with pytest.raises(TypeError, match="not an Agent"):
        env.reset(seed=0)


# --------------------------------------------------------------------------- SB3 vector envs


@pytest.mark.parametrize("kind", ["dummy", "subproc"])
def test_vec_env_masks_follow_observations_through_auto_resets(kind):
    from sb3_contrib.common.maskable.utils import get_action_masks

    from empire_envs.training.sb3 import audit_totals, build_vec_env

    steps = 120
    venv = build_vec_env(TTT, n_envs=2, seed=0, vec_env=kind, audit=True)
    try:
        obs = venv.reset()
        # learner_seat "all" with seat_offset = rank: the copies start on different seats.
        assert venv.get_attr("learner") == ["player_1", "player_2"]
        assert [info["seat"] for info in venv.reset_infos] == ["player_1", "player_2"]
        assert venv.get_attr("seat_offset") == [0, 1]
        rng = np.random.default_rng(0)
        episodes = [0, 0]
        masks = get_action_masks(venv)
        for _ in range(steps):
            assert masks.shape == (2, 9)
            for i in range(2):
                assert np.array_equal(masks[i].astype(np.int8), empty_cells(obs[i])), i
            actions = np.array([rng.choice(legal(m)) for m in masks])
            obs, rewards, dones, infos = venv.step(actions)
            masks = get_action_masks(venv)  # read after the step: the new episode's, if one ended
            for i in range(2):
                if dones[i]:
                    episodes[i] += 1
                    assert infos[i]["terminal_observation"].shape == (3, 3, 2)
                    assert rewards[i] in (-1.0, 0.0, 1.0)
                    assert "episode" in infos[i]  # Monitor saw the whole episode
            assert venv.get_attr("learner") == [SEATS[(r + episodes[r]) % 2] for r in range(2)]
        for i in range(2):
            assert np.array_equal(masks[i].astype(np.int8), empty_cells(obs[i]))
        assert min(episodes) >= 10  # many auto-resets happened
        assert audit_totals(venv) == (2 * steps, 0)
    finally:
        venv.close()


def test_mask_audit_counts_a_deliberate_violation():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    from empire_envs.training.sb3 import audit_totals, make_env_factory

    venv = DummyVecEnv([make_env_factory(TTT, audit=True, illegal_action="penalize")])
    venv.seed(0)
    obs = venv.reset()
    assert venv.get_attr("learner") == ["player_1"]
    obs, rewards, dones, _ = venv.step(np.array([4]))  # legal: X in the centre, O replies
    assert not dones[0] and audit_totals(venv) == (1, 0)
    mask = get_action_masks(venv)[0]
    taken = np.flatnonzero(mask == 0)
    assert set(taken) == {4, int(np.flatnonzero(cells(obs[0])[:, 1])[0])}
    obs, rewards, dones, infos = venv.step(np.array([taken[0]]))
    assert dones[0] and rewards[0] == -1.0 and infos[0]["outcome"] == "illegal action"
    assert audit_totals(venv) == (2, 1)
    venv.close()


# --------------------------------------------------------------------------- snapshots, self-play


@pytest.fixture(scope="module")
def tiny_model():
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        "MlpPolicy", make_env(learner_seat="all"), n_steps=32, batch_size=32, n_epochs=1,
        policy_kwargs={"net_arch": [8]}, device="cpu", seed=0,
    )


def _marked_snapshot(model, marker: float) -> dict:
    """A snapshot of ``model`` whose action-net bias says which one it is."""
    from empire_envs.training.sb3 import policy_snapshot

    snapshot = policy_snapshot(model)
    snapshot["state_dict"]["action_net.bias"][:] = marker
    return snapshot


def _random_masks(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    masks = []
    while len(masks) < n:
        mask = (rng.random(9) < rng.uniform(0.1, 0.9)).astype(np.int8)
        if mask.any():
            masks.append(mask)
    return masks


def test_snapshot_pool_keeps_the_last_size_policies(tiny_model):
    import torch

    from empire_envs.training.sb3 import PolicyAgent, SnapshotPool

    pool = SnapshotPool(size=2)
    assert isinstance(pool.agent(np.random.default_rng(0)), RandomAgent)  # before any update
    for marker in (1.0, 2.0, 3.0):
        pool.update(_marked_snapshot(tiny_model, marker))
    assert pool.updates == 3 and len(pool.policies) == 2
    biases = [float(p.state_dict()["action_net.bias"][0]) for p in pool.policies]
    assert biases == [2.0, 3.0]
    # Frozen copies: training the model further does not reach them.
    saved = tiny_model.policy.action_net.bias.detach().clone()
    try:
        with torch.no_grad():
            tiny_model.policy.action_net.bias.fill_(42.0)
        assert [float(p.state_dict()["action_net.bias"][0]) for p in pool.policies] == [2.0, 3.0]
    finally:
        with torch.no_grad():
            tiny_model.policy.action_net.bias.copy_(saved)
    agent = pool.agent(np.random.default_rng(0))
    assert isinstance(agent, PolicyAgent) and any(agent.policy is p for p in pool.policies)
    with pytest.raises(ValueError):
        SnapshotPool(size=0)
    with pytest.raises(ValueError):
        SnapshotPool(latest_probability=1.5)


def test_policy_agent_is_legal_and_repeatable(tiny_model):
    from empire_envs.training.sb3 import PolicyAgent, SnapshotPool

    pool = SnapshotPool(size=2)
    pool.update(_marked_snapshot(tiny_model, 0.0))
    rng = np.random.default_rng(1)
    masks = _random_masks(rng, 300)
    observations = [rng.integers(0, 2, size=(3, 3, 2)).astype(np.int8) for _ in masks]

    def play(agent: Agent, seed: int) -> list[int]:
        agent.reset(seed=seed)
        return [agent.act(o, m) for o, m in zip(observations, masks, strict=True)]

    agent = pool.agent(np.random.default_rng(0))
    assert isinstance(agent, PolicyAgent)
    first = play(agent, seed=5)
    assert all(masks[i][a] == 1 for i, a in enumerate(first))
    assert play(agent, seed=5) == first
    assert play(pool.agent(np.random.default_rng(0)), seed=5) == first
    assert play(agent, seed=6) != first  # it does sample

    # A policy that wants cell 7 above all never takes it where it is masked out.
    biased = _marked_snapshot(tiny_model, 0.0)
    biased["state_dict"]["action_net.bias"][7] = 50.0
    pool.update(biased)
    for deterministic in (False, True):
        agent = PolicyAgent(pool.policies[-1], deterministic=deterministic, seed=0)
        actions = [agent.act(o, m) for o, m in zip(observations, masks, strict=True)]
        assert all(masks[i][a] == 1 for i, a in enumerate(actions))
        assert all(a == 7 for i, a in enumerate(actions) if masks[i][7])


def test_opponent_mix_draws_every_kind(tiny_model):
    from empire_envs.training.sb3 import OpponentMix, PolicyAgent

    mix = OpponentMix(["random", "self"], "tictactoe_v3")
    mix.update(_marked_snapshot(tiny_model, 0.0))
    assert mix.pool.updates == 1
    rng = np.random.default_rng(0)
    drawn = [mix("player_2", rng) for _ in range(100)]
    randoms = [a for a in drawn if isinstance(a, RandomAgent)]
    policies = [a for a in drawn if isinstance(a, PolicyAgent)]
    assert randoms and policies and len(randoms) + len(policies) == 100
    assert all(a is randoms[0] for a in randoms)  # "random" is built once per seat
    other_seat = [a for a in (mix("player_1", rng) for _ in range(50)) if type(a) is RandomAgent]
    assert other_seat and all(a is other_seat[0] is not randoms[0] for a in other_seat)
    with pytest.raises(ValueError):
        OpponentMix([], "tictactoe_v3")
    with pytest.raises(ValueError):
        OpponentMix(["no-such-agent"], "tictactoe_v3")


def test_self_play_callback_pushes_snapshots_on_schedule():
    from sb3_contrib import MaskablePPO

    from empire_envs.training.sb3 import PolicyAgent, SelfPlayCallback, build_vec_env

    n_envs, n_steps, total, every = 2, 64, 300, 100
    venv = build_vec_env(TTT, n_envs=n_envs, seed=0, opponents=["self"])
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=n_steps, batch_size=64, n_epochs=1,
        policy_kwargs={"net_arch": [8]}, device="cpu", seed=0,
    )
    callback = SelfPlayCallback(every=every)
    model.learn(total_timesteps=total, callback=callback)

    # Expected from the callback's rule: one push at the start, then one at each step where the
    # timesteps since the last push reach `every`; learn() runs whole rollouts of n_steps per env.
    rollout = n_steps * n_envs
    final = -(-total // rollout) * rollout
    expected, last = 1, 0
    for t in range(n_envs, final + 1, n_envs):
        if t - last >= every:
            expected, last = expected + 1, t
    assert model.num_timesteps == final
    assert callback.snapshots == expected
    opponents = venv.get_attr("opponents")
    assert [o.pool.updates for o in opponents] == [expected] * n_envs
    assert [len(o.pool.policies) for o in opponents] == [min(expected, 5)] * n_envs
    for seat_agents in venv.get_attr("seat_agents"):  # the episodes now face snapshots
        assert all(isinstance(a, PolicyAgent) for a in seat_agents.values())
    with pytest.raises(ValueError):
        SelfPlayCallback(every=0)
    venv.close()


# --------------------------------------------------------------------------- regressions
# Each of these once failed against an earlier single_agent.py.


def test_action_masks_is_all_zero_after_a_penalized_illegal_action():
    """A "penalize" end clears the mask like every other episode end."""
    env = make_env(learner_seat="player_2", opponents=ScriptedAgent([4]), illegal_action="penalize")
    env.reset(seed=0)
    _, _, terminated, _, info = env.step(4)
    assert terminated and not info["action_mask"].any()
    assert not env.action_masks().any(), env.action_masks()


def test_penalized_last_step_reports_is_success():
    """SB3 counts only episodes whose last info has ``is_success``: an illegal-action end must
    report it too, or those losses would drop out of the success rate."""
    env = make_env(learner_seat="player_2", opponents=ScriptedAgent([4]), illegal_action="penalize")
    env.reset(seed=0)
    *_, info = env.step(4)
    assert info.get("is_success") is False


def test_pettingzoo_opponents_get_no_bound_state_method():
    """Every ``AECEnv`` has a ``state()`` method (PettingZoo's global-state API): agents must get
    the game's ``game_state`` or None, never that bound method."""
    opponent = ScriptedAgent([4, 0])
    env = make_env(learner_seat="player_2", opponents=opponent)
    env.reset(seed=0)
    env.step(8)
    assert env.state is None
    assert [state for _obs, _mask, state in opponent.seen] == [None, None]


def test_the_default_passes_gymnasiums_check_env():
    """One default for illegal actions across the package: a Gymnasium env penalizes them, so
    ``check_env`` (which steps unmasked random actions) passes on this one as it does on ours."""
    from gymnasium.utils.env_checker import check_env

    import empire_envs

    env = AECSingleAgentEnv(empire_envs.make("empire_envs/MapDuel-v0"), learner_seat="all")
    assert env.illegal_action == "penalize"
    check_env(env, skip_render_check=True)
