"""The end of the game (sections 41-45): the colour share of the map, the check for a win, a
loss or a draw after every change, the results and their names, a guess of them for a game cut
short, and the phase of a finished game.
"""

from __future__ import annotations

import numpy as np

from ....core.errors import IllegalActionError
from ....core.phases import PhaseRules
from ..state import DRAW, NUM_NUMBER_CARDS, ON_MAP, ONGOING, TRUNCATED, WON, MapDuelState, Phase
from ..tables import DRAW_NAME, ONGOING_NAME, TRUNCATED_NAME, WIN_NAMES
from .board import RED_IDS, faces_on_map

_NUMBER_IDS = frozenset(range(NUM_NUMBER_CARDS))


def _map_counts(state: MapDuelState) -> tuple[int, int]:
    """(number cards on the map, red ones among them): each id is on the map at most once."""
    codes = set(state.board)
    return len(codes.intersection(_NUMBER_IDS)), len(codes.intersection(RED_IDS))


def colour_share(state: MapDuelState) -> float:
    """Red's share of the map's number cards, from ``player_0``'s side (0.5 on an empty map)."""
    numbers, reds = _map_counts(state)
    return reds / numbers if numbers else 0.5


def check_end(state: MapDuelState) -> None:
    """Sections 41-44: colour victory or an opponent without faces; both at once is a draw."""
    numbers, reds = _map_counts(state)
    colour = (bool(numbers) and reds == numbers, bool(numbers) and reds == 0)
    has_faces = [ON_MAP in state.face_status[p] for p in range(2)]
    succeeds = [colour[p] or not has_faces[1 - p] for p in range(2)]
    if succeeds[0] and succeeds[1]:
        state.outcome, state.phase = DRAW, Phase.OVER
    elif succeeds[0] or succeeds[1]:
        state.outcome, state.phase = WON, Phase.OVER
        state.winner = 0 if succeeds[0] else 1


def heuristic_values(state: MapDuelState) -> list[float]:
    """A guess in [-1, 1] of each seat's final reward for a game cut short (search agents): the
    colour share of the map's number cards and the faces each side has on the map."""
    if state.phase == Phase.OVER:
        return final_rewards(state)
    faces = [len(faces_on_map(state, seat)) for seat in (0, 1)]
    value = (colour_share(state) - 0.5) + 0.1 * (faces[0] - faces[1])
    value = max(-1.0, min(1.0, value))
    return [value, -value]


def is_terminal(state: MapDuelState) -> bool:
    return state.phase == Phase.OVER


def is_truncated(state: MapDuelState) -> bool:
    return state.outcome == TRUNCATED


def final_rewards(state: MapDuelState) -> list[float]:
    if state.outcome != WON:
        return [0.0, 0.0]
    return [1.0, -1.0] if state.winner == 0 else [-1.0, 1.0]


def outcome_name(state: MapDuelState) -> str:
    """The game's result in words; a win names the winning agent (``"won by player_0"``)."""
    if state.outcome == WON:
        return WIN_NAMES[state.winner]
    return {ONGOING: ONGOING_NAME, DRAW: DRAW_NAME, TRUNCATED: TRUNCATED_NAME}[state.outcome]


# --------------------------------------------------------------------------- the game is over


def _nobody(state: MapDuelState) -> int:
    return -1


def _no_actions(state: MapDuelState) -> list[int]:
    return []


def _game_over(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    raise IllegalActionError("the game is over")


#: the phase of a finished game: nobody acts, nothing is legal
OVER = PhaseRules(actor=_nobody, legal_actions=_no_actions, apply=_game_over)
