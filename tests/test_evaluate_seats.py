"""``evaluate`` in multiplayer envs: each deal played from every seat (``seat_rotation="deal"``),
the older scheme kept (``"episode"``), the chance level, and the mean finishing rank for more
than two seats (scripted on a small AEC env of this file, whose returns and places are known)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import AECEnv

from empire_envs.adapters.single_agent import AECSingleAgentEnv
from empire_envs.cli import main as cli_main
from empire_envs.core.agent import Agent, RandomAgent
from empire_envs.evaluation import evaluate as evaluate_module
from empire_envs.evaluation.evaluate import (
    OUTCOME_KEYS,
    episode_deal_and_seat,
    evaluate_agent,
    finishing_rank,
    format_table,
    mean_interval,
)

MAP_DUEL = "empire_envs/MapDuel-v0"
PILLARS = "empire_envs/Pillars-v0"
SOLO = "empire_envs/EmpireSolo-v0"
#: Pillars games cut short, so a test plays a few whole episodes in a second
SHORT_PILLARS = {"length_limit": 4}


# --------------------------------------------------------------------------- spies


class SpyAgent(RandomAgent):
    """A random agent that records every ``reset`` seed it gets (class-wide, cleared per test)."""

    resets: list[int | None] = []

    def reset(self, seed: int | None = None) -> None:
        SpyAgent.resets.append(seed)
        super().reset(seed)


SPY = f"{__name__}:SpyAgent"


class Record:
    """What the spied env saw at each episode: the seed of the env's reset, the learner's seat,
    the seed of the AEC env's own reset, the deal (the game's first state as text) and the seeds
    each opponent seat was reset with."""

    def __init__(self) -> None:
        self.env_seeds: list[int] = []
        self.seats: list[str] = []
        self.aec_seeds: list[int] = []
        self.deals: list[str] = []
        self.opponent_seeds: list[dict[str, int]] = []


@pytest.fixture
def record(monkeypatch: pytest.MonkeyPatch) -> Record:
    """Spy on the env ``evaluate_agent`` builds, without changing what it plays."""
    seen = Record()
    SpyAgent.resets = []
    real_make_eval_env = evaluate_module.make_eval_env

    def spying_make_eval_env(*args: Any, **kwargs: Any) -> tuple[Any, str]:
        env, name = real_make_eval_env(*args, **kwargs)
        if not isinstance(env, AECSingleAgentEnv):
            return env, name
        aec = env.aec
        real_aec_reset = aec.reset
        game = aec.unwrapped.game

        def aec_reset(*reset_args: Any, **reset_kwargs: Any) -> Any:
            out = real_aec_reset(*reset_args, **reset_kwargs)
            seen.aec_seeds.append(reset_kwargs["seed"])
            seen.deals.append(game.to_text(aec.unwrapped.game_state))
            return out

        aec.reset = aec_reset
        for seat_index, opponent in enumerate(env.opponents):
            real_opponent_reset = opponent.reset

            def opponent_reset(seed: int | None = None, _seat: str = env.seats[seat_index], _real=real_opponent_reset):
                seen.opponent_seeds[-1][_seat] = seed
                _real(seed=seed)

            opponent.reset = opponent_reset
        real_reset = env.reset

        def reset(*, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
            seen.opponent_seeds.append({})
            obs, info = real_reset(seed=seed, options=options)
            seen.env_seeds.append(seed)
            seen.seats.append(info["seat"])
            return obs, info

        env.reset = reset
        return env, name

    monkeypatch.setattr(evaluate_module, "make_eval_env", spying_make_eval_env)
    return seen


# --------------------------------------------------------------------------- the deal rotation


@pytest.mark.parametrize(
    ("env_id", "env_kwargs", "seats"),
    [(MAP_DUEL, {"length_limit": 2}, ["player_0", "player_1"]), (PILLARS, SHORT_PILLARS, None)],
    ids=["map_duel", "pillars"],
)
def test_each_deal_is_played_once_from_every_seat(record: Record, env_id, env_kwargs, seats) -> None:
    seed = 11
    episodes = 8
    result = evaluate_agent(env_id, SPY, episodes, seed=seed, env_kwargs=env_kwargs)
    names = sorted(set(record.seats))
    n = len(names)
    if seats is not None:
        assert names == seats
    assert result["seats"] == n and result["seat_rotation"] == "deal"
    assert episodes % n == 0
    assert result["deals"] == episodes // n
    assert record.env_seeds == [seed + i // n for i in range(episodes)]
    assert record.seats == [names[i % n] for i in range(episodes)]  # seat order is possible_agents
    assert SpyAgent.resets == [seed + i // n for i in range(episodes)]
    for deal in range(episodes // n):
        block = range(deal * n, deal * n + n)
        assert {record.seats[i] for i in block} == set(names)  # every seat once
        assert len({record.aec_seeds[i] for i in block}) == 1  # the same deal...
        assert len({record.deals[i] for i in block}) == 1  # ... the same first state
        # the opponents' seeds: the same n - 1 seeds on the seats that are not the agent's
        seed_sets = {tuple(sorted(record.opponent_seeds[i].values())) for i in block}
        assert len(seed_sets) == 1
        for i in block:
            assert set(record.opponent_seeds[i]) == set(names) - {record.seats[i]}
    assert len(set(record.aec_seeds)) == episodes // n  # and the deals differ from each other


def test_two_seats_give_the_opponent_the_same_seed_on_both_seats_of_a_deal(record: Record) -> None:
    evaluate_agent(MAP_DUEL, "random", 4, seed=3, env_kwargs={"length_limit": 2})
    seeds = [next(iter(seen.values())) for seen in record.opponent_seeds]
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3] and seeds[0] != seeds[2]


def test_episode_rotation_keeps_the_older_seats_and_seeds(record: Record) -> None:
    seed = 5
    result = evaluate_agent(PILLARS, SPY, 6, seed=seed, env_kwargs=SHORT_PILLARS, seat_rotation="episode")
    names = sorted(set(record.seats))
    assert len(names) == 4 and result["seat_rotation"] == "episode" and result["deals"] == 6
    assert record.env_seeds == [seed + i for i in range(6)]
    assert record.seats == [names[i % 4] for i in range(6)]
    assert SpyAgent.resets == [seed + i for i in range(6)]
    assert len(set(record.aec_seeds)) == 6


def older_scheme(env_id: str, episodes: int, seed: int, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The loop of ``evaluate_agent`` before the deal rotation, written out again: random against
    random, episode ``i`` on ``reset(seed=seed + i)`` from seat ``i mod N``."""
    env, name = evaluate_module.make_eval_env(env_id, env_kwargs, None, seed)
    agent = RandomAgent(seed)
    counts = dict.fromkeys(OUTCOME_KEYS.values(), 0)
    total_return = 0.0
    steps = 0
    for i in range(episodes):
        env.seat_offset = i
        obs, info = env.reset(seed=seed + i)
        agent.reset(seed=seed + i)
        while True:
            obs, reward, terminated, truncated, info = env.step(agent.act(obs, info["action_mask"]))
            steps += 1
            total_return += float(reward)
            if terminated or truncated:
                counts[OUTCOME_KEYS[evaluate_module.episode_outcome(info, float(reward), truncated)]] += 1
                break
    env.close()
    return {**counts, "total_steps": steps, "mean_return": total_return / episodes}


@pytest.mark.parametrize(
    ("env_id", "env_kwargs"),
    [(MAP_DUEL, {"length_limit": 3}), (PILLARS, {"length_limit": 6})],
    ids=["map_duel", "pillars"],
)
def test_episode_rotation_reproduces_the_older_results(env_id, env_kwargs) -> None:
    expected = older_scheme(env_id, 6, 2, env_kwargs)
    result = evaluate_agent(env_id, "random", 6, seed=2, env_kwargs=env_kwargs, seat_rotation="episode")
    assert {key: result[key] for key in expected} == expected
    deal = evaluate_agent(env_id, "random", 6, seed=2, env_kwargs=env_kwargs)
    assert deal["deals"] < result["deals"]  # the default plays other episodes


def test_a_one_seat_env_plays_the_same_episodes_under_either_rotation(record: Record) -> None:
    by_deal = evaluate_agent(SOLO, SPY, 4, seed=7)
    by_episode = evaluate_agent(SOLO, SPY, 4, seed=7, seat_rotation="episode")
    assert SpyAgent.resets == [7, 8, 9, 10] * 2
    for key in ("wins", "losses", "total_steps", "mean_return"):
        assert by_deal[key] == by_episode[key]
    assert by_deal["seats"] == 1 and by_deal["seat_rotation"] is None and by_deal["deals"] == 4
    assert by_deal["chance_win_rate"] is None and by_deal["mean_rank"] is None


def test_episode_deal_and_seat() -> None:
    assert [episode_deal_and_seat(i, 10, 3) for i in range(7)] == [
        (10, 0), (10, 1), (10, 2), (11, 0), (11, 1), (11, 2), (12, 0)
    ]
    assert [episode_deal_and_seat(i, 10, 3, "episode") for i in range(4)] == [(10, 0), (11, 1), (12, 2), (13, 0)]
    assert [episode_deal_and_seat(i, 0, 1) for i in range(3)] == [(0, 0), (1, 0), (2, 0)]


# --------------------------------------------------------------------------- bad input


def test_an_unknown_seat_rotation_is_refused() -> None:
    with pytest.raises(ValueError, match=r"seat_rotation must be one of \('deal', 'episode'\), got 'seat'"):
        evaluate_agent(MAP_DUEL, "random", 1, seat_rotation="seat")
    with pytest.raises(ValueError, match="seat_rotation"):
        episode_deal_and_seat(0, 0, 2, "Deal")
    with pytest.raises(ValueError, match="at least one seat"):
        episode_deal_and_seat(0, 0, 0)


@pytest.mark.parametrize("value", ["seat", "DEAL", ""])
def test_the_cli_refuses_an_unknown_seat_rotation(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["evaluate", "--env", MAP_DUEL, "--episodes", "1", "--seat-rotation", value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--seat-rotation: invalid choice" in err and "'deal', 'episode'" in err


def test_the_cli_passes_the_seat_rotation(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    seen: list[str] = []
    real = evaluate_module.evaluate_agent

    def spy(*args: Any, **kwargs: Any) -> dict[str, Any]:
        seen.append(kwargs["seat_rotation"])
        return real(*args, **kwargs)

    monkeypatch.setattr("empire_envs.cli.evaluation_commands.evaluate_agent", spy)
    common = ["evaluate", "--env", MAP_DUEL, "--episodes", "2", "--env-kwarg", "length_limit=2"]
    assert cli_main(common) == 0
    assert cli_main([*common, "--seat-rotation", "episode"]) == 0
    assert seen == ["deal", "episode"]
    out = capsys.readouterr().out
    assert "each deal played from every seat, deals 0..0" in out
    assert "seats in turn, seeds 0..1" in out


# --------------------------------------------------------------------------- chance level


def test_the_chance_level_is_stated_for_multiplayer_envs(capsys: pytest.CaptureFixture[str]) -> None:
    duel = evaluate_agent(MAP_DUEL, "random", 2, env_kwargs={"length_limit": 2})
    pillars = evaluate_agent(PILLARS, "random", 4, env_kwargs=SHORT_PILLARS)
    solo = evaluate_agent(SOLO, "random", 1)
    assert (duel["seats"], duel["chance_win_rate"]) == (2, 0.5)
    assert (pillars["seats"], pillars["chance_win_rate"]) == (4, 0.25)
    assert "chance level with 2 seats: 50.0% of games won" in format_table([duel]).splitlines()[1]
    assert "chance level with 4 seats: 25.0% of games won" in format_table([pillars]).splitlines()[1]
    assert "chance level" not in format_table([solo])
    assert cli_main(["evaluate", "--env", PILLARS, "--env-kwarg", "length_limit=4", "--episodes", "4"]) == 0
    assert "chance level with 4 seats: 25.0% of games won" in capsys.readouterr().out


def test_an_incomplete_last_deal_is_noted() -> None:
    result = evaluate_agent(PILLARS, "random", 6, env_kwargs=SHORT_PILLARS)
    assert result["deals"] == 2
    assert "the last deal was played from the first 2 seat(s) only" in format_table([result])
    complete = evaluate_agent(PILLARS, "random", 4, env_kwargs=SHORT_PILLARS)
    assert "note:" not in format_table([complete])


# --------------------------------------------------------------------------- the finishing rank


def test_finishing_rank_counts_the_seats_strictly_ahead() -> None:
    assert finishing_rank([1.0, -1.0, -1.0, -1.0], 0) == 1
    assert [finishing_rank([1.0, -1.0, -1.0, -1.0], seat) for seat in (1, 2, 3)] == [2, 2, 2]  # ties share
    assert [finishing_rank([0.5, 2.0, 0.5, -3.0], seat) for seat in range(4)] == [2, 1, 2, 4]
    assert finishing_rank([0.0, 0.0, 0.0], 2) == 1
    with pytest.raises(ValueError, match="not one of the 3 seats"):
        finishing_rank([0.0, 0.0, 0.0], 3)


def test_mean_interval_is_the_normal_approximation() -> None:
    low, high = mean_interval([2, 1, 2], 1.0, 3.0)
    half = 1.96 * math.sqrt(1 / 3) / math.sqrt(3)
    assert (low, high) == pytest.approx((5 / 3 - half, 5 / 3 + half))
    assert mean_interval([1, 3], 1.0, 3.0) == (1.0, 3.0)  # clipped to the ranks there are
    assert mean_interval([2], 1.0, 4.0) == (1.0, 4.0)  # one game tells nothing of the spread
    assert mean_interval([2, 2, 2], 1.0, 4.0) == (2.0, 2.0)


class _Place:
    def __init__(self) -> None:
        self.place = 0


class _State:
    def __init__(self, seats: int) -> None:
        self.players = [_Place() for _ in range(seats)]


#: scripts of ``Race``: the moves in order, each ``(mover, {seat: reward}, leaving seat or None)``,
#: and the finishing places the state records at the end (None: it records none)
SCRIPTS: dict[str, tuple[list[tuple[str, dict[str, float], str | None]], list[int] | None]] = {
    # returns s0 0.5, s1 3 - 1 = 2, s2 0.5: ranks 2, 1, 2 (s1's last reward alone is -1)
    "sums": ([("s0", {"s0": 0.5}, None), ("s1", {"s1": 3.0}, None), ("s2", {"s1": -1.0, "s2": 0.5}, None)], None),
    # s0 leaves on its first move with 0; then s1 gets +1 and s2 -1: ranks 2, 1, 3
    "leave": (
        [("s0", {}, "s0"), ("s1", {}, None), ("s2", {}, None), ("s1", {"s1": 1.0, "s2": -1.0}, None)],
        None,
    ),
    # every return 0, but the state records places 3, 1, 2
    "placed": ([("s0", {}, None), ("s1", {}, None), ("s2", {}, None)], [3, 1, 2]),
}


class Race(AECEnv):
    """Three seats whose moves and rewards follow a script of ``SCRIPTS``; action 0 is the only
    legal one."""

    metadata = {"render_modes": [], "name": "race_v0", "is_parallelizable": False}

    def __init__(self, script: str = "sums") -> None:
        super().__init__()
        self.moves, self.places = SCRIPTS[script]
        self.possible_agents = ["s0", "s1", "s2"]
        observation = spaces.Box(0.0, 1.0, (1,), np.float32)
        mask = spaces.Box(0, 1, (2,), np.int8)
        seat_space = spaces.Dict({"observation": observation, "action_mask": mask})
        self.observation_spaces = dict.fromkeys(self.possible_agents, seat_space)
        self.action_spaces = {a: spaces.Discrete(2) for a in self.possible_agents}
        self.render_mode = None
        self.game_state: _State | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        live = agent == self.agent_selection and not self.terminations[agent]
        return {"observation": np.zeros(1, np.float32), "action_mask": np.array([int(live), 0], np.int8)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.turn = 0
        self.game_state = _State(3)
        self.agent_selection = self.moves[0][0]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action == 0, "Race has one legal action"
        mover, rewards, leaving = self.moves[self.turn]
        assert mover == agent
        self.turn += 1
        self._cumulative_rewards[agent] = 0.0
        for name in self.agents:
            self.rewards[name] = rewards.get(name, 0.0)
        if self.turn == len(self.moves):
            for name in self.agents:
                self.terminations[name] = True
            if self.places is not None:
                for seat, place in enumerate(self.places):
                    self.game_state.players[seat].place = place
        else:
            self.agent_selection = self.moves[self.turn][0]
            if leaving is not None:
                self.terminations[leaving] = True
        self._accumulate_rewards()
        self._deads_step_first()

    def close(self) -> None:
        pass


def race_env(**kwargs: Any) -> Race:
    return Race(**kwargs)


RACE = f"{__name__}:race_env"


class Illegal(Agent):
    """Always plays action 1, which ``Race`` never allows."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        return 1


@pytest.mark.parametrize(
    ("script", "ranks"),
    [("sums", [2, 1, 2]), ("leave", [2, 1, 3]), ("placed", [3, 1, 2])],
    ids=["cumulative-returns", "played-out-after-the-agent-leaves", "recorded-places"],
)
def test_the_mean_rank_of_a_scripted_game(script: str, ranks: list[int]) -> None:
    for seat in range(len(ranks)):  # one episode from each of the first seats
        one = evaluate_agent(RACE, "random", seat + 1, env_kwargs={"script": script})
        assert one["seats"] == 3 and one["chance_win_rate"] == pytest.approx(1 / 3)
        assert one["mean_rank"] == pytest.approx(sum(ranks[: seat + 1]) / (seat + 1))
    result = evaluate_agent(RACE, "random", 6, seed=4, env_kwargs={"script": script})
    assert result["mean_rank"] == pytest.approx(sum(ranks) / 3)
    low, high = result["mean_rank_ci95"]
    expected = mean_interval(ranks * 2, 1.0, 3.0)
    assert (low, high) == pytest.approx(expected)
    table = format_table([result])
    assert "mean rank [95% CI]" in table
    assert f"{result['mean_rank']:.2f} [{low:.2f}, {high:.2f}]" in table


def test_an_illegal_action_ranks_last() -> None:
    result = evaluate_agent(RACE, f"{__name__}:Illegal", 3, env_kwargs={"script": "sums"})
    assert result["illegal"] == 3
    assert result["mean_rank"] == 3.0


def test_two_seats_give_no_rank() -> None:
    result = evaluate_agent(MAP_DUEL, "random", 2, env_kwargs={"length_limit": 2})
    assert result["mean_rank"] is None and result["mean_rank_ci95"] is None
    assert "mean rank" not in format_table([result])
