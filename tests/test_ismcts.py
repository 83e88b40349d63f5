"""The generic ISMCTS agent: legal and repeatable play, an obvious win found, decisions that
depend on public information only, and use on a game of its own (a toy perfect-information
Nim given as a ``Game``)."""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs import registry
from empire_envs.agents.ismcts import ISMCTSAgent, game_of
from empire_envs.core.errors import IllegalActionError
from empire_envs.core.game import Game
from empire_envs.games.pillars import GAME, PillarsConfig, PillarsState
from empire_envs.games.pillars.actions import layout_for
from empire_envs.games.pillars.state import BUILD, THIEF, WON, full_deck_counts

# --------------------------------------------------------------------------- Pillars


def _take(state: PillarsState, kind: int, count: int) -> None:
    """Remove ``count`` cards of ``kind`` from the resource pile, else from the hands of seats
    1.. (each gives it up for another card of the pile, keeping its hand size)."""
    for _ in range(count):
        if kind in state.deck:
            state.deck.remove(kind)
            continue
        seat = next(s for s in range(1, state.n) if state.hands[s][kind])
        replacement = next(k for k in state.deck if k != kind)
        state.deck.remove(replacement)
        state.hands[seat][kind] -= 1
        state.hands[seat][replacement] += 1


def winning_position() -> PillarsState:
    """Seat 0, a Thief with pillars of 3, 4 and 5, holds four 6s (plus a 9 and a King) in its
    build phase of round 3, main action done: laying the 6s and discarding wins."""
    config = PillarsConfig()
    state = GAME.new_game(config, np.random.default_rng(0), first_player=0)
    hand = state.hands[0]
    for kind, count in enumerate(hand):
        state.deck += [kind] * count
    state.hands[0] = [0] * state.kinds.size
    state.hand_sizes[0] = 0
    for kind in (1, 2, 3):  # the 3s, 4s and 5s of the laid pillars
        _take(state, kind, 4)
        state.pillar_cards[0][kind] = 4
        state.pillars[0][kind - 1] = 1
    for kind, count in ((4, 4), (7, 1), (11, 1)):  # four 6s, a 9, a King
        _take(state, kind, count)
        state.hands[0][kind] += count
        state.hand_sizes[0] += count
    order = np.random.default_rng(1).permutation(len(state.deck))
    state.deck = [state.deck[i] for i in order]
    state.empire[0] = THIEF
    state.known = [[0] * state.kinds.size for _ in range(state.n)]
    state.turn = 2 * state.n
    state.current = 0
    state.phase = BUILD
    state.main_done = True
    assert state.kind_totals() == full_deck_counts(config)
    return state


def test_ismcts_lays_the_last_pillar_and_wins():
    state = winning_position()
    lay = layout_for(state.kinds)
    agent = ISMCTSAgent(iterations=150, seed=0)
    action = agent.act(None, GAME.legal_mask(state), state)
    assert action == lay.pillar_index(3, 0), GAME.action_name(state, action)
    rng = np.random.default_rng(0)
    GAME.apply_action(state, action, rng)
    for _ in range(6):  # the bonus steal may come first; then the discard wins
        if state.outcome == WON:
            break
        assert state.acting_player() == 0
        GAME.apply_action(state, agent.act(None, GAME.legal_mask(state), state), rng)
    assert state.outcome == WON and state.winner == 0


def test_ismcts_plays_legal_games_and_is_repeatable():
    config = PillarsConfig(length_limit=5)
    ends = []
    for _ in range(2):
        agents = [ISMCTSAgent(iterations=6, max_playout_steps=5, seed=s) for s in range(4)]
        rng = np.random.default_rng(4)
        state = GAME.new_game(config, rng)
        while not GAME.is_terminal(state):
            mask = GAME.legal_mask(state)
            action = agents[state.acting_player()].act(None, mask, state)
            assert mask[action] == 1
            GAME.apply_action(state, action, rng)
        ends.append((state.turn, state.outcome, [row[:] for row in state.hands]))
    assert ends[0] == ends[1]


def _decision_points(count: int, seed: int = 5) -> list[PillarsState]:
    """States along a random game where the acting seat has several legal actions."""
    rng = np.random.default_rng(seed)
    state = GAME.new_game(PillarsConfig(), rng)
    points = []
    while not GAME.is_terminal(state) and len(points) < count:
        legal = GAME.legal_actions(state)
        if len(legal) > 1 and rng.random() < 0.3:
            points.append(state.clone())
        GAME.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
    return points


def test_ismcts_decisions_depend_on_public_information_only():
    """Same seed, states differing only in what the acting seat cannot see: same action."""
    rng = np.random.default_rng(9)
    for index, state in enumerate(_decision_points(16)):
        seat = state.acting_player()
        other = GAME.determinize(state, seat, rng)
        mask = GAME.legal_mask(state)
        first = ISMCTSAgent(iterations=12, max_playout_steps=8, seed=index).act(None, mask, state)
        second = ISMCTSAgent(iterations=12, max_playout_steps=8, seed=index).act(None, mask, other)
        assert first == second


def test_ismcts_seed_and_reset():
    state = _decision_points(6)[-1]
    mask = GAME.legal_mask(state)
    agent = ISMCTSAgent(iterations=20, seed=3)
    first = agent.act(None, mask, state)
    agent.reset(seed=3)
    assert agent.act(None, mask, state) == first
    assert ISMCTSAgent(iterations=20, seed=3).act(None, mask, state) == first


def test_single_legal_action_needs_no_search_and_time_budget_works():
    mask = np.zeros(192, dtype=np.int8)
    mask[150] = 1
    assert ISMCTSAgent(seed=0).act(None, mask, None) == 150  # no state needed
    state = _decision_points(3)[-1]
    agent = ISMCTSAgent(iterations=None, time_budget=0.01, seed=0)
    action = agent.act(None, GAME.legal_mask(state), state)
    assert GAME.legal_mask(state)[action] == 1 and agent.last_iterations >= 1
    with pytest.raises(ValueError):
        ISMCTSAgent(iterations=None, time_budget=None)


def test_game_of_finds_pillars_and_refuses_unknown_states():
    assert game_of(GAME.new_game(PillarsConfig(), np.random.default_rng(0))) is GAME
    with pytest.raises(TypeError, match="register_game"):
        game_of(object())


# --------------------------------------------------------------------------- any game: Nim


class NimState:
    """Two players take 1-3 stones in turn; whoever takes the last stone wins."""

    def __init__(self, stones: int) -> None:
        self.stones, self.player, self.winner = stones, 0, -1

    def clone(self) -> NimState:
        other = NimState(self.stones)
        other.player, other.winner = self.player, self.winner
        return other


def _nim_apply(state: NimState, action: int, rng) -> list[float]:
    take = action + 1
    if state.winner >= 0 or take > state.stones:
        raise IllegalActionError(f"cannot take {take}")
    state.stones -= take
    if state.stones == 0:
        state.winner = state.player
        return _nim_returns(state)
    state.player = 1 - state.player
    return [0.0, 0.0]


def _nim_legal(state: NimState) -> list[int]:
    return [] if state.winner >= 0 else list(range(min(3, state.stones)))


def _nim_mask(state: NimState) -> np.ndarray:
    mask = np.zeros(3, dtype=np.int8)
    mask[_nim_legal(state)] = 1
    return mask


def _nim_returns(state: NimState) -> list[float]:
    if state.winner < 0:
        return [0.0, 0.0]
    return [1.0 if seat == state.winner else -1.0 for seat in range(2)]


NIM = Game(
    name="Nim",
    config_class=dict,
    state_class=NimState,
    num_players=lambda config: 2,
    num_actions=lambda config: 3,
    observation_size=lambda config: 1,
    observation_bounds=lambda config: (0.0, 99.0),
    max_game_length=lambda config: config.get("stones", 9),
    utility_range=lambda config: (-1.0, 1.0),
    new_game=lambda config, rng: NimState(config.get("stones", 9)),
    apply_action=_nim_apply,
    acting_player=lambda state: -1 if state.winner >= 0 else state.player,
    legal_actions=_nim_legal,
    legal_mask=_nim_mask,
    observe=lambda state, seat: np.array([state.stones], dtype=np.float32),
    is_terminal=lambda state: state.winner >= 0,
    is_truncated=lambda state: False,
    outcome=lambda state: f"won by {state.winner}" if state.winner >= 0 else "ongoing",
    returns=_nim_returns,
    determinize=lambda state, seat, rng: state.clone(),  # nothing is hidden
    action_name=lambda state, index: f"take {index + 1}",
    to_text=lambda state, *args: f"{state.stones} stones",
    to_rgb=lambda state: np.zeros((1, 1, 3), dtype=np.uint8),
)


@pytest.mark.parametrize(("stones", "take"), [(5, 1), (6, 2), (7, 3), (10, 2)])
def test_ismcts_solves_small_nim(stones, take):
    state = NimState(stones)
    agent = ISMCTSAgent(iterations=600, max_playout_steps=50, seed=1, game=NIM)
    assert agent.act(None, _nim_mask(state), state) + 1 == take  # leave a multiple of 4


def test_game_of_finds_a_game_added_to_the_registry(monkeypatch):
    nim = registry.GameEntry(
        key="nim",
        api="pettingzoo",
        game="tests.test_ismcts:NIM",
        class_name="NimEnv",
        variants=(registry.Variant("Nim-v0"),),
    )
    monkeypatch.setattr(registry, "_EXTRA_GAMES", [nim])
    state = NimState(6)
    assert game_of(state) is NIM
    assert ISMCTSAgent(iterations=400, max_playout_steps=50, seed=2).act(None, _nim_mask(state), state) == 1
