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
from typing import NamedTuple

from ...core.cards import RANK_LABELS, SUIT_LETTERS
from .config import PillarsConfig

# Phases: what the pending decision is about (OVER when the episode has ended).
MAIN, BUILD, DISCARD, SKIP_TARGET, TRADE_OFFER, TRADE_PICK, RPS_ATTACKER, RPS_DEFENDER, OVER = range(9)
PHASE_NAMES = (
    "main",
    "build",
    "discard",
    "skip target",
    "trade offer",
    "trade pick",
    "rps attacker",
    "rps defender",
    "over",
)
NUM_DECISION_PHASES = 8

NO_EMPIRE, THIEF, MERCHANT, WARLORD = range(4)
EMPIRE_NAMES = ("none", "Thief", "Merchant", "Warlord")
NUM_PILLAR_RANKS = 12
PILLARS_TO_WIN = 4

#: pillar rank r = 0..11 is the card rank 3, 4, ..., 10, J, Q, K, A
PILLAR_RANK_LABELS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

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


def empire_of(pillar_rank: int) -> int:
    """Thief for 3-6, Merchant for 7-10, Warlord for J, Q, K, A."""
    return pillar_rank // 4 + 1


def empire_ranks(empire: int) -> range:
    return range(4 * (empire - 1), 4 * empire)


@dataclass(frozen=True)
class KindSet:
    """The kinds of card a game tells apart, and how they map onto ranks.

    ``rank_kind[k]`` is the 14-kind index (0 = 2, 12 = A, 13 = Joker) of kind ``k``;
    ``naturals[r]`` lists the kinds that count as natural cards of pillar rank ``r`` (one kind in
    the rank game, four suits in the card game, in suit order: the order a pillar uses them).
    """

    size: int
    labels: tuple[str, ...]
    rank_kind: tuple[int, ...]
    joker: int
    is_two: tuple[bool, ...]
    naturals: tuple[tuple[int, ...], ...]
    copies_per_pack: tuple[int, ...]  # of each kind, jokers excluded (set per config)

    def __reduce__(self):
        # Unpickle to the module's own instance, so identity checks and caches keep working.
        return (kinds_of_size, (self.size,))


def _rank_kinds() -> KindSet:
    labels = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "Joker")
    return KindSet(
        size=14,
        labels=labels,
        rank_kind=tuple(range(14)),
        joker=13,
        is_two=tuple(k == 0 for k in range(14)),
        naturals=tuple((r + 1,) for r in range(NUM_PILLAR_RANKS)),
        copies_per_pack=tuple([4] * 13 + [0]),
    )


def _card_kinds() -> KindSet:
    # The shared encoding: rank_index 0 = ace, 1 = two, ..., 12 = king.
    def rank_kind(card: int) -> int:
        rank_index = card % 13
        return 12 if rank_index == 0 else rank_index - 1

    labels = tuple(RANK_LABELS[c % 13] + SUIT_LETTERS[c // 13] for c in range(52)) + ("Joker",)
    rank_kinds = tuple(rank_kind(c) for c in range(52)) + (13,)
    naturals = tuple(tuple(c for c in range(52) if rank_kinds[c] == r + 1) for r in range(NUM_PILLAR_RANKS))
    return KindSet(
        size=53,
        labels=labels,
        rank_kind=rank_kinds,
        joker=52,
        is_two=tuple(rank_kinds[k] == 0 for k in range(53)),
        naturals=naturals,
        copies_per_pack=tuple([1] * 52 + [0]),
    )


RANK_KINDS = _rank_kinds()
CARD_KINDS = _card_kinds()


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


class PillarsState:
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

    __slots__ = (
        "config",
        "kinds",
        "n",
        "deck",
        "hands",
        "hand_sizes",
        "piles",
        "pile_counts",
        "pillars",
        "pillar_cards",
        "pillar_jokers",
        "empire",
        "pending_skip",
        "known",
        "current",
        "turn",
        "phase",
        "main_done",
        "bonus_used",
        "origin",
        "trade_trader",
        "trade_tabled",
        "trade_queue",
        "offers",
        "trade_revealed",
        "battle_attacker",
        "battle_defender",
        "battle_kind",
        "battle_answer",
        "battle_ties",
        "pending_throw",
        "last_throws",
        "battle_tie_throws",
        "turn_log",
        "event_serial",
        "last_decision",
        "outcome",
        "winner",
        "coin_flips",
    )

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

    def clone(self) -> PillarsState:
        """An exact, independent copy (the config and kind tables are shared: they are frozen)."""
        other = PillarsState.__new__(PillarsState)
        other.config = self.config
        other.kinds = self.kinds
        other.n = self.n
        other.deck = self.deck[:]
        other.hands = [h[:] for h in self.hands]
        other.hand_sizes = self.hand_sizes[:]
        other.piles = [p[:] for p in self.piles]
        other.pile_counts = [c[:] for c in self.pile_counts]
        other.pillars = [p[:] for p in self.pillars]
        other.pillar_cards = [p[:] for p in self.pillar_cards]
        other.pillar_jokers = self.pillar_jokers[:]
        other.empire = self.empire[:]
        other.pending_skip = self.pending_skip[:]
        other.known = [k[:] for k in self.known]
        other.current = self.current
        other.turn = self.turn
        other.phase = self.phase
        other.main_done = self.main_done
        other.bonus_used = self.bonus_used
        other.origin = self.origin
        other.trade_trader = self.trade_trader
        other.trade_tabled = self.trade_tabled
        other.trade_queue = self.trade_queue[:]
        other.offers = self.offers[:]
        other.trade_revealed = self.trade_revealed
        other.battle_attacker = self.battle_attacker
        other.battle_defender = self.battle_defender
        other.battle_kind = self.battle_kind
        other.battle_answer = self.battle_answer
        other.battle_ties = self.battle_ties
        other.pending_throw = self.pending_throw
        other.last_throws = self.last_throws[:]
        other.battle_tie_throws = self.battle_tie_throws[:]
        other.turn_log = self.turn_log[:]  # SeatTurn records are immutable: shared safely
        other.event_serial = self.event_serial
        other.last_decision = self.last_decision[:]
        other.outcome = self.outcome
        other.winner = self.winner
        other.coin_flips = self.coin_flips
        return other

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
        """The seat whose decision is pending, -1 once the episode is over."""
        phase = self.phase
        if phase == OVER:
            return -1
        if phase == TRADE_OFFER:
            return self.trade_queue[0]
        if phase == RPS_DEFENDER:
            return self.battle_defender
        return self.current

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
