"""Every variant knob of Pillars ("Empire: The Card Game"), validated; the only place where
their defaults live. ``docs/rules/pillars.md`` explains each rule they change."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...core.cards import NUM_CARDS, NUM_RANKS
from .tables import HAND_SIZE  # a deal must also leave a resource pile

RESOURCE_EMPTY_MODES = ("reshuffle", "skip_draw", "end_draw")
BATTLE_DEMAND_MODES = ("rank", "card")
RPS_MODES = ("played", "random")
REWARD_SCHEMES = ("win_loss", "zero_sum")
MIN_PLAYERS, MAX_PLAYERS = 3, 6


def _check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {value!r}")


def _check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"in {low}..{high}" if high is not None else f"at least {low}"
        raise ValueError(f"{name} must be {bound}, got {value}")


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


@dataclass(frozen=True)
class PillarsConfig:
    """Rule variants of Pillars. Each attribute is a flag of the rulings (section numbers of
    ``docs/rules/pillars.md`` in brackets).

    Attributes:
        num_players: 3 to 6 seats (2 only with ``allow_2p``) [2].
        packs: number of 54-card packs shuffled together, or ``"auto"``: 2 packs for 2-4
            players, 3 for 5-6 [2].
        jokers_per_pack: jokers in each pack [1].
        allow_2p: permit the unofficial two-player game [2].
        first_round_pillars: allow pillars (no bonus) before the round-1 discard [8].
        main_action_optional: the main action may be skipped with END_BUILD [11].
        resource_empty: what a draw from an empty resource pile does: ``"reshuffle"`` the discard
            piles under their top cards into a new pile, ``"skip_draw"`` (no refill ever), or
            ``"end_draw"`` (the episode is truncated as a draw) [12].
        battle_demand: a battle demands a ``"rank"`` (14 kinds) or an exact ``"card"`` (52 cards
            and the Joker, so every kind-indexed range is 53 wide) [21].
        rps_max_ties: consecutive rock-paper-scissors ties in one battle before a fair coin
            decides it [26].
        rps_mode: ``"played"`` by the two seats, or ``"random"`` (a coin, no RPS decisions) [27].
        min_natural_per_pillar: natural cards a pillar needs besides jokers [28].
        skip_optional: a player who discarded a 2 may name no one (NO_SKIP) [43].
        length_limit: the episode is truncated after this many rounds of ``num_players`` turns,
            skipped turns included [47].
        reward_scheme: ``"win_loss"`` (winner +1, everyone else -1) or ``"zero_sum"`` (winner +1,
            everyone else ``-1/(n-1)``) [1].
        shaping: reward paid to a player each time it lays a pillar (at most 0.1, so
            shaping stays far below a win) [1].
        obs_known_cards: fill the known-cards tracker block of the observation (zeros when
            False) [4].
    """

    num_players: int = 4
    packs: int | str = "auto"
    jokers_per_pack: int = 2
    allow_2p: bool = False
    first_round_pillars: bool = False
    main_action_optional: bool = False
    resource_empty: str = "reshuffle"
    battle_demand: str = "rank"
    rps_max_ties: int = 5
    rps_mode: str = "played"
    min_natural_per_pillar: int = 0
    skip_optional: bool = True
    length_limit: int = 200
    reward_scheme: str = "win_loss"
    shaping: float = 0.0
    obs_known_cards: bool = True

    def __post_init__(self) -> None:
        for name in ("allow_2p", "first_round_pillars", "main_action_optional", "skip_optional", "obs_known_cards"):
            _check_bool(name, getattr(self, name))
        low = 2 if self.allow_2p else MIN_PLAYERS
        if (
            not isinstance(self.num_players, bool)
            and isinstance(self.num_players, int)
            and self.num_players == 2
            and not self.allow_2p
        ):
            raise ValueError("num_players=2 is the unofficial variant: pass allow_2p=True")
        _check_int("num_players", self.num_players, low, MAX_PLAYERS)
        if self.packs != "auto":
            if isinstance(self.packs, str):
                raise ValueError(f"packs must be 'auto' or an int from 1 to 8, got {self.packs!r}")
            _check_int("packs", self.packs, 1, 8)
        _check_int("jokers_per_pack", self.jokers_per_pack, 0, 8)
        _check_choice("resource_empty", self.resource_empty, RESOURCE_EMPTY_MODES)
        _check_choice("battle_demand", self.battle_demand, BATTLE_DEMAND_MODES)
        _check_int("rps_max_ties", self.rps_max_ties, 1, 100)
        _check_choice("rps_mode", self.rps_mode, RPS_MODES)
        _check_int("min_natural_per_pillar", self.min_natural_per_pillar, 0, 4)
        _check_int("length_limit", self.length_limit, 1, 100_000)
        _check_choice("reward_scheme", self.reward_scheme, REWARD_SCHEMES)
        if isinstance(self.shaping, bool) or not isinstance(self.shaping, (int, float)):
            raise TypeError(f"shaping must be a number, got {self.shaping!r}")
        if not math.isfinite(self.shaping) or not 0 <= self.shaping <= 0.1:
            raise ValueError(f"shaping must be in [0, 0.1] so that shaping stays far below a win, got {self.shaping!r}")
        object.__setattr__(self, "shaping", float(self.shaping))
        if self.num_cards < self.num_players * HAND_SIZE + 1:
            raise ValueError(
                f"{self.num_packs} pack(s) of {self.cards_per_pack} cards cannot deal {HAND_SIZE} cards to "
                f"{self.num_players} players and leave a resource pile"
            )

    @property
    def num_packs(self) -> int:
        if self.packs == "auto":
            return 2 if self.num_players <= 4 else 3
        return int(self.packs)

    @property
    def cards_per_pack(self) -> int:
        return NUM_CARDS + self.jokers_per_pack

    @property
    def num_cards(self) -> int:
        return self.num_packs * self.cards_per_pack

    @property
    def num_kinds(self) -> int:
        """Kinds of card the rules tell apart (``state.kinds_for(config).size``): the 13 ranks and
        the Joker (14), or with ``battle_demand="card"`` the 52 cards and the Joker (53)."""
        return (NUM_RANKS if self.battle_demand == "rank" else NUM_CARDS) + 1
