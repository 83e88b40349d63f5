"""Every variant knob of Map Duel, validated; the only place where their defaults live.
``docs/rules/map_duel.md`` explains each rule they change."""

from __future__ import annotations

from dataclasses import dataclass

#: ``first_player``: a seat (0 or 1) or ``"random"``
FIRST_PLAYER_CHOICES = (0, 1, "random")
KING_REACHES = ("orthogonal", "all8")
PLACEMENT_RULES = ("all_neighbours", "any_neighbour")
ACE_BLOCKING = ("none", "faces", "cards")
SUIT_ORDERS = ("CDHS", "none")
JACK_SUIT_RULES = ("pairwise", "major_minor")
ACE_VS_ACE = ("coin", "aggressor_wins")


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


def _check_first_player(value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"first_player must be a seat int or 'random', got {value!r}")
    if value not in FIRST_PLAYER_CHOICES:
        raise ValueError(f"first_player must be one of {FIRST_PLAYER_CHOICES}, got {value!r}")


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")


@dataclass(frozen=True)
class MapDuelConfig:
    """Rule variants of Map Duel (ruling numbers of ``docs/rules/map_duel.md`` in brackets).

    Attributes:
        board_size: the board is ``board_size x board_size`` cells, odd, 9 to 25 [7].
        first_player: the seat that places the second setup card, its starting face first and
            moves first: ``0`` (agent ``player_0``, red), ``1`` (``player_1``, black) or
            ``"random"`` [13].
        king_reach: a King confronts the 4 ``"orthogonal"`` neighbours or ``"all8"`` [8].
        placement_rule: a setup card must suit ``"all_neighbours"`` or ``"any_neighbour"`` [15].
        sacrifice_exact: a sacrifice must make exactly as many swaps as the card's rank [24].
        build_uses_placement_rule: building must follow the setup parity/colour rule [31].
        ace_blocking: what stops an Ace's diagonal: ``"none"``, ``"faces"`` or ``"cards"`` [32].
        suit_order: ``"CDHS"`` breaks value ties by suit; ``"none"`` goes to a coin [36].
        jack_suit_rule: when a Jack counts as "low-suit" against another Jack: ``"pairwise"``
            (lower in the suit order) or ``"major_minor"`` (C, D low; H, S high) [37].
        ace_vs_ace: an Ace confronting an Ace is a ``"coin"`` or ``"aggressor_wins"`` [38].
        hidden_pools: the opponent's pool is shown as its size only [39].
        no_progress_turns: a draw after this many turns in a row without a consume, build,
            placement, sacrifice, spend or confrontation [45].
        length_limit: truncation (reward 0) after this many main-game turns [45].
        shaping: ``c`` of the optional shaped reward ``c * (change in my colour's share of the
            map's number cards)`` [1].
    """

    board_size: int = 13
    first_player: int | str = 0
    king_reach: str = "orthogonal"
    placement_rule: str = "all_neighbours"
    sacrifice_exact: bool = False
    build_uses_placement_rule: bool = False
    ace_blocking: str = "none"
    suit_order: str = "CDHS"
    jack_suit_rule: str = "pairwise"
    ace_vs_ace: str = "coin"
    hidden_pools: bool = False
    no_progress_turns: int = 30
    length_limit: int = 300
    shaping: float = 0.0

    def __post_init__(self) -> None:
        _check_int("board_size", self.board_size, 9, 25)
        if self.board_size % 2 == 0:
            raise ValueError(f"board_size must be odd (the first card takes the centre), got {self.board_size}")
        _check_first_player(self.first_player)
        _check_choice("king_reach", self.king_reach, KING_REACHES)
        _check_choice("placement_rule", self.placement_rule, PLACEMENT_RULES)
        _check_choice("ace_blocking", self.ace_blocking, ACE_BLOCKING)
        _check_choice("suit_order", self.suit_order, SUIT_ORDERS)
        _check_choice("jack_suit_rule", self.jack_suit_rule, JACK_SUIT_RULES)
        _check_choice("ace_vs_ace", self.ace_vs_ace, ACE_VS_ACE)
        for name in ("sacrifice_exact", "build_uses_placement_rule", "hidden_pools"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool, got {getattr(self, name)!r}")
        _check_int("no_progress_turns", self.no_progress_turns, 1, 10_000)
        _check_int("length_limit", self.length_limit, 1, 100_000)
        if isinstance(self.shaping, bool) or not isinstance(self.shaping, (int, float)):
            raise TypeError(f"shaping must be a number, got {self.shaping!r}")
        if not 0.0 <= self.shaping <= 0.5:
            raise ValueError(f"shaping must be in [0, 0.5] so it stays below a win, got {self.shaping!r}")
        object.__setattr__(self, "shaping", float(self.shaping))
