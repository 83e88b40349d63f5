"""The numbers of a card pool that the rules index (``CardTables``, built once per pool and
shared by every state of it), the pool and decks of a config, and the action layout of a state."""

from __future__ import annotations

from array import array
from functools import lru_cache

from ..actions import ActionLayout, layout_for
from ..cards import STATIC_EFFECTS, CardPool, Deck
from ..config import GeneralsConfig
from ..state import COUNT_TYPECODE, GeneralsState


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
        return tables_for, (self.pool,)

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
def tables_for(pool: CardPool) -> CardTables:
    """The one ``CardTables`` of ``pool``."""
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
    """The state's action table (``actions.ActionLayout``)."""
    return state.layout
