"""The solo search agent (PIMC over the heuristic) and the clairvoyant reference.

Search: legal moves only over whole games, the same moves for the same seed, moves that do not
depend on the hidden deck order, an instant answer to a forced move, settings from the agent
spec. Clairvoyant: hand-built positions whose fate follows from the rules (a win the heuristic
would miss, a position lost whatever is played, a limit too small to decide), and the agent that
follows the env's generator or, when it cannot, plays the heuristic.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import empire_envs  # noqa: F401 (registers the ids)
from empire_envs.agents import make_agent
from empire_envs.agents.solo_clairvoyant import (
    LOST,
    UNDECIDED,
    WINNABLE,
    ClairvoyantSoloAgent,
    clairvoyant_search,
    gymnasium_generator,
)
from empire_envs.agents.solo_heuristic import HeuristicSoloAgent
from empire_envs.agents.solo_search import SoloSearchAgent, candidate_actions
from empire_envs.games.solo import actions as A
from empire_envs.games.solo import rules
from empire_envs.games.solo.config import SoloConfig
from empire_envs.games.solo.state import KING_MODE, WON

from .solo.helpers import build_state

SOLO = "solo"
#: games cut short (truncated after 60 draws) so that a whole game of the search takes little time
SHORT = SoloConfig(length_limit=60)


def _short_game(seed: int):
    rng = np.random.default_rng(seed)
    return rules.new_game(SHORT, rng), rng


# --------------------------------------------------------------------------- search agent


def test_search_plays_only_legal_moves_over_whole_games():
    agent = SoloSearchAgent(determinizations=2, search_everywhere=True)
    searched = 0
    for seed in range(3):
        state, rng = _short_game(seed)
        agent.reset(seed=seed)
        while not rules.is_terminal(state):
            mask = rules.legal_mask(state)
            action = agent.act(None, mask, state)
            assert mask[action] == 1, f"illegal {A.action_name(action)} in {state!r}"
            searched += agent.last_playouts > 0
            rules.apply_action(state, action, rng)
    assert searched > 0, "no decision was searched: the test checked the heuristic only"


def test_search_repeats_its_moves_for_the_same_seed():
    def game_moves() -> list[int]:
        agent = SoloSearchAgent(determinizations=3, search_everywhere=True)
        agent.reset(seed=7)
        state, rng = _short_game(4)
        moves = []
        while not rules.is_terminal(state):
            moves.append(agent.act(None, rules.legal_mask(state), state))
            rules.apply_action(state, moves[-1], rng)
        return moves

    assert game_moves() == game_moves()


def test_search_moves_do_not_depend_on_the_hidden_deck_order():
    state, rng = _short_game(2)
    compared = 0
    for step in range(40):
        if rules.is_terminal(state):
            break
        mask = rules.legal_mask(state)
        other = rules.determinize(state, 0, np.random.default_rng(step))  # same view, other order
        assert other.deck != state.deck or len(state.deck) < 2
        moves = []
        for position in (state, other):
            agent = SoloSearchAgent(determinizations=2, search_everywhere=True, seed=step)
            moves.append(agent.act(None, mask, position))
            compared += agent.last_playouts > 0
        assert moves[0] == moves[1]
        rules.apply_action(state, moves[0], rng)
    assert compared > 0


def test_a_forced_move_is_played_at_once():
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[A.DRAW] = 1
    agent = SoloSearchAgent()
    assert agent.act(None, mask, None) == A.DRAW  # no state needed: nothing to search
    assert agent.last_playouts == 0


def test_a_time_budget_stops_after_the_first_deal():
    # A microsecond is over before the first deal's playouts end; that deal is still played.
    state = split_wins_position()
    agent = SoloSearchAgent(determinizations=1000, time_budget_ms=0.001, search_everywhere=True, seed=0)
    action = agent.act(None, rules.legal_mask(state), state)
    assert action in (A.SUM_ACTION, A.SPLIT_ACTION)
    assert agent.last_playouts == 2  # one deal, two candidates


def test_symmetric_moves_are_one_candidate():
    # A drawn 7H and an empty board but keep 0: the three outposts are alike, and so are the
    # two empty keeps; stacking and discarding are moves of their own.
    state = build_state({0: "5C"}, drawn="7H")
    default = A.PLACE[3]
    candidates = candidate_actions(state, rules.legal_actions(state), default)
    assert candidates[0] == default
    assert sorted(A.action_name(a) for a in candidates) == sorted(
        A.action_name(a) for a in (A.PLACE[3], A.PLACE[1], A.STACK[0], A.DISCARD)
    )


def test_search_is_built_from_its_spec_with_settings():
    agent = make_agent("search", SOLO, determinizations=3, switch_margin=0.25)
    assert isinstance(agent, SoloSearchAgent)
    assert (agent.determinizations, agent.switch_margin) == (3, 0.25)
    with pytest.raises(ValueError, match="search"):
        make_agent("search", SOLO, rollouts=3)
    for bad in ({"determinizations": 0}, {"switch_margin": -1}, {"time_budget_ms": 0}):
        with pytest.raises(ValueError):
            SoloSearchAgent(**bad)


# --------------------------------------------------------------------------- clairvoyant search


def split_wins_position():
    """A King battle the heuristic's odds would fight with SUM, and only SPLIT wins.

    Bases stand in outposts 3 and 4 and a base builder in keep 2; the King's first enemy, 10D,
    is revealed. The deck is K D then J C, and nothing else exists (a partial game, no discard);
    ``length_limit`` leaves exactly those two draws. SPLIT: 10H beats 10D, then the 9H+8H super
    soldier (17) beats KD (13); the battle is won, JC is drawn and founds the third base: won.
    SUM needs 10 + 13 = 23, which only a base reaches, and sending a base leaves two bases after
    JC founds one; any other SUM line loses the round and spends JC as an enemy. Nothing is
    drawn after JC, so every SUM line ends without three bases. Seen from the odds over the
    deck (13 or 11), SPLIT and SUM both look hopeless, and the heuristic keeps to SUM.
    """
    state = build_state(
        {0: "9H+8H", 1: "10H", 2: "X:AC+2H+AS+3H", 3: "B:KC", 4: "B:KS"},
        deck=["KD", "JC"],
        phase=KING_MODE,
        attacker="KH",
        enemies=["10D"],
        rest=None,
        draws=10,
        length_limit=12,
    )
    return state


def test_clairvoyant_finds_the_win_the_heuristic_misses():
    state = split_wins_position()
    assert HeuristicSoloAgent().act(None, rules.legal_mask(state), state) == A.SUM_ACTION
    result = clairvoyant_search(state, np.random.default_rng(0))
    assert result.verdict == WINNABLE
    assert result.line[:3] == (A.SPLIT_ACTION, A.SEND[1], A.SEND[0])
    replay = state.clone()
    for action in result.line:
        assert action in rules.legal_actions(replay)
        rules.apply_action(replay, action, np.random.default_rng(0))
    assert replay.outcome == WON


def test_clairvoyant_proves_a_lost_position_lost():
    """Keep 0 holds a lone 2C and 4D is drawn; the deck is QH, then 10H, 9H, 8H (nothing else
    exists). Whatever becomes of 4D (placed, stacked into a 6, or discarded), QH comes next and
    must be fought (no native or base can recruit it), and every enemy it reveals is 8 or more,
    above any unit the board can hold (6 at most): each round is lost and takes a unit, until a
    round starts with an empty board."""
    state = build_state({0: "2C"}, drawn="4D", deck=["QH", "10H", "9H", "8H"], rest=None)
    result = clairvoyant_search(state, np.random.default_rng(0), node_limit=10_000)
    assert result.verdict == LOST
    assert result.line == ()
    assert 7 < result.nodes < 10_000  # every move of 4D was tried: PLACE x5, STACK, DISCARD


def test_clairvoyant_is_undecided_at_the_node_limit():
    """A fresh deal cannot end within five actions (a loss sends six units, a win founds three
    bases), so five nodes neither find a win nor exhaust the deal."""
    generator = gymnasium_generator(0)
    state = rules.new_game(SoloConfig(), generator)
    result = clairvoyant_search(state, generator, node_limit=5)
    assert (result.verdict, result.line, result.nodes) == (UNDECIDED, (), 5)


def test_clairvoyant_search_leaves_its_inputs_alone():
    generator = gymnasium_generator(1)
    state = rules.new_game(SoloConfig(), generator)
    before, position = state.clone(), generator.bit_generator.state
    clairvoyant_search(state, generator, node_limit=300)
    assert state == before and generator.bit_generator.state == position


# --------------------------------------------------------------------------- clairvoyant agent


def play_checked_game(env, agent, seed: int) -> dict:
    """One whole game of ``agent`` on deal ``seed``, every action checked against the mask;
    returns the last step's info."""
    obs, info = env.reset(seed=seed)
    agent.reset(seed=seed)
    done = False
    while not done:
        action = agent.act(obs, info["action_mask"], env.unwrapped.state)
        assert info["action_mask"][action] == 1
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    return info


def test_clairvoyant_agent_wins_exactly_the_deals_it_proved():
    env = gymnasium.make("empire_envs/EmpireSolo-v0", illegal_action="raise")
    agent = make_agent("clairvoyant", SOLO, node_limit=3000)
    proved = 0
    for seed in range(3):
        info = play_checked_game(env, agent, seed)
        assert agent.last_result is not None
        proved += agent.last_result.verdict == WINNABLE
        assert (info["outcome"] == "won") == (agent.last_result.verdict == WINNABLE)
    assert proved > 0, "no deal was proved winnable: the line was never followed"


def test_clairvoyant_agent_plays_the_heuristic_when_it_cannot_replay_the_deal():
    # A stacked deck: the agent's replay of the seed deals another game, so it must not trust
    # its generator; every move is then the heuristic's.
    env = gymnasium.make("empire_envs/EmpireSolo-v0", illegal_action="raise")
    obs, info = env.reset(seed=0, options={"deck": ["KH", "2C", "3D", "4H", "5S", "6C", "7D"]})
    agent, heuristic = ClairvoyantSoloAgent(node_limit=100), HeuristicSoloAgent()
    agent.reset(seed=0)
    for _ in range(60):
        state = env.unwrapped.state
        action = agent.act(obs, info["action_mask"], state)
        assert action == heuristic.act(obs, info["action_mask"], state)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert agent.last_result is None  # it never searched


@pytest.mark.soak
def test_search_plays_only_legal_moves_over_full_length_games():
    env = gymnasium.make("empire_envs/EmpireSolo-v0", illegal_action="raise")
    agent = SoloSearchAgent(determinizations=4)
    for seed in range(5):
        play_checked_game(env, agent, seed)
