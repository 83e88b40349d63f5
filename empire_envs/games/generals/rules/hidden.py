"""What a seat cannot see, drawn again: ``determinize`` resamples the other players' deck lists
(when they were drawn at random), their hands and the order of every pile into a world
consistent with everything the seat has observed (search agents play in such worlds)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..cards import KNOWN_EMPIRES, Deck
from ..state import REPLACE_GENERAL, GeneralsState, PlayerState, new_counts


def determinize(state: GeneralsState, seat: int, rng: np.random.Generator) -> GeneralsState:
    """A copy with what ``seat`` cannot see resampled into a world consistent with everything
    it has observed: the order of its own piles, and for every other player its deck list, then
    the split of that list's unseen cards between hand, Playing Deck and Supply Pile.

    - **Deck lists.** When the decks were named (config or reset option) everyone knows them.
      When they were drawn at random, a player's list is drawn from the available decks that fit
      what ``seat`` sees of it: the empire entry of the observation, the number of cards, every
      card it has shown (in play, in the Supply Line, discarded or removed), and the sizes of its
      hand and piles; with ``allow_mirror=False`` the decks of the table are distinct.
    - **Piles.** A deck names each card in one pile only, so each unseen card belongs to the
      pile it came from; the piles keep their sizes and the rest is the hand.
    - **Resources in hand.** The Harvest puts every resource of the hand into play, except those
      banned at that moment (ruling 7), so a resource of another kind can be in a hand only if
      drawn since that player's last Harvest: at most as many as it has drawn from each pile
      since then, and in all no more than those draws less the resources it has discarded.

    A state whose cards fit none of the available decks (one built by hand, as in a test) keeps
    each player's hidden cards, only shuffling the piles."""
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < state.num_players:
        raise ValueError(f"determinize needs a seat 0..{state.num_players - 1}, got {seat!r}")
    copy = state.clone()
    fits = sample_deck_lists(state, int(seat), rng)
    for p, (player, fit) in enumerate(zip(copy.players, fits, strict=True)):
        if fit is None:
            rng.shuffle(player.playing_deck)
            rng.shuffle(player.supply_pile)
        else:
            _resample_hidden(copy, p, fit, rng)
    return copy


def _pinned_in_hand(state: GeneralsState, p: int) -> int:
    """A card that must stay in the hand whatever is resampled: the paid General waiting while
    its owner picks the General it replaces (-1 if none)."""
    return state.pending_card if state.phase == REPLACE_GENERAL and p == state.current else -1


def _shown_counts(state: GeneralsState, p: int) -> list[int]:
    """Per kind, the player's cards everyone has seen: in play, in its Supply Line, discarded or
    removed from the game (plus the pinned card)."""
    player = state.players[p]
    counts = [
        sum(cards)
        for cards in zip(
            player.supply_ready, player.supply_fresh, player.kingdom, player.discard, player.removed, strict=True
        )
    ]
    for kind in (player.strategy, player.capitol, _pinned_in_hand(state, p)):
        if kind >= 0:
            counts[kind] += 1
    for unit in player.units:
        if unit is not None:
            counts[unit.kind] += 1
    return counts


@lru_cache(maxsize=64)
def _deck_counts(deck: Deck, num_kinds: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A deck's copies per kind in its Playing Deck and in its Supply Pile."""
    playing, supply = [0] * num_kinds, [0] * num_kinds
    for kind in deck.playing:
        playing[kind] += 1
    for kind in deck.supply:
        supply[kind] += 1
    return tuple(playing), tuple(supply)


def _empire_entry(empire: str) -> int:
    """The empire one-hot entry the observation shows (any empire but the four: "other")."""
    return KNOWN_EMPIRES.index(empire) if empire in KNOWN_EMPIRES else len(KNOWN_EMPIRES)


#: a deck list that fits what the others see of a player, with the player's unseen cards if it
#: were its list, split by the pile they came from: (deck, Playing Deck side, Supply Pile side)
_Fit = tuple[Deck, list[int], list[int]]


def _fit(state: GeneralsState, p: int, deck: Deck, shown: list[int], cards_held: int) -> _Fit | None:
    """``deck`` as player ``p``'s list, if it fits what the others see of ``p`` (its shown cards,
    its ``cards_held`` in all, its hand and pile sizes and the resources its hand may hold)."""
    player = state.players[p]
    if _empire_entry(deck.empire) != _empire_entry(player.empire):
        return None
    if len(deck.playing) + len(deck.supply) != cards_held:
        return None
    playing_counts, supply_counts = _deck_counts(deck, state.pool.size)
    unseen_playing: list[int] = []
    unseen_supply: list[int] = []
    for kind, seen in enumerate(shown):
        in_playing, in_supply = playing_counts[kind], supply_counts[kind]
        left = in_playing + in_supply - seen
        if left < 0:
            return None
        if left:
            (unseen_playing if in_playing else unseen_supply).extend([kind] * left)
    from_playing = len(unseen_playing) - len(player.playing_deck)  # hand cards of each pile
    from_supply = len(unseen_supply) - len(player.supply_pile)
    if from_playing < 0 or from_supply < 0:
        return None
    held = state.tables.harvested_kinds(player.banned_at_harvest)
    least_playing = max(0, from_playing - sum(not held[k] for k in unseen_playing))
    least_supply = max(0, from_supply - sum(not held[k] for k in unseen_supply))
    if not _resource_room(player, least_playing, least_supply):
        return None
    return deck, unseen_playing, unseen_supply


def _resource_room(player: PlayerState, from_playing: int, from_supply: int) -> bool:
    """Whether the hand may hold that many such resources from each pile (see determinize)."""
    drawn = player.drawn_playing + player.drawn_supply
    return (
        from_playing <= player.drawn_playing
        and from_supply <= player.drawn_supply
        and from_playing + from_supply <= drawn - player.resources_discarded
    )


def sample_deck_lists(state: GeneralsState, seat: int, rng: np.random.Generator) -> list[_Fit | None]:
    """Per seat, the deck list to resample it from (None: the seat itself, or no list fits)."""
    config = state.config
    available = config.available_decks
    choices: dict[int, list[_Fit]] = {}
    for p, player in enumerate(state.players):
        if p == seat:
            continue
        shown = _shown_counts(state, p)
        cards_held = player.card_count()
        if state.decks_public:
            candidates = [available[player.deck_id]] if player.deck_id in available else []
        else:
            candidates = list(available.values())
        choices[p] = [fit for deck in candidates if (fit := _fit(state, p, deck, shown, cards_held)) is not None]
    distinct = not state.decks_public and not config.allow_mirror
    fits: list[_Fit | None] = [None] * state.num_players
    order = [p for p, fitting in choices.items() if fitting]

    def assign(i: int, taken: frozenset[str]) -> bool:
        """Lists for the players ``order[i:]``, tried in random order (a depth-first search)."""
        if i == len(order):
            return True
        fitting = choices[order[i]]
        for j in rng.permutation(len(fitting)) if len(fitting) > 1 else (0,):
            fit = fitting[j]
            if distinct and fit[0].id in taken:
                continue
            fits[order[i]] = fit
            if assign(i + 1, taken | {fit[0].id}):
                return True
        return False

    if not assign(0, frozenset({state.players[seat].deck_id})):
        return [None] * state.num_players  # no consistent assignment: only a hand-built state
    return fits


def _resample_hidden(state: GeneralsState, p: int, fit: _Fit, rng: np.random.Generator) -> None:
    """Deal player ``p``'s unseen cards afresh from a deck list that fits (see determinize)."""
    player = state.players[p]
    deck, *split = fit
    held = state.tables.harvested_kinds(player.banned_at_harvest)
    sides = []
    for cards, pile_size in zip(split, (len(player.playing_deck), len(player.supply_pile)), strict=True):
        rng.shuffle(cards)
        sides.append((cards[:pile_size], cards[pile_size:]))
    (playing, hand_playing), (supply, hand_supply) = sides
    # too many resources in the hand for the draws since the last Harvest: trade the surplus for
    # other cards of the same pile (possible, since the list fits)
    while True:
        in_playing = sum(held[k] for k in hand_playing)
        in_supply = sum(held[k] for k in hand_supply)
        if _resource_room(player, in_playing, in_supply):
            break
        over_supply = in_supply > player.drawn_supply or not _swap_resource_out(hand_playing, playing, held)
        if over_supply and not _swap_resource_out(hand_supply, supply, held):
            raise AssertionError("determinize: the deck list fits, yet no swap is left")
    player.playing_deck = playing
    player.supply_pile = supply
    player.hand = new_counts(len(player.hand))
    for kind in hand_playing + hand_supply:
        player.hand[kind] += 1
    pinned = _pinned_in_hand(state, p)
    if pinned >= 0:
        player.hand[pinned] += 1
    player.deck_id, player.empire = deck.id, deck.empire


def _swap_resource_out(hand: list[int], pile: list[int], held: Sequence[bool]) -> bool:
    """Exchange one restricted resource of ``hand`` with a non-restricted card of ``pile``."""
    at_hand = next((i for i, kind in enumerate(hand) if held[kind]), -1)
    at_pile = next((i for i, kind in enumerate(pile) if not held[kind]), -1)
    if at_hand < 0 or at_pile < 0:
        return False
    hand[at_hand], pile[at_pile] = pile[at_pile], hand[at_hand]
    return True
