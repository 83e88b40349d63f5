"""Setting up a game: the seats' decks (the reset options ``decks`` and ``first_player``,
checked), the shuffles, the opening hands and the first player (ruling 16); and the bound on a
game's length, ``max_game_length``, which ``apply_action`` enforces by truncation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .. import cards as card_data
from ..cards import Deck
from ..config import UNIT_SLOTS, GeneralsConfig
from ..state import GeneralsState
from .effects import draw
from .phases import auto_resolve
from .scoring import no_rewards
from .tables import tables_for
from .turn import begin_turn


def new_game(
    config: GeneralsConfig,
    rng: np.random.Generator,
    *,
    decks: Sequence[str] | None = None,
    first_player: int | None = None,
    shuffle: bool = True,
) -> GeneralsState:
    """Give each seat a deck (``decks``, else the config's choice), shuffle both piles of each
    (unless ``shuffle=False``: the deck lists' order, top card last), draw the opening hands and
    start the first player's turn (ruling 16: a uniformly random seat unless given).

    ``decks`` and ``first_player`` are the env's reset options: they are checked before anything
    is dealt (``TypeError`` for a value of the wrong kind, ``ValueError`` for one out of range,
    each naming the option), and never converted (no ``int("1")``, no letters of ``"abc"``)."""
    available = config.available_decks
    if decks is not None:
        decks = _deck_option(decks, config.num_players, available)
    if first_player is not None:
        first_player = _seat_option("first_player", first_player, config.num_players)
    pool = config.pool
    chosen = _choose_decks(config, available, rng, decks)
    state = GeneralsState(config, pool, tables_for(pool))
    state.decision_limit = max_game_length(config)
    state.decks_public = decks is not None or config.decks != "random"
    target = config.target
    for seat, deck in enumerate(chosen):
        player = state.players[seat]
        player.deck_id = deck.id
        player.empire = deck.empire
        player.playing_deck = list(deck.playing)
        player.supply_pile = list(deck.supply)
        if shuffle:
            rng.shuffle(player.playing_deck)
            rng.shuffle(player.supply_pile)
        player.deck_size = len(deck.playing) + len(deck.supply)
        player.ch = target if config.slaughterhouse else 0
        from_playing, from_supply = config.opening_hand
        for _ in range(from_playing):
            draw(player, player.playing_deck)
        for _ in range(from_supply):
            draw(player, player.supply_pile)
    if first_player is None:
        first_player = int(rng.integers(config.num_players))
    state.first = state.current = first_player
    begin_turn(state)
    auto_resolve(state, rng, no_rewards(state))  # nothing is paid before the first decision
    return state


def _shown(value: object) -> str:
    text = card_data.short_repr(value)
    return f"{text} of type {type(value).__name__}"


def _deck_option(value: object, num_players: int, available: Mapping[str, Deck]) -> list[str]:
    """The reset option ``decks``: a list or tuple of one known deck id per seat."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        value = value.tolist()
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"reset option 'decks' is a list of {num_players} deck ids, got {_shown(value)}")
    names = list(value)
    for position, name in enumerate(names):
        if not isinstance(name, str):
            raise TypeError(f"reset option 'decks': entry {position} must be a deck id (text), got {_shown(name)}")
    if len(names) != num_players:
        raise ValueError(f"reset option 'decks' names one deck per seat ({num_players}), got {len(names)}: {names}")
    unknown = [name for name in names if name not in available]
    if unknown:
        raise ValueError(f"reset option 'decks': unknown deck id(s) {unknown}; the decks are {sorted(available)}")
    return names


def _seat_option(name: str, value: object, num_players: int) -> int:
    """A seat number given as a Python or numpy integer (never a bool, float or text)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"reset option {name!r} is a seat number 0..{num_players - 1}, got {_shown(value)}")
    if not 0 <= value < num_players:
        raise ValueError(f"reset option {name!r} is a seat number 0..{num_players - 1}, got {int(value)}")
    return int(value)


def _choose_decks(config: GeneralsConfig, available: Mapping[str, Deck], rng: np.random.Generator, decks) -> list:
    """The seats' decks: those named (by the reset option, else the config), or a random draw
    (the config has made sure there are enough decks for it)."""
    names = decks if decks is not None else (None if config.decks == "random" else config.decks)
    if names is not None:
        return [available[n] for n in names]
    ids = sorted(available)
    if config.allow_mirror:
        return [available[ids[int(i)]] for i in rng.integers(len(ids), size=config.num_players)]
    return [available[ids[int(i)]] for i in rng.permutation(len(ids))[: config.num_players]]


#: decisions a turn may hold whatever the cards: DECLARE, the ends of the Kingdom and Army phases,
#: the attack or the end of the Attack phase, two blocks (a redirected battle asks again), two
#: tactic decisions (one window per battle)
TURN_DECISIONS = 1 + 3 + 2 + 2
#: decisions one card can be the subject of in a whole game: the draw that picks it, the one
#: decision that takes it out of the hand (a play or a hand-limit discard: it never comes back),
#: and at most two that follow from it (a Sabotage's two targets; a new General's replacement
#: choice and its ability in the turn it entered; a Soldier's ability then and its discard)
CARD_DECISIONS = 4


def decisions_per_turn(config: GeneralsConfig) -> int:
    """The decisions of one turn outside the card terms of ``max_game_length``:
    ``TURN_DECISIONS``, one ability per unit in play as the turn starts (``U`` slots; an ability
    is used once per turn), and one move per unit: every arrangement of the Attack phase is
    reached by moving each unit at most once, since a second move of a unit undoes the first.
    Moves themselves are not limited by the rules (ruling 41: any number, both ways), so a policy
    that keeps moving a unit back and forth could make a turn last as long as it likes; this term
    counts the moves of a policy that never undoes one, and ``apply_action`` truncates a game that
    reaches ``max_game_length`` decisions all the same (a gap the rulings leave, filled so that
    every game ends)."""
    return TURN_DECISIONS + 2 * UNIT_SLOTS


def max_game_length(config: GeneralsConfig) -> int:
    """The most decisions one game takes, OpenSpiel's ``max_game_length``: a game that reaches it
    is truncated (``apply_action``), which only a policy that undoes its own moves again and again
    can make happen (see ``decisions_per_turn``); otherwise the bound below holds by itself:

    ``length_limit * num_players * decisions_per_turn + num_players * CARD_DECISIONS * D``

    - **Turns.** Each seat in the game takes one turn per round, and the game is truncated when
      round ``length_limit`` ends: at most ``length_limit * num_players`` turns.
    - **Per turn**, whatever the cards: ``decisions_per_turn(config)`` (declare, the three phase
      ends or the attack, two blocks, two tactic decisions, an ability per unit in play, a move per
      unit).
    - **Per card**, over the whole game: every other decision is about a card (a draw, a play, a
      hand-limit discard, a Soldier's discard, a General's replacement, a Sabotage's targets, the
      ability of a unit in the turn it entered), at most ``CARD_DECISIONS`` per card. This term
      is what bounds the plays of one turn for any card file: a play takes a card from the hand,
      and no card ever returns to a hand or a pile, so a seat plays at most its deck's card count
      in the whole game, however many draws its statics give. ``D`` is the largest deck the
      config can deal (``available_decks``: at most 75 Playing Deck cards and a Supply Pile for a
      legal deck, up to ``cards.MAX_PILE_CARDS`` per pile without the deck rules).

    Decisions with one legal action are taken by the engine and count nowhere."""
    largest_deck = max(len(deck.playing) + len(deck.supply) for deck in config.available_decks.values())
    turns = config.length_limit * config.num_players
    return turns * decisions_per_turn(config) + config.num_players * CARD_DECISIONS * largest_deck
