"""Empires and Generals rules as pure functions over a ``GeneralsState``: setup, legal actions,
apply (with the automatic steps), battles, cultural health, the end of the game, determinize.
Randomness enters only through ``rng`` (deck choice, shuffles, the first player). Ruling numbers
refer to ``docs/rules/generals.md`` (they follow the project's rulings).

Every decision with exactly one legal action is taken by the engine at once (ruling: auto-resolved
steps leave no trace), so an agent only ever sees real choices.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import add, mul
from typing import cast

import numpy as np

from ...core.compat import deprecated
from ...core.errors import IllegalActionError
from ...core.phases import PhaseRules, phase_table
from . import cards as card_data
from .actions import (
    DRAW_PLAYING,
    DRAW_SUPPLY,
    END_PHASE,
    NO_BLOCK,
    NO_TACTIC,
    PASS,
    PLAY_TURN,
    ActionLayout,
    Kind,
    layout_for,
)
from .cards import KNOWN_EMPIRES, STATIC_EFFECTS, CardPool, Deck
from .config import BASE_HAND_LIMIT, MAX_KINGDOM, UNIT_SLOTS, GeneralsConfig
from .state import (
    ARMY,
    ATTACK,
    BF,
    BLOCK,
    COUNT_TYPECODE,
    DECLARE,
    DISCARD_HAND,
    DRAW,
    KINGDOM,
    ONGOING,
    OVER,
    PHASE_NAMES,
    REPLACE_GENERAL,
    TACTIC,
    TARGET_KIND,
    TARGET_PLAYER,
    TRUNCATED,
    WC,
    WON,
    Battle,
    BattleOutcome,
    GeneralsState,
    Phase,
    PlayerState,
    Unit,
    new_counts,
)

# Battle outcomes (section 5.5 of the rulings): the row numbers of the outcome table.
(
    NO_BLOCKER,
    BLOCKER_OUT,
    ATTACKER_KILLS,
    DOUBLE_DEATH,
    COUNTER_ATTACK,
    ATTACKER_OUT,
    DOUBLE_BLOCK,
) = BattleOutcome


class CardTables:
    """Per-kind numbers of a pool, as tuples the rules index (built once per pool)."""

    def __init__(self, pool: CardPool) -> None:
        kinds = pool.kinds
        self.pool = pool
        self.kinds = kinds
        self.ids = tuple(k.id for k in kinds)
        self.type = tuple(k.type for k in kinds)
        self.is_unit = tuple(k.is_unit for k in kinds)
        self.is_general = tuple(k.is_general for k in kinds)
        self.is_soldier = tuple(k.is_soldier for k in kinds)
        self.is_resource = tuple(k.is_resource for k in kinds)
        self.cost = tuple(k.cost for k in kinds)
        self.value = tuple(k.value for k in kinds)
        self.static = {name: tuple(int(getattr(k, name)) for k in kinds) for name in STATIC_EFFECTS}
        self.has_static = tuple(k.is_static and any(getattr(k, n) for n in STATIC_EFFECTS) for k in kinds)
        self.ultra_rare = tuple(k.is_ultra_rare for k in kinds)
        self.has_ability = tuple(k.ability is not None for k in kinds)
        # the kinds each main phase may play, ascending: what its legality loops look at
        self.kingdom_phase_kinds = tuple(k.index for k in kinds if k.is_static or k.is_main_tactic)
        self.unit_kinds = tuple(k.index for k in kinds if k.is_unit)
        self.battle_tactic_kinds = tuple(k.index for k in kinds if k.is_battle_tactic)
        self._statics: dict[tuple, dict[str, int]] = {}
        self._layouts: dict[int, ActionLayout] = {}
        self._harvested: dict[frozenset[int], tuple[bool, ...]] = {}

    def __reduce__(self) -> tuple:
        # a pickled state brings back the shared tables of its pool, not a private copy
        return _tables_for, (self.pool,)

    def harvested_kinds(self, banned: frozenset[int]) -> tuple[bool, ...]:
        """Per kind, whether a Harvest puts it into play while ``banned`` holds the banned kinds:
        the resources not banned (``determinize`` keeps them out of hands after a Harvest)."""
        kinds = self._harvested.get(banned)
        if kinds is None:
            kinds = self._harvested[banned] = tuple(
                resource and kind not in banned for kind, resource in enumerate(self.is_resource)
            )
        return kinds

    def layout(self, offsets: int) -> ActionLayout:
        lay = self._layouts.get(offsets)
        if lay is None:
            lay = self._layouts[offsets] = layout_for(len(self.kinds), offsets)
        return lay

    def statics_of(self, in_play: tuple) -> dict[str, int]:
        """Static totals of ``(the bytes of the Kingdom counts, Strategy, Capitol)`` (-1 for
        none). Few distinct combinations occur, so each is computed once."""
        totals = self._statics.get(in_play)
        if totals is None:
            kingdom_bytes, strategy, capitol = in_play
            kingdom = array(COUNT_TYPECODE, kingdom_bytes)
            totals = {}
            for effect, values in self.static.items():
                total = sum(count * values[kind] for kind, count in enumerate(kingdom) if count)
                total += (values[strategy] if strategy >= 0 else 0) + (values[capitol] if capitol >= 0 else 0)
                totals[effect] = total
            if len(self._statics) > 100_000:  # a bound for pathological pools; games stay far below
                self._statics.clear()
            self._statics[in_play] = totals
        return totals


@lru_cache(maxsize=8)
def _tables_for(pool: CardPool) -> CardTables:
    return CardTables(pool)


def load_pool(config: GeneralsConfig) -> CardPool:
    """The config's card pool (read once, when the config was made)."""
    return config.pool


def available_decks(config: GeneralsConfig, pool: CardPool | None = None) -> dict[str, Deck]:
    """The decks seats may be given, by id: the prebuilt ones or ``deck_files``, read and
    checked when the config was made (``pool``, if given, must be the config's)."""
    if pool is not None and pool is not config.pool:
        raise ValueError("available_decks: pool must be the config's own pool (config.pool)")
    return dict(config.available_decks)


def layout(state: GeneralsState) -> ActionLayout:
    return state.layout


# --------------------------------------------------------------------------- setup


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
    state = GeneralsState(config, pool, _tables_for(pool))
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
            _draw(player, player.playing_deck)
        for _ in range(from_supply):
            _draw(player, player.supply_pile)
    if first_player is None:
        first_player = int(rng.integers(config.num_players))
    state.first = state.current = first_player
    _begin_turn(state)
    _auto_resolve(state, rng)
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


def _draw(player: PlayerState, pile: list[int]) -> int:
    """Move the top card of ``pile`` to the hand; -1 if the pile is empty."""
    if not pile:
        return -1
    kind = pile.pop()
    player.hand[kind] += 1
    if pile is player.playing_deck:
        player.drawn_playing += 1
    else:
        player.drawn_supply += 1
    return kind


# --------------------------------------------------------------------------- derived numbers


def statics(state: GeneralsState, seat: int) -> dict[str, int]:
    """Every static effect's total over the seat's Kingdom, Strategy and Capitol."""
    player = state.players[seat]
    return state.tables.statics_of((bytes(player.kingdom), player.strategy, player.capitol))


def static_total(state: GeneralsState, seat: int, effect: str) -> int:
    """The sum of a static effect over the seat's Kingdom, Strategy and Capitol."""
    return statics(state, seat)[effect]


def has_keyword(state: GeneralsState, seat: int, kind: int, keyword: str) -> bool:
    """A unit kind's keyword, own or granted to all the seat's Soldiers by a static card."""
    if keyword in state.tables.kinds[kind].keywords:
        return True
    if state.tables.is_soldier[kind] and keyword in ("raider", "no_pull"):
        return static_total(state, seat, "grant_" + keyword) > 0
    return False


def _obeys_pull(card, general: bool, granted_no_pull: bool) -> bool:
    """Rulings 34-35: a Soldier waits a turn in the Warcamp unless ``no_pull`` (its own or
    granted to all the owner's Soldiers); a General only with the ``pull`` keyword."""
    if general:
        return "pull" in card.keywords
    return not ("no_pull" in card.keywords or granted_no_pull)


def obeys_pull(state: GeneralsState, seat: int, kind: int) -> bool:
    granted = statics(state, seat)["grant_no_pull"] > 0
    return _obeys_pull(state.tables.kinds[kind], state.tables.is_general[kind], granted)


def bf_entry_flags(state: GeneralsState, seat: int) -> list[bool]:
    """Per slot, whether the unit there may move from the Warcamp to the Battlefield now."""
    player = state.players[seat]
    kinds, is_general = state.tables.kinds, state.tables.is_general
    granted = statics(state, seat)["grant_no_pull"] > 0
    return [
        unit is not None
        and unit.zone == WC
        and (
            not _obeys_pull(kinds[unit.kind], is_general[unit.kind], granted) or player.turns_taken > unit.entered_turn
        )
        for unit in player.units
    ]


def may_enter_bf(state: GeneralsState, seat: int, slot: int) -> bool:
    return bf_entry_flags(state, seat)[slot]


def unit_numbers(state: GeneralsState, seat: int) -> list[tuple[int, int] | None]:
    """``(strength, life)`` of every slot of the seat outside a battle (None for an empty
    slot), section 5.1: base numbers, the owner's statics, ``field_str`` and the other Generals'
    auras in the Battlefield, ``camp_life`` and ``camp_life_all`` in the Warcamp."""
    player = state.players[seat]
    kinds = state.tables.kinds
    totals = statics(state, seat)
    auras = sum(kinds[u.kind].aura_str for u in player.units if u is not None and u.zone == BF)
    numbers: list[tuple[int, int] | None] = []
    for unit in player.units:
        if unit is None:
            numbers.append(None)
            continue
        card = kinds[unit.kind]
        general = card.is_general
        strength = card.strength + totals["general_str" if general else "soldier_str"]
        life = card.life + totals["general_life" if general else "soldier_life"]
        if unit.zone == BF:
            strength += card.field_str + auras - card.aura_str
        else:
            life += card.camp_life + totals["camp_life_all"]
        numbers.append((strength, life))
    return numbers


def _numbers_at(state: GeneralsState, seat: int, slot: int) -> tuple[int, int]:
    numbers = unit_numbers(state, seat)[slot]
    assert numbers is not None, f"seat {seat} has no unit in slot {slot}"
    return numbers


def unit_strength(state: GeneralsState, seat: int, slot: int, attacking: bool = False) -> int:
    """Effective strength outside tactic pumps, with ``attack_str`` when attacking."""
    strength = _numbers_at(state, seat, slot)[0]
    if attacking:
        unit = state.players[seat].units[slot]
        assert unit is not None
        strength += state.tables.kinds[unit.kind].attack_str
    return strength


def unit_life(state: GeneralsState, seat: int, slot: int, blocking: bool = False) -> int:
    """Effective life outside tactic pumps, with ``block_life`` when blocking."""
    life = _numbers_at(state, seat, slot)[1]
    if blocking:
        unit = state.players[seat].units[slot]
        assert unit is not None
        life += state.tables.kinds[unit.kind].block_life
    return life


def effective_cost(state: GeneralsState, seat: int, kind: int) -> int:
    cost = state.tables.cost[kind]
    if state.tables.is_soldier[kind]:
        cost = max(0, cost - static_total(state, seat, "soldier_discount"))
    return cost


def ready_value(state: GeneralsState, seat: int) -> int:
    return sum(map(mul, state.players[seat].supply_ready, state.tables.value))


def fresh_value(state: GeneralsState, seat: int) -> int:
    return sum(map(mul, state.players[seat].supply_fresh, state.tables.value))


def money(state: GeneralsState, seat: int) -> int:
    """What the seat can pay right now: its budget and every ready Supply Line card (ruling 24)."""
    return state.players[seat].budget + ready_value(state, seat)


def can_pay(state: GeneralsState, seat: int, amount: int) -> bool:
    return amount <= money(state, seat)


def payment_choice(state: GeneralsState, seat: int, amount: int) -> list[int]:
    """The ready cards (kinds, one entry per card) a payment spends after the budget: least
    overpayment, then fewest cards, then the lowest refs (ruling 24)."""
    player = state.players[seat]
    need = amount - player.budget
    if need <= 0:
        return []
    values, kinds = state.tables.value, state.tables.kinds
    ready = sorted((kinds[k].ref, k) for k, count in enumerate(player.supply_ready) if count)
    best: list = []  # [key, kinds spent]

    def search(i: int, total: int, spent: list[int]) -> None:
        if total >= need:
            key = (total - need, len(spent), sorted(kinds[k].ref for k in spent))
            if not best or key < best[0]:
                best[:] = [key, spent]
            return
        if i == len(ready):
            return
        kind = ready[i][1]
        for copies in range(player.supply_ready[kind] + 1):
            search(i + 1, total + copies * values[kind], spent + [kind] * copies)
            if total + copies * values[kind] >= need:
                break  # another copy would only overpay more

    search(0, 0, [])
    if not best:
        raise IllegalActionError(f"seat {seat} cannot pay {amount}")
    return best[1]


def _pay(state: GeneralsState, seat: int, amount: int) -> None:
    player = state.players[seat]
    spent = payment_choice(state, seat, amount)
    for kind in spent:
        player.supply_ready[kind] -= 1
        player.discard[kind] += 1
        player.budget += state.tables.value[kind]
    player.budget -= amount


def generals_in_play(state: GeneralsState, seat: int) -> list[int]:
    is_general = state.tables.is_general
    return [u for u, unit in enumerate(state.players[seat].units) if unit is not None and is_general[unit.kind]]


def free_slot(player: PlayerState) -> int:
    for slot, unit in enumerate(player.units):
        if unit is None:
            return slot
    return -1


def hand_limit(state: GeneralsState, seat: int) -> int:
    return BASE_HAND_LIMIT + static_total(state, seat, "hand_limit")


def opponents_in_game(state: GeneralsState, seat: int) -> list[int]:
    return [p for p in range(state.num_players) if p != seat and state.players[p].alive]


# --------------------------------------------------------------------------- the phases
#
# Each phase in one place: who acts, what that seat may do, what an action does. The table at
# the end of this section (``PHASES``) collects them; ``legal_actions``, ``legal_mask``,
# ``is_legal``, ``acting_player`` and ``apply_action`` only look the phase up in it.


@dataclass(frozen=True)
class GeneralsPhaseRules(PhaseRules[GeneralsState]):
    """A phase's rules, plus, for the four main phases, ``choices(state)``: the action that is
    always legal there (end the phase, no tactic) and an iterator over the others, not in index
    order. The mask, the legality test and the automatic single choice read it, so none of them
    sorts, and the legality test stops at the action it looks for."""

    choices: Callable[[GeneralsState], tuple[int, Iterator[int]]] | None = None


def _turn_player(state: GeneralsState) -> int:
    return state.current


def _defender(state: GeneralsState) -> int:
    battle = state.battle
    assert battle is not None  # BLOCK and TACTIC happen inside a battle
    return battle.defender


def _tactic_side(state: GeneralsState) -> int:
    """The attacker plays (or declines) its tactic first, then the defender."""
    battle = state.battle
    assert battle is not None
    return battle.attacker if battle.tactic_turn == 0 else battle.defender


def _nobody(state: GeneralsState) -> int:
    return -1


def _decoded(state: GeneralsState, action: int) -> tuple[Kind, int, int, int]:
    """An action's kind and arguments (-1 where unused); legal, hence in range."""
    kind, a, b, c = state.layout.table.actions[action]
    return kind, a, b, c


# DECLARE (ruling 19): play this turn, or pass it; never two passes in a row.


def _declare_actions(state: GeneralsState) -> list[int]:
    return [PLAY_TURN] if state.players[state.current].passed_last else [PLAY_TURN, PASS]


def _apply_declare(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    _declare(state, state.current, action == PASS)


# DRAW (rulings 21-22): one pile per draw, as long as it holds a card.


def _draw_actions(state: GeneralsState) -> list[int]:
    player = state.players[state.current]
    actions = []
    if player.playing_deck:
        actions.append(DRAW_PLAYING)
    if player.supply_pile:
        actions.append(DRAW_SUPPLY)
    return actions


def _apply_draw(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    player = state.players[state.current]
    _draw(player, player.playing_deck if action == DRAW_PLAYING else player.supply_pile)
    state.draws_left -= 1
    _continue_draw(state)


# KINGDOM (ruling 33): Kingdom, Strategy and Capitol cards and main tactics, then END_PHASE.


def _kingdom_choices(state: GeneralsState) -> tuple[int, Iterator[int]]:
    play = state.layout.play
    return END_PHASE, (play + kind for kind in _kingdom_plays(state, state.current))


def _kingdom_actions(state: GeneralsState) -> list[int]:
    first, more = _kingdom_choices(state)
    return [first, *more]  # the plays come ascending


def _apply_kingdom(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    if action == END_PHASE:
        state.phase = ARMY
    else:
        _play_kingdom_card(state, state.current, _decoded(state, action)[1])


# ARMY (rulings 34-39): units to the Warcamp or the Battlefield, abilities, Soldier discards.


def _army_choices(state: GeneralsState) -> tuple[int, Iterator[int]]:
    return END_PHASE, _army_actions(state, state.current, state.layout)


def _army_legal_actions(state: GeneralsState) -> list[int]:
    first, more = _army_choices(state)
    return [first, *sorted(more)]


def _apply_army(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    kind, a, _, _ = _decoded(state, action)
    seat = state.current
    if kind is Kind.END_PHASE:
        state.phase = ATTACK
    elif kind is Kind.PLAY or kind is Kind.PLAY_TO_BF:
        _play_unit(state, seat, a, kind is Kind.PLAY_TO_BF)
    elif kind is Kind.ACTIVATE:
        _activate(state, seat, a)
    else:  # DISCARD_UNIT of a Soldier (ruling 38)
        _discard_unit(state, seat, a)


# REPLACE_GENERAL (ruling 36, max_generals > 1): the General a new one replaces.


def _replace_general_actions(state: GeneralsState) -> list[int]:
    discard_unit = state.layout.discard_unit
    return [discard_unit + slot for slot in generals_in_play(state, state.current)]


def _apply_replace_general(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    seat = state.current
    _discard_unit(state, seat, _decoded(state, action)[1])
    state.phase = ARMY
    state.players[seat].hand[state.pending_card] -= 1
    _enter_play(state, seat, state.pending_card, state.pending_to_bf)
    state.pending_card = -1


# ATTACK (rulings 40-44): free moves, then at most one attack, or END_PHASE.


def _attack_choices(state: GeneralsState) -> tuple[int, Iterator[int]]:
    return END_PHASE, _attack_actions(state, state.current, state.layout)


def _attack_legal_actions(state: GeneralsState) -> list[int]:
    first, more = _attack_choices(state)
    return [first, *more]  # moves then attacks, ascending


def _apply_attack(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    kind, a, b, c = _decoded(state, action)
    seat = state.current
    if kind is Kind.END_PHASE:
        _resolve_phase(state)
    elif kind is Kind.MOVE:
        units = state.players[seat].units
        unit = units[a]
        assert unit is not None
        units[a] = unit._replace(zone=WC if unit.zone == BF else BF)
    else:
        _declare_attack(state, seat, a, state.seat_at(seat, b), c)


# BLOCK (section 5.5, steps 2-3): the defender blocks with a unit of the battle's zone, or not.


def _block_actions(state: GeneralsState) -> list[int]:
    battle = state.battle
    assert battle is not None
    block = state.layout.block
    units = state.players[battle.defender].units
    return [NO_BLOCK] + [
        block + slot for slot, unit in enumerate(units) if unit is not None and unit.zone == battle.zone
    ]


def _apply_block(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    kind, a, _, _ = _decoded(state, action)
    _block(state, a if kind is Kind.BLOCK else -1)


# TACTIC (section 5.5, step 4): one battle tactic per side, the attacker first, or none.


def _tactic_choices(state: GeneralsState) -> tuple[int, Iterator[int]]:
    play = state.layout.play
    return NO_TACTIC, (play + kind for kind in _tactic_plays(state, _tactic_side(state)))


def _tactic_legal_actions(state: GeneralsState) -> list[int]:
    first, more = _tactic_choices(state)
    return [first, *more]  # the tactics come ascending


def _apply_tactic(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    kind, a, _, _ = _decoded(state, action)
    _tactic(state, _tactic_side(state), a if kind is Kind.PLAY else -1)


# TARGET_PLAYER, TARGET_KIND (a destroy_kingdom tactic): an opponent, then a Kingdom card of it.


def _target_player_actions(state: GeneralsState) -> list[int]:
    seat = state.current
    target_player = state.layout.target_player
    return sorted(
        target_player + state.offset_of(seat, p) - 1
        for p in opponents_in_game(state, seat)
        if sum(state.players[p].kingdom)
    )


def _apply_target_player(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    state.target_player = state.seat_at(state.current, _decoded(state, action)[1])
    state.phase = TARGET_KIND


def _target_kind_actions(state: GeneralsState) -> list[int]:
    target_kind = state.layout.target_kind
    return [target_kind + kind for kind, count in enumerate(state.players[state.target_player].kingdom) if count]


def _apply_target_kind(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    kind = _decoded(state, action)[1]
    target = state.players[state.target_player]
    target.kingdom[kind] -= 1
    target.discard[kind] += 1
    state.target_player = -1
    state.phase = KINGDOM


# DISCARD_HAND (ruling 52): one card at a time down to the hand limit; then the turn ends.


def _discard_hand_actions(state: GeneralsState) -> list[int]:
    discard_hand = state.layout.discard_hand
    return [discard_hand + kind for kind, count in enumerate(state.players[state.current].hand) if count]


def _apply_discard_hand(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    kind = _decoded(state, action)[1]
    seat = state.current
    player = state.players[seat]
    player.hand[kind] -= 1
    player.discard[kind] += 1
    if state.tables.is_resource[kind] and kind not in player.banned_at_harvest:
        player.resources_discarded += 1
    if sum(player.hand) <= hand_limit(state, seat):
        _end_turn(state)


# OVER: nobody acts.


def _no_actions(state: GeneralsState) -> list[int]:
    return []


def _apply_nothing(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    raise IllegalActionError("the game is over")


#: every phase's rules, indexed by ``Phase``
PHASES = cast(
    "tuple[GeneralsPhaseRules, ...]",
    phase_table(
        Phase,
        {
            Phase.DECLARE: GeneralsPhaseRules(actor=_turn_player, legal_actions=_declare_actions, apply=_apply_declare),
            Phase.DRAW: GeneralsPhaseRules(actor=_turn_player, legal_actions=_draw_actions, apply=_apply_draw),
            Phase.KINGDOM: GeneralsPhaseRules(
                actor=_turn_player, legal_actions=_kingdom_actions, apply=_apply_kingdom, choices=_kingdom_choices
            ),
            Phase.ARMY: GeneralsPhaseRules(
                actor=_turn_player, legal_actions=_army_legal_actions, apply=_apply_army, choices=_army_choices
            ),
            Phase.ATTACK: GeneralsPhaseRules(
                actor=_turn_player, legal_actions=_attack_legal_actions, apply=_apply_attack, choices=_attack_choices
            ),
            Phase.BLOCK: GeneralsPhaseRules(actor=_defender, legal_actions=_block_actions, apply=_apply_block),
            Phase.TACTIC: GeneralsPhaseRules(
                actor=_tactic_side, legal_actions=_tactic_legal_actions, apply=_apply_tactic, choices=_tactic_choices
            ),
            Phase.TARGET_PLAYER: GeneralsPhaseRules(
                actor=_turn_player, legal_actions=_target_player_actions, apply=_apply_target_player
            ),
            Phase.TARGET_KIND: GeneralsPhaseRules(
                actor=_turn_player, legal_actions=_target_kind_actions, apply=_apply_target_kind
            ),
            Phase.DISCARD_HAND: GeneralsPhaseRules(
                actor=_turn_player, legal_actions=_discard_hand_actions, apply=_apply_discard_hand
            ),
            Phase.REPLACE_GENERAL: GeneralsPhaseRules(
                actor=_turn_player, legal_actions=_replace_general_actions, apply=_apply_replace_general
            ),
            Phase.OVER: GeneralsPhaseRules(actor=_nobody, legal_actions=_no_actions, apply=_apply_nothing),
        },
    ),
)
GeneralsState.phase_rules = PHASES  # what ``state.acting_player()`` reads


# --------------------------------------------------------------------------- legality


def acting_player(state: GeneralsState) -> int:
    """The seat whose decision is pending (-1 once the game is over)."""
    return PHASES[state.phase].actor(state)


def legal_actions(state: GeneralsState) -> list[int]:
    """The legal action indices of the acting seat, ascending."""
    return PHASES[state.phase].legal_actions(state)


def legal_mask(state: GeneralsState) -> np.ndarray:
    mask = np.zeros(state.layout.size, dtype=np.int8)
    rules = PHASES[state.phase]
    if rules.choices is None:
        mask[rules.legal_actions(state)] = 1
    else:  # no need to sort what only marks the mask
        first, more = rules.choices(state)
        mask[[first, *more]] = 1
    return mask


def is_legal(state: GeneralsState, action: int) -> bool:
    """Whether ``action`` is legal for the acting seat (the phase's candidates are generated only
    until it turns up)."""
    if isinstance(action, np.integer):
        action = int(action)
    if isinstance(action, bool) or not isinstance(action, int):
        return False
    rules = PHASES[state.phase]
    if rules.choices is None:
        return action in rules.legal_actions(state)
    first, more = rules.choices(state)
    return action == first or action in more


def _single_action(state: GeneralsState) -> int | None:
    """The one legal action when there is exactly one, else None (without listing them all)."""
    rules = PHASES[state.phase]
    if rules.choices is not None:
        first, more = rules.choices(state)
        return first if next(more, None) is None else None
    legal = rules.legal_actions(state)
    return legal[0] if len(legal) == 1 else None


def _kingdom_plays(state: GeneralsState, seat: int) -> Iterator[int]:
    """Ruling 33 and the KINGDOM row: Kingdom (fewer than 8), Strategy, Capitol and main
    tactics, ascending."""
    player = state.players[seat]
    tables = state.tables
    hand, cost, banned = player.hand, tables.cost, state.banned
    money_at_hand = money(state, seat)
    for kind in tables.kingdom_phase_kinds:
        if not hand[kind] or kind in banned or cost[kind] > money_at_hand:
            continue
        card = tables.kinds[kind]
        if card.is_kingdom:
            if sum(player.kingdom) >= MAX_KINGDOM:
                continue
        elif (
            card.is_tactic
            and card.effect == "destroy_kingdom"
            and not any(sum(state.players[p].kingdom) for p in opponents_in_game(state, seat))
        ):
            continue
        yield kind


def _army_actions(state: GeneralsState, seat: int, lay: ActionLayout) -> Iterator[int]:
    """The ARMY row's plays, abilities and Soldier discards (not in index order)."""
    player = state.players[seat]
    tables = state.tables
    hand, banned = player.hand, state.banned
    money_at_hand = money(state, seat)
    has_slot = free_slot(player) >= 0
    at_cap = len(generals_in_play(state, seat)) >= state.config.max_generals
    discount = statics(state, seat)["soldier_discount"]
    for kind in tables.unit_kinds:
        if not hand[kind] or kind in banned:
            continue
        general = tables.is_general[kind]
        cost = tables.cost[kind] if general else max(0, tables.cost[kind] - discount)
        if cost > money_at_hand:
            continue
        # a General at the cap replaces one of the seat's Generals, which frees a slot
        if not (has_slot or (general and at_cap)):
            continue
        yield lay.play + kind
        if not obeys_pull(state, seat, kind):
            yield lay.play_to_bf + kind
    for slot, unit in enumerate(player.units):
        if unit is None:
            continue
        ability = tables.kinds[unit.kind].ability
        if ability is not None and not unit.ability_used and ability.cost <= money_at_hand:
            yield lay.activate + slot
        if tables.is_soldier[unit.kind]:
            yield lay.discard_unit + slot


def _attack_actions(state: GeneralsState, seat: int, lay: ActionLayout) -> Iterator[int]:
    """The ATTACK row's moves and attacks, ascending."""
    player = state.players[seat]
    may_enter = bf_entry_flags(state, seat)
    for slot, unit in enumerate(player.units):
        if unit is not None and (unit.zone == BF or may_enter[slot]):
            yield lay.move + slot
    if state.attacked or not generals_in_play(state, seat):
        return
    targets = sorted(state.offset_of(seat, p) for p in opponents_in_game(state, seat))
    any_zone = state.config.warcamp_attacks == "any"
    for slot, unit in enumerate(player.units):
        if unit is None or unit.zone != BF:
            continue
        raider = any_zone or has_keyword(state, seat, unit.kind, "raider")
        for offset in targets:
            yield lay.attack_index(slot, offset, BF)
            if raider:
                yield lay.attack_index(slot, offset, WC)


def _tactic_plays(state: GeneralsState, seat: int) -> Iterator[int]:
    """Battle tactics the acting side may play now (section 5.5, step 4), ascending."""
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    attacking = seat == battle.attacker
    own_in = not battle.a_out if attacking else battle.blocker >= 0 and not battle.b_out
    enemy_in = (battle.blocker >= 0 and not battle.b_out) if attacking else not battle.a_out
    side = "attacker" if attacking else "defender"
    tables = state.tables
    hand, banned = state.players[seat].hand, state.banned
    money_at_hand = money(state, seat)
    for kind in tables.battle_tactic_kinds:
        if not hand[kind] or kind in banned or tables.cost[kind] > money_at_hand:
            continue
        card = tables.kinds[kind]
        if card.side not in ("any", side):
            continue
        if enemy_in if card.effect == "remove_enemy" else own_in:
            yield kind


# --------------------------------------------------------------------------- applying actions


def apply_action(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    """Play ``action`` for the acting seat (mutating ``state``), then every automatic step that
    follows; each seat's reward for it. ``IllegalActionError`` (state untouched) if illegal."""
    if state.phase == OVER:
        raise IllegalActionError("the game is over")
    if isinstance(action, np.integer):
        action = int(action)
    if not is_legal(state, action):
        legal = legal_actions(state)
        lay = layout(state)
        name = (
            lay.name(action, state.tables.ids) if isinstance(action, int) and 0 <= action < lay.size else repr(action)
        )
        raise IllegalActionError(
            f"{name} (action {action!r}) is not legal for seat {acting_player(state)} in phase "
            f"{PHASE_NAMES[state.phase]}; legal: {legal}"
        )
    state.rewards = [0.0] * state.num_players
    _do(state, action, rng)
    _auto_resolve(state, rng)
    state.decisions += 1
    if state.decisions >= state.decision_limit and state.phase != OVER:
        _truncate(state)  # only endless back-and-forth moves get here (max_game_length)
    return state.rewards


def _auto_resolve(state: GeneralsState, rng: np.random.Generator) -> None:
    """Take every decision that has exactly one legal action (they leave no trace)."""
    while state.phase != OVER:
        action = _single_action(state)
        if action is None:
            return
        _do(state, action, rng)


def _after_departure(state: GeneralsState) -> None:
    """A turn player that left the game mid-turn (a Chancellor victory with play for second, or
    running out of cards with ``deckout_loses``) ends its turn there."""
    if state.phase != OVER and not state.players[state.current].alive:
        state.battle = None
        _end_turn(state)


def _do(state: GeneralsState, action: int, rng: np.random.Generator) -> None:
    PHASES[state.phase].apply(state, action, rng)
    _after_departure(state)


# --------------------------------------------------------------------------- the turn


def _begin_turn(state: GeneralsState) -> None:
    player = state.players[state.current]
    player.turns_taken += 1
    state.attacked = False
    state.phase = DECLARE


def _declare(state: GeneralsState, seat: int, passes: bool) -> None:
    """Ruling 19: a pass skips the whole turn; never two in a row."""
    player = state.players[seat]
    player.passed_last = passes
    if passes:
        _end_turn(state)
        return
    state.draws_left = 1 + static_total(state, seat, "draw_extra")
    state.phase = DRAW
    _continue_draw(state)


def _continue_draw(state: GeneralsState) -> None:
    """Draw until the draws are used (rulings 21-22), then Harvest and the Kingdom phase."""
    seat = state.current
    player = state.players[seat]
    while state.draws_left > 0:
        if not player.playing_deck and not player.supply_pile:
            if state.config.deckout_loses:
                _eliminate(state, seat)
                return
            state.draws_left = 0
            break
        if state.config.draw_mode == "both":
            _draw(player, player.playing_deck)
            _draw(player, player.supply_pile)
            state.draws_left -= 1
            continue
        return  # a decision (or an automatic single choice) per draw
    _harvest(state, seat)


def _harvest(state: GeneralsState, seat: int) -> None:
    """Rulings 23-26: resources go from hand to the Supply Line (fresh unless continuous), but
    for banned ones, and an ultra rare bans its kind as it enters play (ruling 7); harvest
    effects add budget; ch_per_turn effects add CH."""
    player = state.players[seat]
    tables = state.tables
    banned = state.banned
    for kind, count in enumerate(player.hand):
        if not count or not tables.is_resource[kind] or kind in banned:
            continue  # a banned resource cannot be played: it stays in the hand (ruling 7)
        if tables.ultra_rare[kind]:
            count = 1  # the first copy to enter play bans the others
            banned.add(kind)
        player.hand[kind] -= count
        if tables.kinds[kind].continuous:
            player.supply_ready[kind] += count
        else:
            player.supply_fresh[kind] += count
    player.drawn_playing = player.drawn_supply = player.resources_discarded = 0
    if len(player.banned_at_harvest) != len(banned):  # bans only ever grow
        player.banned_at_harvest = frozenset(banned)
    player.budget += static_total(state, seat, "harvest")
    state.phase = KINGDOM
    _change_ch(state, seat, static_total(state, seat, "ch_per_turn"))


def _resolve_phase(state: GeneralsState) -> None:
    """Ruling 52: discard down to the hand limit, then the turn ends."""
    state.battle = None
    seat = state.current
    if state.players[seat].alive and sum(state.players[seat].hand) > hand_limit(state, seat):
        state.phase = DISCARD_HAND
    else:
        _end_turn(state)


def _end_turn(state: GeneralsState) -> None:
    """Budgets cleared, fresh resources ready, abilities reset, next seat in the game (26, 54)."""
    if state.phase == OVER:
        return
    seat = state.current
    for player in state.players:
        player.budget = 0
        units = player.units
        for slot, unit in enumerate(units):
            if unit is not None and unit.ability_used:
                units[slot] = unit._replace(ability_used=False)
    player = state.players[seat]
    if any(player.supply_fresh):
        player.supply_ready = array(COUNT_TYPECODE, map(add, player.supply_ready, player.supply_fresh))
        player.supply_fresh = new_counts(len(player.supply_fresh))
    state.battle = None
    alive = [p for p in range(state.num_players) if state.players[p].alive]
    if len(alive) < 2:  # the game ended on this turn (a win is handled where it happens)
        return
    n = state.num_players
    nxt = next(state.seat_at(seat, o) for o in range(1, n + 1) if state.players[state.seat_at(seat, o)].alive)
    # a new round begins when play passes the first player's place at the table
    if (nxt - state.first) % n <= (seat - state.first) % n:
        if state.round >= state.config.length_limit:
            _truncate(state)
            return
        state.round += 1
    state.current = nxt
    _begin_turn(state)


# --------------------------------------------------------------------------- playing cards


def _truncate(state: GeneralsState) -> None:
    """The game stops with no winner: the seats still in get 0 (``final_rewards``)."""
    state.outcome = TRUNCATED
    state.phase = OVER


def _ban_if_ultra_rare(state: GeneralsState, kind: int) -> None:
    """Ruling 7: once an ultra rare enters play, nobody may play that card again."""
    if state.tables.ultra_rare[kind]:
        state.banned.add(kind)


def _play_kingdom_card(state: GeneralsState, seat: int, kind: int) -> None:
    player = state.players[seat]
    card = state.tables.kinds[kind]
    _pay(state, seat, effective_cost(state, seat, kind))
    player.hand[kind] -= 1
    _ban_if_ultra_rare(state, kind)
    if card.is_kingdom:
        player.kingdom[kind] += 1
    elif card.is_strategy:  # ruling 31: one slot, the old one is discarded
        if player.strategy >= 0:
            player.discard[player.strategy] += 1
        player.strategy = kind
    elif card.is_capitol:  # ruling 28
        if player.capitol >= 0:
            player.discard[player.capitol] += 1
        player.capitol = kind
    else:  # a main tactic: resolves and goes to the discard pile
        player.discard[kind] += 1
        if card.effect == "draw":
            for _ in range(card.amount):
                _draw(player, player.playing_deck)
        elif card.effect == "gain_ch":
            _change_ch(state, seat, card.amount)
        else:  # destroy_kingdom: choose the player, then the card
            state.phase = TARGET_PLAYER
        return
    _change_ch(state, seat, card.on_play_ch)


def _play_unit(state: GeneralsState, seat: int, kind: int, to_bf: bool) -> None:
    player = state.players[seat]
    _pay(state, seat, effective_cost(state, seat, kind))
    if state.tables.is_general[kind]:
        generals = generals_in_play(state, seat)
        if len(generals) >= state.config.max_generals:  # ruling 36
            if state.config.max_generals == 1:
                _discard_unit(state, seat, generals[0])
            else:  # the card waits in the hand (paid) while its owner picks the General to go
                state.pending_card, state.pending_to_bf = kind, to_bf
                state.phase = REPLACE_GENERAL
                return
    player.hand[kind] -= 1
    _enter_play(state, seat, kind, to_bf)


def _enter_play(state: GeneralsState, seat: int, kind: int, to_bf: bool) -> None:
    player = state.players[seat]
    slot = free_slot(player)
    player.units[slot] = Unit(kind, BF if to_bf else WC, player.turns_taken)
    _ban_if_ultra_rare(state, kind)
    card = state.tables.kinds[kind]
    for _ in range(card.on_play_draw):
        _draw(player, player.playing_deck)
    _change_ch(state, seat, card.on_play_ch)


def _activate(state: GeneralsState, seat: int, slot: int) -> None:
    """Ruling 37: a paid ability, once per unit per turn."""
    player = state.players[seat]
    unit = player.units[slot]
    assert unit is not None
    ability = state.tables.kinds[unit.kind].ability
    _pay(state, seat, ability.cost)
    player.units[slot] = unit._replace(ability_used=True)
    if ability.effect == "draw":
        for _ in range(ability.amount):
            _draw(player, player.playing_deck)
    else:
        _change_ch(state, seat, ability.amount)


def _discard_unit(state: GeneralsState, seat: int, slot: int) -> None:
    player = state.players[seat]
    unit = player.units[slot]
    assert unit is not None
    player.discard[unit.kind] += 1
    player.units[slot] = None


# --------------------------------------------------------------------------- battles


def _declare_attack(state: GeneralsState, seat: int, slot: int, defender: int, zone: int) -> None:
    state.attacked = True
    state.battle = Battle(seat, slot, defender, zone)
    state.phase = BLOCK


def _block(state: GeneralsState, slot: int) -> None:
    """Section 5.5, steps 2, 3 and 6: a blocker or none; an unblocked Battlefield attack turns
    on the Warcamp."""
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    battle.blocker = slot
    battle.blocker_declared = slot >= 0
    if battle.zone == BF and slot < 0:
        battle.outcomes.append((BF, NO_BLOCKER))
        battle.zone = WC
        battle.redirected = True
        return  # the defender chooses a Warcamp blocker (phase stays BLOCK)
    if battle.window_done:
        _resolve_battle(state)
    else:
        state.phase = TACTIC
        battle.stage = TACTIC
        battle.tactic_turn = 0


def _tactic(state: GeneralsState, seat: int, kind: int) -> None:
    """Step 4: one tactic per side, the attacker first; each resolves at once."""
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    attacking = seat == battle.attacker
    if kind >= 0:
        player = state.players[seat]
        card = state.tables.kinds[kind]
        _pay(state, seat, effective_cost(state, seat, kind))
        player.hand[kind] -= 1
        player.discard[kind] += 1
        _ban_if_ultra_rare(state, kind)
        battle.tactics[0 if attacking else 1] = kind
        if card.effect == "pump_str":
            battle.pumps[0 if attacking else 2] += card.amount
        elif card.effect == "pump_life":
            battle.pumps[1 if attacking else 3] += card.amount
        elif card.effect == "withdraw_self":
            if attacking:
                battle.a_out = True
            else:
                battle.b_out = True
        else:  # remove_enemy: the opposing unit is discarded (not killed: no kill trigger)
            if attacking:
                _discard_unit(state, battle.defender, battle.blocker)
                battle.b_out = True
            else:
                _discard_unit(state, battle.attacker, battle.a_slot)
                battle.a_out = True
    if attacking:
        battle.tactic_turn = 1
    else:
        battle.window_done = True
        _resolve_battle(state)


def kill_tests(state: GeneralsState) -> tuple[bool, bool]:
    """(the attacker kills the blocker, the blocker kills the attacker) of the battle under way,
    with first strike applied (rulings 46, section 5.1)."""
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    att, dfn = battle.attacker, battle.defender
    a_unit, d_unit = state.players[att].units[battle.a_slot], state.players[dfn].units[battle.blocker]
    assert a_unit is not None and d_unit is not None  # the attacker and its blocker are both in
    a_card = state.tables.kinds[a_unit.kind]
    d_card = state.tables.kinds[d_unit.kind]
    a_str = unit_strength(state, att, battle.a_slot, attacking=True) + battle.pumps[0]
    a_life = unit_life(state, att, battle.a_slot) + battle.pumps[1]
    d_str = unit_strength(state, dfn, battle.blocker) + battle.pumps[2]
    d_life = unit_life(state, dfn, battle.blocker, blocking=True) + battle.pumps[3]
    a_kills = a_str > d_life
    d_kills = d_str >= a_life if state.config.defender_wins_ties else d_str > a_life
    a_first = "first_strike" in a_card.keywords
    d_first = "first_strike" in d_card.keywords
    if a_first and not d_first and a_kills:
        d_kills = False
    elif d_first and not a_first and d_kills:
        a_kills = False
    return a_kills, d_kills


def _resolve_battle(state: GeneralsState) -> None:
    """Step 5 (and 6): the first rule that applies decides the outcome."""
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    att, dfn, zone = battle.attacker, battle.defender, battle.zone
    if battle.a_out:
        return _finish_battle(state, ATTACKER_OUT, [])
    if battle.blocker_declared and battle.b_out:
        if zone == BF:  # step 6: redirect to the Warcamp, no new tactic window
            battle.outcomes.append((BF, BLOCKER_OUT))
            battle.zone = WC
            battle.blocker = -1
            battle.blocker_declared = False
            battle.b_out = False
            battle.redirected = True
            battle.stage = BLOCK
            state.phase = BLOCK
            return None
        return _finish_battle(state, BLOCKER_OUT, [])
    if battle.blocker < 0:
        return _finish_battle(state, NO_BLOCKER, [])
    a_kills, d_kills = kill_tests(state)
    outcome = (
        DOUBLE_DEATH
        if a_kills and d_kills
        else ATTACKER_KILLS
        if a_kills
        else COUNTER_ATTACK
        if d_kills
        else DOUBLE_BLOCK
    )
    killers: list[tuple[int, int]] = []
    a_unit, d_unit = state.players[att].units[battle.a_slot], state.players[dfn].units[battle.blocker]
    if a_kills:
        assert a_unit is not None
        killers.append((att, a_unit.kind))
    if d_kills:
        assert d_unit is not None
        killers.append((dfn, d_unit.kind))
    if a_kills:
        _discard_unit(state, dfn, battle.blocker)
    if d_kills:
        _discard_unit(state, att, battle.a_slot)
    return _finish_battle(state, outcome, killers)


def _finish_battle(state: GeneralsState, outcome: int, killers: list[tuple[int, int]]) -> None:
    """The outcome table's CH column, then the kill triggers, then the Resolve phase."""
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    att, dfn, zone = battle.attacker, battle.defender, battle.zone
    battle.outcomes.append((zone, outcome))
    state.last_battle = (att, dfn, tuple(battle.outcomes))
    if zone == WC and outcome in (NO_BLOCKER, BLOCKER_OUT, ATTACKER_KILLS):
        _change_ch(state, dfn, -1)
        if state.config.attack_transfer:  # ruling 11 flag
            _change_ch(state, att, 1)
    for seat, kind in killers:
        _change_ch(state, seat, state.tables.kinds[kind].on_kill_ch)
    if outcome in (DOUBLE_DEATH, COUNTER_ATTACK):
        _change_ch(state, dfn, static_total(state, dfn, "on_block_kill_ch"))
    if state.phase == OVER:
        return
    state.battle = None
    _resolve_phase(state)


# --------------------------------------------------------------------------- cultural health


def elimination_line(config: GeneralsConfig) -> int:
    if config.slaughterhouse and config.slaughter_floor == "zero":
        return 0
    return -config.target


def _change_ch(state: GeneralsState, seat: int, delta: int) -> None:
    """Rulings 9-12: move CH (capped at the target in a Slaughterhouse) and check at once."""
    player = state.players[seat]
    if delta == 0 or not player.alive or state.phase == OVER:
        return
    config = state.config
    before = player.ch
    player.ch += delta
    if config.slaughterhouse:
        player.ch = min(player.ch, config.target)
    state.rewards[seat] += config.shaping * (player.ch - before)
    if not config.slaughterhouse and player.ch >= config.target:
        _chancellor_victory(state, seat)
    elif player.ch <= elimination_line(config):
        _eliminate(state, seat)


#: ``reward_scheme="win_loss"``: the winner's reward and every other seat's
WIN_REWARD, LOSS_REWARD = 1.0, -1.0


def place_reward(config: GeneralsConfig, place: int) -> float:
    """``reward_scheme="placement"``: +1 for first place down to -1 for last."""
    n = config.num_players
    return 1.0 - 2.0 * (place - 1) / (n - 1)


def _leave(state: GeneralsState, seat: int, place: int) -> None:
    """A player leaves the game: its cards in play are removed from the game (ruling 13)."""
    player = state.players[seat]
    player.alive = False
    player.place = place
    state.finish_order.append(seat)
    for slot, unit in enumerate(player.units):
        if unit is not None:
            player.removed[unit.kind] += 1
            player.units[slot] = None
    for zone in (player.kingdom, player.supply_ready, player.supply_fresh):
        for kind, count in enumerate(zone):
            if count:
                player.removed[kind] += count
                zone[kind] = 0
    for attribute in ("strategy", "capitol"):
        kind = getattr(player, attribute)
        if kind >= 0:
            player.removed[kind] += 1
            setattr(player, attribute, -1)
    if state.config.reward_scheme == "placement":
        _award(state, seat, place_reward(state.config, place))
    else:
        _award(state, seat, WIN_REWARD if place == 1 else LOSS_REWARD)


def _award(state: GeneralsState, seat: int, reward: float) -> None:
    state.players[seat].final_reward = reward
    state.rewards[seat] += reward


def _open_places(state: GeneralsState) -> list[int]:
    """Finishing places nobody has taken yet: winners take the best, the eliminated the worst."""
    taken = {player.place for player in state.players if player.place}
    return [place for place in range(1, state.num_players + 1) if place not in taken]


def _alive(state: GeneralsState) -> list[int]:
    return [p for p in range(state.num_players) if state.players[p].alive]


def _eliminate(state: GeneralsState, seat: int) -> None:
    """Ruling 13: the player is out, last place among those still in."""
    _leave(state, seat, _open_places(state)[-1])
    remaining = _alive(state)
    if len(remaining) == 1:
        _last_player_standing(state, remaining[0])


def _last_player_standing(state: GeneralsState, seat: int) -> None:
    already_won = state.winner >= 0
    _leave(state, seat, _open_places(state)[0])
    if not already_won:
        state.winner = seat
        state.victory = "warlord"
    state.outcome = WON
    state.phase = OVER


def _chancellor_victory(state: GeneralsState, seat: int) -> None:
    """Ruling 13 and 15: the game ends against everyone, unless the others play for second."""
    if state.winner < 0:
        state.winner, state.victory = seat, "chancellor"
    place = _open_places(state)[0]
    _leave(state, seat, place)
    remaining = _alive(state)
    if state.config.play_for_second and len(remaining) >= 2:
        return
    open_places = _open_places(state)
    if len(remaining) == 1:
        _leave(state, remaining[0], open_places[0])
    elif state.config.reward_scheme == "placement":
        # those still in share the places left: each gets their mean reward
        share = sum(place_reward(state.config, q) for q in open_places) / len(remaining)
        for other in remaining:
            state.players[other].place = open_places[0]
            _award(state, other, share)
    else:
        for other in remaining:
            state.players[other].place = open_places[0]
            _award(state, other, LOSS_REWARD)
    state.outcome = WON
    state.phase = OVER


# --------------------------------------------------------------------------- the end


def is_terminal(state: GeneralsState) -> bool:
    return state.phase == OVER


def is_truncated(state: GeneralsState) -> bool:
    return state.outcome == TRUNCATED


def eliminated(state: GeneralsState) -> list[bool]:
    """Seats out of the game while it goes on (eliminated, or placed with ``play_for_second``)."""
    return [not p.alive for p in state.players]


def final_rewards(state: GeneralsState) -> list[float]:
    """Each seat's game reward (shaping excluded): what its place earned, 0 for those still in
    a truncated game."""
    return [player.final_reward for player in state.players]


def outcome_name(state: GeneralsState) -> str:
    if state.outcome == WON:
        return f"won by player_{state.winner} ({state.victory} victory)"
    return {ONGOING: "ongoing", TRUNCATED: "truncated"}[state.outcome]


def heuristic_values(state: GeneralsState) -> list[float]:
    """A guess in [-1, 1] of each seat's final reward for a game cut short (search agents):
    cultural health against the target, and the strength in play."""
    if state.phase == OVER:
        return final_rewards(state)
    target = state.config.target
    scores: list[float | None] = []
    for seat, player in enumerate(state.players):
        if not player.alive:
            scores.append(None)
            continue
        might = sum(sum(numbers) for numbers in unit_numbers(state, seat) if numbers is not None)
        scores.append(player.ch / target + 0.02 * might + 0.05 * sum(player.kingdom))
    alive = [s for s in scores if s is not None]
    mean = sum(alive) / len(alive)
    values = []
    for seat, score in enumerate(scores):
        if score is None:
            values.append(final_rewards(state)[seat] if state.players[seat].place else -1.0)
        else:
            values.append(max(-1.0, min(1.0, score - mean)))
    return values


# --------------------------------------------------------------------------- determinize


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
    fits = _sample_deck_lists(state, int(seat), rng)
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


def _sample_deck_lists(state: GeneralsState, seat: int, rng: np.random.Generator) -> list[_Fit | None]:
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


def apply(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    """Deprecated: ``apply_action`` (the same: in place, every seat's reward)."""
    deprecated("rules.apply(state, action, rng)", "rules.apply_action(state, action, rng)")
    return apply_action(state, action, rng)


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


def utility_range(config: GeneralsConfig) -> tuple[float, float]:
    """The least and greatest final return of a seat (shaping excluded): -1 and +1 under both
    schemes. ``"win_loss"`` pays +1 to the winner and -1 to every other placed seat;
    ``"placement"`` pays ``place_reward``, from +1 for first place to -1 for last, and seats that
    share the open places after a Chancellor victory get the mean of those places' rewards, which
    lies between them. Seats still in a truncated game get 0."""
    if config.reward_scheme == "placement":
        return place_reward(config, config.num_players), place_reward(config, 1)
    return LOSS_REWARD, WIN_REWARD
