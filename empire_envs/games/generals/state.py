"""The Empires and Generals game state: plain data and a cheap, exact ``clone()``.

Cards are **kinds** ``k = 0..K-1`` of the loaded pool (ascending ``ref``). Per player
(``PlayerState``): ``hand``, ``supply_ready``, ``supply_fresh`` (the Supply Line, split by whether
a card may be spent yet), ``kingdom``, ``discard`` and ``removed`` are per-kind counts, kept as
``array("H")`` of unsigned 16-bit integers (``new_counts``): a count never exceeds the 2,000 cards
of a deck file's two piles (``cards.MAX_PILE_CARDS`` each), a negative one raises at once, and
the observation reads them as one buffer, without a conversion per entry;
``playing_deck`` and ``supply_pile`` are lists of kinds, top card last; ``strategy`` and
``capitol`` a kind or -1; ``units`` ``U`` slots, each a ``Unit`` or None. Cards never leave a
player's own zones, so each player's total is its deck size for the whole game.

Turn bookkeeping: ``current`` is the turn player; ``phase`` the pending sub-decision;
``round`` counts rounds begun (the first player's turns); ``turns_taken[p]`` the turns seat p has
begun (passed ones included: Pull counts them). ``battle`` is the battle under way (None
outside one); ``target_player`` / ``pending_card`` the Sabotage or General being resolved.
"""

from __future__ import annotations

from array import array

from .config import UNIT_SLOTS, GeneralsConfig

#: the array type code of the per-kind counts, and its numpy twin in ``observe``
COUNT_TYPECODE = "H"
_ZERO_COUNT = array(COUNT_TYPECODE, [0])


def new_counts(num_kinds: int) -> array:
    """A zero count for each of ``num_kinds`` kinds."""
    return _ZERO_COUNT * num_kinds


# Phases: the pending sub-decision (OVER once the game has ended).
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
) = range(12)
PHASE_NAMES = (
    "declare",
    "draw",
    "kingdom",
    "army",
    "attack",
    "block",
    "tactic",
    "target player",
    "target kind",
    "discard hand",
    "replace general",
    "over",
)
NUM_DECISION_PHASES = 11

BF, WC = 0, 1  # a unit's zone, and a battle's (ATTACK's z)
ZONE_NAMES = ("BF", "WC")

# How an episode ended.
ONGOING, WON, TRUNCATED = range(3)


class Unit:
    """A unit in play: its kind, zone, the owner's turn number it entered on (Pull), whether its
    ability was used this turn."""

    __slots__ = ("kind", "zone", "entered_turn", "ability_used")

    def __init__(self, kind: int, zone: int, entered_turn: int, ability_used: bool = False) -> None:
        self.kind = kind
        self.zone = zone
        self.entered_turn = entered_turn
        self.ability_used = ability_used

    def copy(self) -> Unit:
        return Unit(self.kind, self.zone, self.entered_turn, self.ability_used)

    def __repr__(self) -> str:
        return f"Unit(kind={self.kind}, zone={'BF' if self.zone == BF else 'WC'}, entered={self.entered_turn})"


class PlayerState:
    __slots__ = (
        "deck_id",
        "empire",
        "hand",
        "playing_deck",
        "supply_pile",
        "supply_ready",
        "supply_fresh",
        "kingdom",
        "strategy",
        "capitol",
        "units",
        "discard",
        "removed",
        "ch",
        "budget",
        "alive",
        "passed_last",
        "turns_taken",
        "place",
        "final_reward",
        "deck_size",
        "drawn_playing",
        "drawn_supply",
        "resources_discarded",
        "banned_at_harvest",
    )

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

    def copy(self) -> PlayerState:
        other = PlayerState.__new__(PlayerState)
        other.deck_id = self.deck_id
        other.empire = self.empire
        other.hand = self.hand[:]
        other.playing_deck = self.playing_deck[:]
        other.supply_pile = self.supply_pile[:]
        other.supply_ready = self.supply_ready[:]
        other.supply_fresh = self.supply_fresh[:]
        other.kingdom = self.kingdom[:]
        other.strategy = self.strategy
        other.capitol = self.capitol
        other.units = [u.copy() if u is not None else None for u in self.units]
        other.discard = self.discard[:]
        other.removed = self.removed[:]
        other.ch = self.ch
        other.budget = self.budget
        other.alive = self.alive
        other.passed_last = self.passed_last
        other.turns_taken = self.turns_taken
        other.place = self.place
        other.final_reward = self.final_reward
        other.deck_size = self.deck_size
        other.drawn_playing = self.drawn_playing
        other.drawn_supply = self.drawn_supply
        other.resources_discarded = self.resources_discarded
        other.banned_at_harvest = self.banned_at_harvest
        return other

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


class Battle:
    """The battle under way. ``stage`` is BLOCK or TACTIC (whose turn in the tactic window:
    ``tactic_turn`` 0 the attacker, 1 the defender); ``blocker`` a slot of the defender or -1;
    ``a_out`` / ``b_out`` the attacker / declared blocker taken out by a tactic; ``pumps`` the
    tactic bonuses ``[attacker str, attacker life, blocker str, blocker life]``;
    ``tactics`` the kinds each side played (-1 none); ``outcomes`` the (zone, outcome number) steps
    so far: a redirect is one step, the final outcome another."""

    __slots__ = (
        "attacker",
        "a_slot",
        "defender",
        "zone",
        "stage",
        "tactic_turn",
        "blocker",
        "blocker_declared",
        "a_out",
        "b_out",
        "window_done",
        "pumps",
        "redirected",
        "tactics",
        "outcomes",
    )

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

    def copy(self) -> Battle:
        other = Battle.__new__(Battle)
        for name in Battle.__slots__:
            setattr(other, name, getattr(self, name))
        other.pumps = self.pumps[:]
        other.tactics = self.tactics[:]
        other.outcomes = self.outcomes[:]
        return other


class GeneralsState:
    """Mutable game state. Build one with ``rules.new_game`` or field by field in tests."""

    __slots__ = (
        "config",
        "pool",
        "tables",
        "layout",
        "num_players",
        "players",
        "current",
        "first",
        "phase",
        "round",
        "draws_left",
        "attacked",
        "battle",
        "target_player",
        "pending_card",
        "pending_to_bf",
        "banned",
        "outcome",
        "winner",
        "victory",
        "finish_order",
        "last_battle",
        "rewards",
        "decks_public",
    )

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
        self.battle: Battle | None = None
        self.target_player = -1  # the seat a Sabotage targets
        self.pending_card = -1  # the kind being played while a sub-decision is open
        self.pending_to_bf = False
        self.banned: set[int] = set()  # kinds (ultra rares) nobody may play any more
        self.outcome = ONGOING
        self.winner = -1
        self.victory = ""  # "chancellor" or "warlord" once won
        self.finish_order: list[int] = []  # seats in the order they left the game, winner first
        self.last_battle: tuple = ()  # (attacker, defender, outcomes) of the latest battle
        self.rewards = [0.0] * config.num_players  # what the action being applied earns each seat
        # the seats' decks were named (config or reset option), not drawn at random: everyone
        # knows each player's deck list
        self.decks_public = False

    def clone(self) -> GeneralsState:
        other = GeneralsState.__new__(GeneralsState)
        other.config = self.config
        other.pool = self.pool
        other.tables = self.tables
        other.layout = self.layout
        other.num_players = self.num_players
        other.players = [p.copy() for p in self.players]
        other.current = self.current
        other.first = self.first
        other.phase = self.phase
        other.round = self.round
        other.draws_left = self.draws_left
        other.attacked = self.attacked
        other.battle = self.battle.copy() if self.battle is not None else None
        other.target_player = self.target_player
        other.pending_card = self.pending_card
        other.pending_to_bf = self.pending_to_bf
        other.banned = set(self.banned)
        other.outcome = self.outcome
        other.winner = self.winner
        other.victory = self.victory
        other.finish_order = self.finish_order[:]
        other.last_battle = self.last_battle
        other.rewards = self.rewards[:]
        other.decks_public = self.decks_public
        return other

    def acting_player(self) -> int:
        """The seat whose decision is pending (-1 once the game is over)."""
        if self.phase == OVER:
            return -1
        battle = self.battle
        if self.phase == BLOCK:
            assert battle is not None
            return battle.defender
        if self.phase == TACTIC:
            assert battle is not None
            return battle.attacker if battle.tactic_turn == 0 else battle.defender
        return self.current

    def seat_at(self, seat: int, offset: int) -> int:
        """The seat ``offset`` places clockwise from ``seat``."""
        return (seat + offset) % self.num_players

    def offset_of(self, seat: int, other: int) -> int:
        return (other - seat) % self.num_players
