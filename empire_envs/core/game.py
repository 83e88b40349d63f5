"""The one rules protocol: what every game offers the adapters, the agents and the benchmarks.

A game package builds one ``Game`` record from its pure rule functions (``games/<game>/__init__.py``
defines ``GAME``). The generic Gymnasium adapter (one seat), the PettingZoo AEC adapter (several
seats), the search agents and the speed benchmark read a game only through this record, so none of
them knows which game it drives.

The verbs mean the same thing in every game:

- ``new_game(config, rng, **reset_options)``: a fresh state, stopped at the first decision;
- ``apply_action(state, action, rng)``: plays the acting seat's action **in place** and returns
  every seat's reward for that step (a list with one entry per seat, also for one-seat games); an
  illegal action raises ``IllegalActionError`` and leaves the state as it was;
- ``Game.child(state, action, rng)``: the pure form, ``(new_state, rewards)``, input untouched;
- ``determinize(state, seat, rng)``: a copy with everything ``seat`` cannot see resampled;
- ``observe(state, seat)``: that seat's observation vector (a fresh float32 array);
- ``legal_actions(state)`` (ascending ints) and ``legal_mask(state)`` (a fresh int8 array) for the
  acting seat, ``acting_player(state)``;
- ``returns(state)``: every seat's final game result (shaping excluded), ``outcome(state)`` its
  name (``"won"``, ``"lost"``, ``"won by seat 2"``, ``"truncated"``...).

Randomness enters only through ``rng`` (a ``numpy.random.Generator``). Sizes and game metadata are
functions of the game's config, because variants change them (table size, board size, card pool).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

Rng = np.random.Generator


@dataclass(frozen=True)
class Game:
    """The functions and sizes of one rule set; the rules stay pure functions over a state.

    Required fields, in the order a newcomer meets them: names and classes, sizes and metadata
    (functions of the config), then the rules. Optional fields are capabilities some games have.
    """

    #: the game's display name, e.g. ``"Empire solo"``
    name: str
    #: the frozen dataclass of every variant knob (``games/<game>/config.py``)
    config_class: type
    #: the state class; ``state.clone()`` must be exact and cheap
    state_class: type

    # ------------------------------------------------------------------ sizes and metadata
    #: ``num_players(config)``: seats (1 for the solo games)
    num_players: Callable[[Any], int]
    #: ``num_actions(config)``: the size of the ``Discrete`` action space
    num_actions: Callable[[Any], int]
    #: ``observation_size(config)``: the length of the flat observation vector
    observation_size: Callable[[Any], int]
    #: ``observation_bounds(config)``: ``(low, high)`` of every observation entry
    observation_bounds: Callable[[Any], tuple[float, float]]
    #: ``max_game_length(config)``: an upper bound on the decisions of one game (OpenSpiel's
    #: ``max_game_length``); every game ends within it (by the config's length limit, or by a
    #: game's own cap where its rules would allow endless play)
    max_game_length: Callable[[Any], int]
    #: ``utility_range(config)``: ``(min, max)`` of any seat's final return (OpenSpiel's
    #: ``min_utility`` / ``max_utility``), shaping excluded
    utility_range: Callable[[Any], tuple[float, float]]

    # ------------------------------------------------------------------ the rules
    #: ``new_game(config, rng, **options)``; ``options`` are the env's ``reset(options=...)`` keys
    new_game: Callable[..., Any]
    #: ``apply_action(state, action, rng) -> rewards``: in place, one reward per seat
    apply_action: Callable[[Any, int, Rng], list[float]]
    acting_player: Callable[[Any], int]
    legal_actions: Callable[[Any], list[int]]
    legal_mask: Callable[[Any], np.ndarray]
    observe: Callable[[Any, int], np.ndarray]
    is_terminal: Callable[[Any], bool]
    is_truncated: Callable[[Any], bool]
    outcome: Callable[[Any], str]
    returns: Callable[[Any], list[float]]
    determinize: Callable[[Any, int, Rng], Any]
    #: ``action_name(state_or_config, index)``: a short readable name of an action
    action_name: Callable[[Any, int], str]
    #: ``to_text(state)``: the position as text (every hidden card shown: a spectator's view)
    to_text: Callable[..., str]
    #: ``to_rgb(state)``: the position as an RGB ``uint8`` array
    to_rgb: Callable[[Any], np.ndarray]
    #: the keys ``new_game`` accepts as reset options
    reset_options: tuple[str, ...] = ()
    #: ``example_reset_options(config)``: a valid value of each key of ``reset_options`` for a game
    #: of ``config`` (what ``reset(options=...)`` takes; the bad-input tests vary it); a game with
    #: reset options must have it
    example_reset_options: Callable[[Any], dict[str, Any]] | None = None
    #: the env docstring (Gymnasium's sections); the env classes built for the game carry it
    env_doc: str = ""

    # ------------------------------------------------------------------ optional capabilities
    #: ``heuristic_values(state)``: a guess in [-1, 1] of each seat's final return, for search
    #: agents that stop their playouts early; None means play out to the end
    heuristic_values: Callable[[Any], list[float]] | None = None
    #: ``eliminated(state)``: per seat, out of a game that goes on (PettingZoo terminates that
    #: agent alone); None for games where nobody leaves early
    eliminated: Callable[[Any], list[bool]] | None = None
    #: ``announce_action(state, seat, action, viewer, reveal)``: the name of ``seat``'s ``action``,
    #: about to be played, as seat ``viewer`` may be told it: what ``viewer`` cannot see is left
    #: out (a sealed offer, a face-down card) unless ``reveal``; what ``play`` says of an
    #: opponent's move. None: the game's ``action_name`` hides nothing
    announce_action: Callable[[Any, int, int, int, bool], str] | None = None

    def announced(self, state: Any, seat: int, action: int, viewer: int, reveal: bool = False) -> str:
        """``announce_action``, or ``action_name`` for a game whose action names hide nothing."""
        if self.announce_action is None:
            return self.action_name(state, action)
        return self.announce_action(state, seat, action, viewer, reveal)

    def child(self, state: Any, action: int, rng: Rng) -> tuple[Any, list[float]]:
        """The pure transition: ``(new_state, rewards)``; ``state`` is left as it was."""
        new_state = state.clone()
        return new_state, self.apply_action(new_state, action, rng)


def seat_offset_name(seat: int, offset: int, viewer: int, players: int) -> str:
    """``+2 is player_3``: the seat ``offset`` places after ``seat`` (``you`` when it is
    ``viewer``), for the action names that point at a seat by its offset from the mover."""
    target = (seat + offset) % players
    return f"+{offset} is {'you' if target == viewer else f'player_{target}'}"
