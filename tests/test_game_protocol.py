"""Every game of the registry honours the one rules protocol (``empire_envs.core.game.Game``).

For each registered id (its game and variant config): the sizes the record declares are the
env's spaces, and seeded random games played through the record alone keep every promise the
protocol makes: ``apply_action`` plays in place and returns one reward per seat, ``child`` leaves
its input alone, masks and legal lists agree, observations have the declared size and bounds,
``determinize`` returns a state of the game, and a game ends within ``max_game_length`` with
returns inside ``utility_range``. The envs expose that metadata (``max_game_length``,
``min_utility``, ``max_utility``) as the ecosystems expect; the Gymnasium ids carry no
``max_episode_steps`` (see ``registry.register_all`` for why, and the tests below for the facts
that decision rests on); the multiplayer envs are not ``is_parallelizable`` and
``turn_based_aec_to_parallel`` is the way to the Parallel API.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

import empire_envs
from empire_envs import envs
from empire_envs.core.game import Game
from empire_envs.registry import ENTRIES, GAMES, game_entry

from .solitaire.helpers import WIN_LINE, WIN_ROWS, WIN_STOCK, act, deal

GAMES_PER_ID = 2


def _record_and_config(item):
    record = game_entry(item.game).load()
    return record, record.config_class(**item.kwargs)


@pytest.mark.parametrize("item", ENTRIES, ids=[item.env_id for item in ENTRIES])
def test_the_record_declares_the_env_spaces(item):
    check_record_declares_env_spaces(item)


@pytest.mark.parametrize("item", ENTRIES, ids=[item.env_id for item in ENTRIES])
def test_random_games_keep_the_protocol(item):
    check_random_games_keep_protocol(item)


@pytest.mark.parametrize("item", ENTRIES, ids=[item.env_id for item in ENTRIES])
def test_the_envs_expose_the_game_metadata(item):
    check_env_exposes_game_metadata(item)


# --------------------------------------------------------------------------- metadata for the ecosystems


GYM_IDS = [item.env_id for item in ENTRIES if item.api == "gymnasium"]


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_gymnasium_ids_carry_no_step_limit_of_their_own(env_id):
    env = gymnasium.make(env_id)
    assert gymnasium.spec(env_id).max_episode_steps is None and env.spec.max_episode_steps is None
    layer = env
    while layer is not env.unwrapped:
        assert not isinstance(layer, gymnasium.wrappers.TimeLimit)
        layer = layer.env
    # a step limit of one's own still works as Gymnasium documents it
    limited = gymnasium.make(env_id, max_episode_steps=2)
    limited.reset(seed=0)
    steps = [limited.step(int(np.flatnonzero(limited.get_wrapper_attr("action_masks")())[0])) for _ in range(2)]
    assert steps[-1][3] or steps[-1][2]


def test_a_won_solitaire_game_takes_exactly_max_game_length_steps():
    """Why no ``TimeLimit`` at ``max_game_length``: it would flag this win as truncated too."""
    env = gymnasium.make("empire_envs/EmpireSolitaire-v0")
    env.reset(seed=0, options={"deck": deal(WIN_ROWS, WIN_STOCK)})
    results = [env.step(act(name)) for name in WIN_LINE]
    _, reward, terminated, truncated, info = results[-1]
    assert len(results) == env.unwrapped.max_game_length == 23
    assert (reward, terminated, truncated, info["outcome"]) == (1.0, True, False, "won")


def test_a_game_truncates_itself_by_the_length_limit_the_caller_gives():
    """Why no ``TimeLimit`` fixed at registration: the bound follows the caller's config."""
    default_bound = envs.EmpireSoloEnv().max_game_length
    raised = gymnasium.make("empire_envs/EmpireSolo-v0", length_limit=2000).unwrapped
    assert raised.max_game_length == raised.game.max_game_length(raised.config) > default_bound
    env = gymnasium.make("empire_envs/EmpireSolo-v0", length_limit=3)
    _, info = env.reset(seed=1)
    done = False
    for _ in range(env.unwrapped.max_game_length):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if done := terminated or truncated:
            break
    # three draws can neither found three bases nor use up six soldiers: the rules truncate
    assert done and truncated and not terminated and info["outcome"] == "truncated"
    assert env.unwrapped.state.draws == 3


#: one id per multiplayer game, cut short by its length limit
MULTIPLAYER_GAMES = [game.key for game in GAMES if game.api == "pettingzoo"]


@pytest.mark.parametrize("key", MULTIPLAYER_GAMES)
def test_multiplayer_envs_are_not_parallelizable_and_turn_based_conversion_plays_them(key):
    env = envs.env(key, length_limit=1)
    assert env.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(env)
    parallel = turn_based_aec_to_parallel(env)
    observations, _ = parallel.reset(seed=0)
    rng = np.random.default_rng(0)
    decisions = 0
    while parallel.agents:
        acting = [agent for agent, seen in observations.items() if seen["action_mask"].any()]
        assert acting == [env.agent_selection]  # one seat acts; the others' masks are all zero
        actions = {agent: int(rng.choice(np.flatnonzero(observations[agent]["action_mask"]))) for agent in acting}
        actions.update({agent: 0 for agent in parallel.agents if agent not in actions})  # ignored
        observations, rewards, terminations, truncations, infos = parallel.step(actions)
        decisions += 1
        assert decisions <= env.max_game_length
    assert all(terminations[agent] or truncations[agent] for agent in env.possible_agents)


# The checks take any registered id's ``EnvEntry``, so that a game added with
# ``registry.register_game`` is held to exactly the same promises.


def check_record_declares_env_spaces(item) -> None:
    """The env built for ``item`` has the spaces, seats and documented arguments its ``Game``
    record declares, and the record's metadata is sane."""
    record, config = _record_and_config(item)
    assert isinstance(record, Game)
    env = envs.raw_env(item.game, **item.kwargs)
    low, high = record.observation_bounds(config)
    if item.api == "gymnasium":
        action_space, observation_space = env.action_space, env.observation_space
        assert record.num_players(config) == 1
    else:
        agent = env.possible_agents[0]
        action_space, observation_space = env.action_space(agent), env.observation_space(agent)["observation"]
        assert len(env.possible_agents) == record.num_players(config) >= 2
    assert action_space.n == record.num_actions(config)
    assert observation_space.shape == (record.observation_size(config),)
    assert float(observation_space.low.min()) == low and float(observation_space.high.max()) == high
    assert env.__doc__.startswith(record.name.split()[0]) and "{arguments}" not in env.__doc__
    for field in record.config_class.__dataclass_fields__:
        assert f"{field}=" in " ".join(env.__doc__.split()), f"the env docstring does not list {field}"
    lowest, highest = record.utility_range(config)
    assert lowest < 0 < highest
    assert record.max_game_length(config) > 0


def check_env_exposes_game_metadata(item) -> None:
    """``max_game_length``, ``min_utility`` and ``max_utility`` of the env made for ``item``, read
    through its wrappers, are the record's for the id's config."""
    record, config = _record_and_config(item)
    env = empire_envs.make(item.env_id)
    read = env.get_wrapper_attr if item.api == "gymnasium" else lambda name: getattr(env, name)
    assert read("max_game_length") == env.unwrapped.max_game_length == record.max_game_length(config)
    assert (read("min_utility"), read("max_utility")) == record.utility_range(config)
    assert isinstance(read("max_game_length"), int) and isinstance(read("min_utility"), float)
    env.close()


def check_random_games_keep_protocol(item, games: int = GAMES_PER_ID) -> None:
    """Seeded random games played through the ``Game`` record alone keep every promise of the
    protocol (see the module docstring)."""
    record, config = _record_and_config(item)
    seats = record.num_players(config)
    num_actions = record.num_actions(config)
    size = record.observation_size(config)
    low, high = record.observation_bounds(config)
    lowest, highest = record.utility_range(config)
    bound = record.max_game_length(config)
    for seed in range(games):
        rng = np.random.default_rng(seed)
        state = record.new_game(config, rng)
        assert isinstance(state, record.state_class)
        decisions = 0
        while not record.is_terminal(state):
            legal = record.legal_actions(state)
            mask = record.legal_mask(state)
            assert mask.dtype == np.int8 and mask.shape == (num_actions,)
            assert legal == sorted(legal) and list(np.flatnonzero(mask)) == legal
            seat = record.acting_player(state)
            assert 0 <= seat < seats
            observation = record.observe(state, seat)
            assert observation.dtype == np.float32 and observation.shape == (size,)
            assert low <= observation.min() and observation.max() <= high
            assert isinstance(record.determinize(state, seat, np.random.default_rng(seed)), record.state_class)
            action = legal[int(rng.integers(len(legal)))]
            assert record.action_name(state, action)
            if decisions % 7 == 0:  # the pure form, now and then: input untouched, same result
                before = state.clone()
                twin_rng = np.random.default_rng(decisions)
                child, child_rewards = record.child(state, action, twin_rng)
                assert _same(state, before)
            rewards = record.apply_action(
                state, action, np.random.default_rng(decisions) if decisions % 7 == 0 else rng
            )
            assert isinstance(rewards, list) and len(rewards) == seats
            if decisions % 7 == 0:
                assert child_rewards == rewards and _same(child, state)
            decisions += 1
            assert decisions <= bound, f"{item.env_id}: more than max_game_length={bound} decisions"
        returns = record.returns(state)
        assert len(returns) == seats and all(lowest <= value <= highest for value in returns)
        assert record.outcome(state)


def _same(one, other) -> bool:
    """States compare by value where the class defines it, else by their text (every card shown)."""
    if type(one).__eq__ is not object.__eq__:
        return one == other
    return envs_text(one) == envs_text(other)


def envs_text(state) -> str:
    from empire_envs.registry import game_of_state

    return game_of_state(state).to_text(state)
