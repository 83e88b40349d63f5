"""The Pillars game state: plain data and a cheap, exact ``clone()``.

Cards are **kinds** (``KindSet``): 14 in the default ``battle_demand="rank"`` game
(``2, 3, ..., 10, J, Q, K, A, Joker`` at indices 0..13) or 53 with ``battle_demand="card"`` (the
52 cards in the shared encoding ``suit * 13 + rank_index``, then the Joker at 52). A **pillar
rank** ``r = 0..11`` is one of ``3, 4, ..., K, A``.

Zones (every card is in exactly one): the face-down resource pile ``deck`` (top card last), each
seat's ``hands[seat]`` (counts per kind), each seat's face-up discard ``piles[seat]`` (kinds in
arrival order, top card last; ``pile_counts`` mirrors it per kind), and the laid pillars
(``pillar_cards[seat]`` counts per kind). A trade's tabled card and offers stay in their owners'
hands until the trade resolves; they are only marked in ``trade_tabled`` and ``offers``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from ...core.cards import ACE, NUM_CARDS, NUM_RANKS, NUM_SUITS, RANK_LABELS, card_str, rank_of
from ...core.phases import GamePhase
from ...core.state import LIST, LISTS, SHARED, VALUE, DeclaredState
from .config import PillarsConfig

if TYPE_CHECKING:
    from ...core.phases import PhaseRules


class Phase(GamePhase):
    """What the pending decision is about; ``OVER`` (last, so the decision phases are numbered
    0..7 as the observation's one-hot block) once the episode has ended. ``rules.PHASES`` says,
    for each phase, who acts, what it may do and what an action does."""

    MAIN = 0
    BUILD = 1
    DISCARD = 2
    SKIP_TARGET = 3
    TRADE_OFFER = 4
    TRADE_PICK = 5
    RPS_ATTACKER = 6
    RPS_DEFENDER = 7
    OVER = 8


# The members under their bare names, as the rules compare with them on the hot path (a module
# constant is read several times faster than an enum attribute such as ``Phase.MAIN``).
MAIN = Phase.MAIN
BUILD = Phase.BUILD
DISCARD = Phase.DISCARD
SKIP_TARGET = Phase.SKIP_TARGET
TRADE_OFFER = Phase.TRADE_OFFER
TRADE_PICK = Phase.TRADE_PICK
RPS_ATTACKER = Phase.RPS_ATTACKER
RPS_DEFENDER = Phase.RPS_DEFENDER
OVER = Phase.OVER
#: the phases with a decision pending (all but OVER), one-hot encoded in the observation
DECISION_PHASES = tuple(phase for phase in Phase if phase is not Phase.OVER)
NUM_DECISION_PHASES = len(DECISION_PHASES)

NO_EMPIRE, THIEF, MERCHANT, WARLORD = range(4)
EMPIRE_NAMES = ("none", "Thief", "Merchant", "Warlord")
RANKS_PER_EMPIRE = 4
PILLARS_TO_WIN = 4
#: cards in one pillar: ``j`` Jokers and ``CARDS_PER_PILLAR - j`` naturals of its rank
CARDS_PER_PILLAR = 4

ROCK, PAPER, SCISSORS = range(3)
THROW_NAMES = ("rock", "paper", "scissors")

# A battle's answer, as the observation shows it.
ANSWER_UNKNOWN, ANSWER_YES, ANSWER_NO = range(3)

# Where a trade or battle was started from: the main action or the bonus action.
ORIGIN_MAIN, ORIGIN_BONUS = range(2)

# How an episode ended.
ONGOING, WON, TRUNCATED = range(3)

# The event block (rules page section 4, "The event block"): which interaction a record holds,
# and whether a seat's latest turn was played or skipped (TURN_NONE: no turn yet this game).
EVENT_STEAL, EVENT_TRADE, EVENT_BATTLE = range(1, 4)
TURN_NONE, TURN_PLAYED, TURN_SKIPPED = range(3)

# --------------------------------------------------------------------------- card kinds
#
# No rule looks at a suit, so the default game (battle_demand="rank") tells cards apart by rank:
# a card is one of the 14 *rank kinds*, the 13 ranks in Pillars' order 2 < 3 < ... < 10 < J < Q <
# K < A (the ace ranks high) and then the Joker. With battle_demand="card" a battle names an
# exact card, so the kinds are the 52 cards of the shared encoding (``core.cards``: ``suit * 13 +
# rank_index``, the ace at rank index 0) and then the Joker. The *pillar ranks* ``r = 0..11`` are
# every rank but the 2, in Pillars' order: 3, 4, ..., K, A.

#: the ``core.cards`` rank indices in Pillars' order, lowest first: 2, 3, ..., K, then the ace
PILLARS_RANK_ORDER = (*range(ACE + 1, NUM_RANKS), ACE)
#: the rank kind (0 = 2 .. 12 = A) of each ``core.cards`` rank index
RANK_KIND_OF_RANK = tuple(PILLARS_RANK_ORDER.index(rank) for rank in range(NUM_RANKS))
JOKER_LABEL = "Joker"
#: the rank kinds: the 13 ranks, then the Joker
NUM_RANK_KINDS = NUM_RANKS + 1
TWO_KIND = 0
ACE_KIND = NUM_RANKS - 1
JOKER_KIND = NUM_RANKS
RANK_KIND_LABELS = (*(RANK_LABELS[rank] for rank in PILLARS_RANK_ORDER), JOKER_LABEL)
#: the exact-card kinds: the 52 cards of ``core.cards``, then the Joker
NUM_CARD_KINDS = NUM_CARDS + 1
CARD_JOKER = NUM_CARDS
#: pillar rank ``r`` is rank kind ``r + FIRST_PILLAR_KIND`` (the 3 is the lowest pillar rank)
FIRST_PILLAR_KIND = TWO_KIND + 1
NUM_PILLAR_RANKS = NUM_RANKS - 1
PILLAR_RANK_LABELS = RANK_KIND_LABELS[FIRST_PILLAR_KIND : FIRST_PILLAR_KIND + NUM_PILLAR_RANKS]


def empire_of(pillar_rank: int) -> int:
    """Thief for 3-6, Merchant for 7-10, Warlord for J, Q, K, A."""
    return pillar_rank // RANKS_PER_EMPIRE + 1


def empire_ranks(empire: int) -> range:
    """The pillar ranks of ``empire`` (Thief, Merchant or Warlord)."""
    return range(RANKS_PER_EMPIRE * (empire - 1), RANKS_PER_EMPIRE * empire)


@dataclass(frozen=True)
class KindSet:
    """The kinds of card a game tells apart (above), and how they map onto ranks.

    ``rank_kind[k]`` is the rank kind (0 = 2, 12 = A, 13 = Joker) of kind ``k``; ``naturals[r]``
    lists the kinds that count as natural cards of pillar rank ``r`` (one kind in the rank game,
    four suits in the card game, in suit order: the order a pillar uses them).
    """

    size: int
    labels: tuple[str, ...]
    rank_kind: tuple[int, ...]
    joker: int
    is_two: tuple[bool, ...]
    naturals: tuple[tuple[int, ...], ...]
    copies_per_pack: tuple[int, ...]  # of each kind, jokers excluded (set per config)

    @property
    def exact_cards(self) -> bool:
        """Whether the kinds are the 52 exact cards (``battle_demand="card"``)."""
        return self.size == NUM_CARD_KINDS

    def __reduce__(self):
        # Unpickle to the module's own instance, so identity checks and caches keep working.
        return (kinds_of_size, (self.size,))


def _kind_set(rank_kind: tuple[int, ...], labels: tuple[str, ...], copies: tuple[int, ...]) -> KindSet:
    """The kind set whose kind ``k`` has rank kind ``rank_kind[k]`` (the Joker last)."""
    size = len(rank_kind)
    return KindSet(
        size=size,
        labels=labels,
        rank_kind=rank_kind,
        joker=size - 1,
        is_two=tuple(rank == TWO_KIND for rank in rank_kind),
        naturals=tuple(
            tuple(k for k in range(size) if rank_kind[k] == r + FIRST_PILLAR_KIND) for r in range(NUM_PILLAR_RANKS)
        ),
        copies_per_pack=copies,
    )


RANK_KINDS = _kind_set(tuple(range(NUM_RANK_KINDS)), RANK_KIND_LABELS, (NUM_SUITS,) * NUM_RANKS + (0,))
CARD_KINDS = _kind_set(
    tuple(RANK_KIND_OF_RANK[rank_of(card)] for card in range(NUM_CARDS)) + (JOKER_KIND,),
    tuple(card_str(card) for card in range(NUM_CARDS)) + (JOKER_LABEL,),
    (1,) * NUM_CARDS + (0,),
)


def kinds_of_size(size: int) -> KindSet:
    return RANK_KINDS if size == RANK_KINDS.size else CARD_KINDS


def kinds_for(config: PillarsConfig) -> KindSet:
    return RANK_KINDS if config.battle_demand == "rank" else CARD_KINDS


def full_deck_counts(config: PillarsConfig) -> list[int]:
    """How many copies of each kind the packs of ``config`` hold."""
    kinds = kinds_for(config)
    counts = [c * config.num_packs for c in kinds.copies_per_pack]
    counts[kinds.joker] = config.jokers_per_pack * config.num_packs
    return counts


class Interaction(NamedTuple):
    """One finished steal, trade or battle: public in full, so nothing hidden is ever stored.

    ``serial`` counts the records of the game (0, 1, ...): a seat's observation flags a record
    as new when it was written after that seat's last decision began. ``partner`` is the seat
    robbed, the responder whose offer the trader took, or the defender; ``kind`` the card stolen,
    tabled or demanded. A trade keeps every seat's revealed offer (-1: none); a battle its
    answer, its ties (``tie_throws`` counts them per throw: a tie is two equal throws), the
    deciding pair of throws (-1 when a coin decided or there was no throw) and the winner.
    """

    serial: int
    event: int
    actor: int
    partner: int
    kind: int
    offers: tuple[int, ...] = ()
    answer: int = ANSWER_UNKNOWN
    ties: int = 0
    tie_throws: tuple[int, int, int] = (0, 0, 0)
    throws: tuple[int, int] = (-1, -1)
    attacker_won: bool = False
    coin: bool = False


class SeatTurn:
    """What a seat's latest turn (the one in progress for the turn player) made public beyond
    the lasting zones: played or skipped (``status``), the seat it gave a pending skip
    (``skip_given``, -1: none) and its ``main`` and ``bonus`` interactions (None: none yet).

    Treated as immutable: the rules build a new one as the turn goes on, so states can share it
    (``clone`` copies only the list). ``views`` memoizes observe.py's encoding of the record per
    observer; it is derived data (a pure function of the record), left out of equality.
    """

    __slots__ = ("status", "skip_given", "main", "bonus", "views")

    def __init__(
        self,
        status: int = TURN_NONE,
        skip_given: int = -1,
        main: Interaction | None = None,
        bonus: Interaction | None = None,
    ) -> None:
        self.status = status
        self.skip_given = skip_given
        self.main = main
        self.bonus = bonus
        self.views: dict = {}

    def _fields(self) -> tuple:
        return (self.status, self.skip_given, self.main, self.bonus)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeatTurn) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"SeatTurn(status={self.status}, skip_given={self.skip_given}, main={self.main}, bonus={self.bonus})"

    def __reduce__(self):
        return (SeatTurn, self._fields())  # the memo is not pickled: it is rebuilt on demand


NO_TURN = SeatTurn()


def with_interaction(turn: SeatTurn, record: Interaction, bonus: bool) -> SeatTurn:
    """The turn with ``record`` as its bonus (or main) interaction."""
    if bonus:
        return SeatTurn(turn.status, turn.skip_given, turn.main, record)
    return SeatTurn(turn.status, turn.skip_given, record, turn.bonus)


def with_skip_given(turn: SeatTurn, seat: int) -> SeatTurn:
    return SeatTurn(turn.status, seat, turn.main, turn.bonus)


class PillarsState(DeclaredState):
    """Mutable game state. Build one with ``rules.new_game`` or field by field in tests.

    Turn bookkeeping: ``current`` is the seat whose turn it is, ``turn`` counts the turns begun
    (skipped ones included) so the round is ``turn // n + 1``; ``main_done`` and ``bonus_used``
    track the turn's main and bonus actions.

    The last trade or battle of the turn stays on record (public once resolved) until another
    starts or the turn ends: ``trade_trader`` (-1 when none), ``trade_tabled``, ``trade_queue``
    (responders still to offer, head first), ``offers[seat]`` (kind or -1), ``trade_revealed``;
    ``battle_attacker`` (-1 when none), ``battle_defender``, ``battle_kind``, ``battle_answer``,
    ``battle_ties``, ``pending_throw`` (the attacker's hidden throw, -1 when none) and
    ``last_throws`` (the last revealed pair, -1 when none), ``battle_tie_throws`` (this battle's
    ties so far, counted per throw).

    The public events of each seat's latest turn outlive the turn: ``turn_log[seat]`` (a
    ``SeatTurn``); ``event_serial`` counts the interactions recorded so far and
    ``last_decision[seat]`` is its value when the seat's latest decision began.
    """

    #: every field and how ``clone()`` copies it (``core.state``): the config and the kind table
    #: are frozen, so states share them; ``turn_log`` holds immutable ``SeatTurn`` records, so a
    #: copy of the list is exact
    FIELDS = {
        "config": SHARED,
        "kinds": SHARED,
        "n": VALUE,
        "deck": LIST,
        "hands": LISTS,
        "hand_sizes": LIST,
        "piles": LISTS,
        "pile_counts": LISTS,
        "pillars": LISTS,
        "pillar_cards": LISTS,
        "pillar_jokers": LIST,
        "empire": LIST,
        "pending_skip": LIST,
        "known": LISTS,
        "current": VALUE,
        "turn": VALUE,
        "phase": VALUE,
        "main_done": VALUE,
        "bonus_used": VALUE,
        "origin": VALUE,
        "trade_trader": VALUE,
        "trade_tabled": VALUE,
        "trade_queue": LIST,
        "offers": LIST,
        "trade_revealed": VALUE,
        "battle_attacker": VALUE,
        "battle_defender": VALUE,
        "battle_kind": VALUE,
        "battle_answer": VALUE,
        "battle_ties": VALUE,
        "pending_throw": VALUE,
        "last_throws": LIST,
        "battle_tie_throws": LIST,
        "turn_log": LIST,
        "event_serial": VALUE,
        "last_decision": LIST,
        "outcome": VALUE,
        "winner": VALUE,
        "coin_flips": VALUE,
    }
    __slots__ = tuple(FIELDS)

    #: the rules' phase table (``rules.PHASES``, which registers itself here when the rules load),
    #: so that ``acting_player`` reads who acts from the one table that says it
    phase_rules: ClassVar[tuple[PhaseRules[PillarsState], ...]] = ()

    def __init__(self, config: PillarsConfig) -> None:
        n, kinds = config.num_players, kinds_for(config)
        self.config = config
        self.kinds = kinds
        self.n = n
        self.deck: list[int] = []
        self.hands = [[0] * kinds.size for _ in range(n)]
        self.hand_sizes = [0] * n
        self.piles: list[list[int]] = [[] for _ in range(n)]
        self.pile_counts = [[0] * kinds.size for _ in range(n)]
        self.pillars = [[0] * NUM_PILLAR_RANKS for _ in range(n)]
        self.pillar_cards = [[0] * kinds.size for _ in range(n)]
        self.pillar_jokers = [0] * n
        self.empire = [NO_EMPIRE] * n
        self.pending_skip = [False] * n
        self.known = [[0] * kinds.size for _ in range(n)]
        self.current = 0
        self.turn = 0
        self.phase = DISCARD
        self.main_done = False
        self.bonus_used = False
        self.origin = ORIGIN_MAIN
        self.clear_records()
        self.turn_log = [NO_TURN] * n
        self.event_serial = 0
        self.last_decision = [0] * n
        self.outcome = ONGOING
        self.winner = -1
        self.coin_flips = 0

    def clear_records(self) -> None:
        """No trade or battle on record (a new turn, or one about to start)."""
        self.trade_trader = -1
        self.trade_tabled = -1
        self.trade_queue: list[int] = []
        self.offers = [-1] * self.n
        self.trade_revealed = False
        self.battle_attacker = -1
        self.battle_defender = -1
        self.battle_kind = -1
        self.battle_answer = ANSWER_UNKNOWN
        self.battle_ties = 0
        self.pending_throw = -1
        self.last_throws = [-1, -1]
        self.battle_tie_throws = [0, 0, 0]

    # ------------------------------------------------------------------ derived facts

    @property
    def round(self) -> int:
        """1-based round number: a round is ``n`` turns, skipped turns included."""
        return self.turn // self.n + 1

    @property
    def in_first_round(self) -> bool:
        return self.turn < self.n

    def pillar_count(self, seat: int) -> int:
        return sum(self.pillars[seat])

    def bonus_unlocked(self, seat: int) -> bool:
        return self.pillar_count(seat) >= 2

    def acting_player(self) -> int:
        """The seat whose decision is pending, -1 once the episode is over (the phase table's
        ``actor``; ``rules.acting_player(state)`` is the same)."""
        return self.phase_rules[self.phase].actor(self)

    def card_total(self) -> int:
        """Cards in all zones together (constant over a game: a conservation check)."""
        return (
            len(self.deck)
            + sum(self.hand_sizes)
            + sum(len(p) for p in self.piles)
            + sum(sum(p) for p in self.pillar_cards)
        )

    def kind_totals(self) -> list[int]:
        """Copies of each kind over all zones (equals ``full_deck_counts`` in a legal state)."""
        totals = [0] * self.kinds.size
        for k in self.deck:
            totals[k] += 1
        for seat in range(self.n):
            for k in range(self.kinds.size):
                totals[k] += self.hands[seat][k] + self.pile_counts[seat][k] + self.pillar_cards[seat][k]
        return totals
