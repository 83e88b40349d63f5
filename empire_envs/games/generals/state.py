"""The Empires and Generals game state: plain data; ``clone()``, equality and pickling are
derived from the fields each class declares (``core.state.DeclaredState``).

Cards are **kinds** ``k = 0..K-1`` of the loaded pool (ascending ``ref``). Per player
(``PlayerState``): ``hand``, ``supply_ready``, ``supply_fresh`` (the Supply Line, split by whether
a card may be spent yet), ``kingdom``, ``discard`` and ``removed`` are per-kind counts, kept as
``array("H")`` of unsigned 16-bit integers (``new_counts``): a count never exceeds the 2,000 cards
of a deck file's two piles (``cards.MAX_PILE_CARDS`` each), a negative one raises at once, and
the observation reads them as one buffer, without a conversion per entry;
``playing_deck`` and ``supply_pile`` are lists of kinds, top card last; ``strategy`` and
``capitol`` a kind or -1; ``units`` ``U`` slots, each a ``Unit`` (an immutable value: a change
puts a new one in the slot) or None. Cards never leave a player's own zones, so each player's
total is its deck size for the whole game.

Turn bookkeeping: ``current`` is the turn player; ``phase`` the pending sub-decision (a
``Phase``; ``rules.PHASES`` says who acts in it and what they may do);
``round`` counts rounds begun (the first player's turns); ``players[p].turns_taken`` the turns
seat p has begun (passed ones included: Pull counts them). ``battle`` is the battle under way (None
outside one); ``target_player`` / ``pending_card`` the Sabotage or General being resolved.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from ...core.state import CLONES, LIST, OPTIONAL_CLONE, SET, SHARED, VALUE, DeclaredState
from .config import UNIT_SLOTS, GeneralsConfig

if TYPE_CHECKING:
    from ...core.phases import PhaseRules

#: the array type code of the per-kind counts, and its numpy twin in ``observe``
COUNT_TYPECODE = "H"
_ZERO_COUNT = array(COUNT_TYPECODE, [0])


def new_counts(num_kinds: int) -> array:
    """A zero count for each of ``num_kinds`` kinds."""
    return _ZERO_COUNT * num_kinds


class Phase(IntEnum):
    """The pending sub-decision (OVER once the game has ended). ``rules.PHASES`` says, for each,
    who acts, what that seat may do and what an action does; the value is the phase's entry in
    the observation's phase one-hot."""

    DECLARE = 0
    DRAW = 1
    KINGDOM = 2
    ARMY = 3
    ATTACK = 4
    BLOCK = 5
    TACTIC = 6
    TARGET_PLAYER = 7
    TARGET_KIND = 8
    DISCARD_HAND = 9
    REPLACE_GENERAL = 10
    OVER = 11


(
    DECLARE,
    DRAW,
    KINGDOM,
    ARMY,
    ATTACK,
    BLOCK,
    TACTIC,
    TARGET_PLAYER,
    TARGET_KIND,
    DISCARD_HAND,
    REPLACE_GENERAL,
    OVER,
) = Phase
#: "target player" for TARGET_PLAYER, ...: how the text picture names a phase
PHASE_NAMES = tuple(phase.name.lower().replace("_", " ") for phase in Phase)
#: every phase but OVER: the entries of the observation's phase one-hot
NUM_DECISION_PHASES = len(Phase) - 1

BF, WC = 0, 1  # a unit's zone, and a battle's (ATTACK's z)
ZONE_NAMES = ("BF", "WC")


class GameOutcome(IntEnum):
    """How an episode ended."""

    ONGOING = 0
    WON = 1
    TRUNCATED = 2


ONGOING, WON, TRUNCATED = GameOutcome


class BattleOutcome(IntEnum):
    """The rows of the battle outcome table (section 5.5 of the rulings), numbered as there."""

    NO_BLOCKER = 1
    BLOCKER_OUT = 2
    ATTACKER_KILLS = 3
    DOUBLE_DEATH = 4
    COUNTER_ATTACK = 5
    ATTACKER_OUT = 6
    DOUBLE_BLOCK = 7


#: the text picture's name of each outcome row, e.g. "no blocker"
OUTCOME_NAMES = {outcome.value: outcome.name.lower().replace("_", " ") for outcome in BattleOutcome}


class Unit(NamedTuple):
    """A unit in play: its kind, zone, the owner's turn number it entered on (Pull), whether its
    ability was used this turn. Immutable: a move or an activation puts a changed copy in the
    slot (``unit._replace(zone=...)``), so a copy of the slot list is an exact copy."""

    kind: int
    zone: int
    entered_turn: int
    ability_used: bool = False

    def __repr__(self) -> str:
        return f"Unit(kind={self.kind}, zone={ZONE_NAMES[self.zone]}, entered={self.entered_turn})"


class PlayerState(DeclaredState):
    """One seat's cards and counters (the module docstring describes the zones)."""

    #: every field and how ``clone()`` copies it; the per-kind counts are ``array("H")``, which
    #: a slice copies as it does a list, and the unit slots hold immutable ``Unit`` values
    FIELDS = {
        "deck_id": VALUE,
        "empire": VALUE,
        "hand": LIST,
        "playing_deck": LIST,
        "supply_pile": LIST,
        "supply_ready": LIST,
        "supply_fresh": LIST,
        "kingdom": LIST,
        "strategy": VALUE,
        "capitol": VALUE,
        "units": LIST,
        "discard": LIST,
        "removed": LIST,
        "ch": VALUE,
        "budget": VALUE,
        "alive": VALUE,
        "passed_last": VALUE,
        "turns_taken": VALUE,
        "place": VALUE,
        "final_reward": VALUE,
        "deck_size": VALUE,
        "drawn_playing": VALUE,
        "drawn_supply": VALUE,
        "resources_discarded": VALUE,
        "banned_at_harvest": VALUE,
    }
    __slots__ = tuple(FIELDS)

    def __init__(self, num_kinds: int) -> None:
        self.deck_id = ""
        self.empire = ""
        self.hand = new_counts(num_kinds)
        self.playing_deck: list[int] = []
        self.supply_pile: list[int] = []
        self.supply_ready = new_counts(num_kinds)
        self.supply_fresh = new_counts(num_kinds)
        self.kingdom = new_counts(num_kinds)
        self.strategy = -1
        self.capitol = -1
        self.units: list[Unit | None] = [None] * UNIT_SLOTS
        self.discard = new_counts(num_kinds)
        self.removed = new_counts(num_kinds)
        self.ch = 0
        self.budget = 0
        self.alive = True
        self.passed_last = False
        self.turns_taken = 0
        self.place = 0  # finishing place (1 = first) once out of the game; 0 while in
        self.final_reward = 0.0  # the game reward its place earned (shaping excluded)
        self.deck_size = 0
        # Public facts that bound which resources the hand may hold (``rules.determinize``):
        # the cards drawn from each pile since the player's last Harvest (before its first, its
        # opening hand), the resources it has discarded from the hand since, and the kinds
        # banned at that Harvest (a banned resource stays in the hand).
        self.drawn_playing = 0
        self.drawn_supply = 0
        self.resources_discarded = 0
        self.banned_at_harvest: frozenset[int] = frozenset()

    def card_count(self) -> int:
        """Every card the player owns, wherever it is (a conservation check)."""
        return (
            sum(self.hand)
            + len(self.playing_deck)
            + len(self.supply_pile)
            + sum(self.supply_ready)
            + sum(self.supply_fresh)
            + sum(self.kingdom)
            + (self.strategy >= 0)
            + (self.capitol >= 0)
            + sum(u is not None for u in self.units)
            + sum(self.discard)
            + sum(self.removed)
        )


class Battle(DeclaredState):
    """The battle under way. ``stage`` is BLOCK or TACTIC (whose turn in the tactic window:
    ``tactic_turn`` 0 the attacker, 1 the defender); ``blocker`` a slot of the defender or -1;
    ``a_out`` / ``b_out`` the attacker / declared blocker taken out by a tactic; ``pumps`` the
    tactic bonuses ``[attacker str, attacker life, blocker str, blocker life]``;
    ``tactics`` the kinds each side played (-1 none); ``outcomes`` the (zone, outcome number) steps
    so far: a redirect is one step, the final outcome another."""

    FIELDS = {
        "attacker": VALUE,
        "a_slot": VALUE,
        "defender": VALUE,
        "zone": VALUE,
        "stage": VALUE,
        "tactic_turn": VALUE,
        "blocker": VALUE,
        "blocker_declared": VALUE,
        "a_out": VALUE,
        "b_out": VALUE,
        "window_done": VALUE,
        "pumps": LIST,
        "redirected": VALUE,
        "tactics": LIST,
        "outcomes": LIST,
    }
    __slots__ = tuple(FIELDS)

    def __init__(self, attacker: int, a_slot: int, defender: int, zone: int) -> None:
        self.attacker = attacker
        self.a_slot = a_slot
        self.defender = defender
        self.zone = zone
        self.stage = BLOCK
        self.tactic_turn = 0
        self.blocker = -1
        self.blocker_declared = False
        self.a_out = False
        self.b_out = False
        self.window_done = False
        self.pumps = [0, 0, 0, 0]
        self.redirected = False
        self.tactics = [-1, -1]
        self.outcomes: list[tuple[int, int]] = []  # (zone, outcome number) steps so far


class GeneralsState(DeclaredState):
    """Mutable game state. Build one with ``rules.new_game`` or field by field in tests."""

    #: every field and how ``clone()`` copies it (``core.state``); the config, the pool and its
    #: tables and the action layout are shared, never changed
    FIELDS = {
        "config": SHARED,
        "pool": SHARED,
        "tables": SHARED,
        "layout": SHARED,
        "num_players": VALUE,
        "players": CLONES,
        "current": VALUE,
        "first": VALUE,
        "phase": VALUE,
        "round": VALUE,
        "draws_left": VALUE,
        "attacked": VALUE,
        "battle": OPTIONAL_CLONE,
        "target_player": VALUE,
        "pending_card": VALUE,
        "pending_to_bf": VALUE,
        "banned": SET,
        "outcome": VALUE,
        "winner": VALUE,
        "victory": VALUE,
        "finish_order": LIST,
        "last_battle": VALUE,
        "decks_public": VALUE,
        "decisions": VALUE,
        "decision_limit": VALUE,
    }
    __slots__ = tuple(FIELDS)

    #: the rules' phase table (``rules.PHASES``, indexed by ``Phase``), installed by ``rules`` when
    #: it is imported, so that ``acting_player`` reads the one definition of who acts
    phase_rules: ClassVar[Sequence[PhaseRules[GeneralsState]]] = ()

    def __init__(self, config: GeneralsConfig, pool, tables) -> None:
        self.config = config
        self.pool = pool
        self.tables = tables  # per-kind numbers of the pool (rules.CardTables), shared by clones
        self.layout = tables.layout(config.offsets)  # the action table (actions.ActionLayout)
        self.num_players = config.num_players
        self.players = [PlayerState(pool.size) for _ in range(config.num_players)]
        self.current = 0
        self.first = 0
        self.phase = DECLARE
        self.round = 1
        self.draws_left = 0
        self.attacked = False  # the turn player has attacked this turn
        self.battle: Battle | None = None  # the battle under way
        self.target_player = -1  # the seat a Sabotage targets
        self.pending_card = -1  # the kind being played while a sub-decision is open
        self.pending_to_bf = False
        self.banned: set[int] = set()  # kinds (ultra rares) nobody may play any more
        self.outcome = ONGOING
        self.winner = -1
        self.victory = ""  # "chancellor" or "warlord" once won
        self.finish_order: list[int] = []  # seats in the order they left the game, winner first
        self.last_battle: tuple = ()  # (attacker, defender, outcomes) of the latest battle
        # the seats' decks were named (config or reset option), not drawn at random: everyone
        # knows each player's deck list
        self.decks_public = False
        self.decisions = 0  # decisions taken so far (automatic steps not counted)
        #: the game is truncated at this many decisions (rules.max_game_length, set by new_game)
        self.decision_limit = 1 << 62

    def acting_player(self) -> int:
        """The seat whose decision is pending (-1 once the game is over): the phase's ``actor``."""
        actor: Callable[[GeneralsState], int] = self.phase_rules[self.phase].actor
        return actor(self)

    def seat_at(self, seat: int, offset: int) -> int:
        """The seat ``offset`` places clockwise from ``seat``."""
        return (seat + offset) % self.num_players

    def offset_of(self, seat: int, other: int) -> int:
        return (other - seat) % self.num_players
