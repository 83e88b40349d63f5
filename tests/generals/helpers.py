"""State builders and play helpers shared by the Empires and Generals tests.

Cards are named by their pool ids (``"rom_legionary"``). ``blank_state`` builds a game with
``rules.new_game`` and then empties every zone of every player: all of a player's cards are put
in its ``removed`` counts, which these helpers use as a **stash**. ``give_hand``, ``put_unit``
and the other builders take a card from the stash when one is there and otherwise add a new
copy (raising ``deck_size`` with it), so ``card_count() == deck_size`` always holds.

Every builder only writes fields; nothing is auto-resolved until an action is applied with
``act`` (which goes through ``rules.apply_action`` and so through the engine's automatic steps).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from empire_envs.games.generals import rules
from empire_envs.games.generals.actions import Kind
from empire_envs.games.generals.config import GeneralsConfig
from empire_envs.games.generals.rules import (  # noqa: F401  (re-exported for the tests)
    DRAW_PLAYING,
    DRAW_SUPPLY,
    END_PHASE,
    NO_BLOCK,
    NO_TACTIC,
    PASS,
    PLAY_TURN,
)
from empire_envs.games.generals.state import (  # noqa: F401
    ATTACK,
    BF,
    DECLARE,
    KINGDOM,
    ONGOING,
    WC,
    GeneralsState,
    Phase,
    Unit,
    new_counts,
)

# --------------------------------------------------------------------------- building


def blank_state(
    decks: Sequence[str] = ("rome", "mongols"), *, current: int = 0, phase: int = KINGDOM,
    **config_kw,
) -> GeneralsState:
    """A game between ``decks`` (one per seat) with every zone empty, every CH at its start,
    budgets 0, ``turns_taken = 1`` for every seat, seat ``current`` to act in ``phase``."""
    config_kw.setdefault("num_players", len(decks))
    config = GeneralsConfig(**config_kw)
    state = rules.new_game(config, np.random.default_rng(0), decks=list(decks), first_player=0,
                           shuffle=False)
    size = state.pool.size
    for player in state.players:
        stash = new_counts(size)
        for kind in player.playing_deck + player.supply_pile:
            stash[kind] += 1
        for zone in (player.hand, player.supply_ready, player.supply_fresh, player.kingdom,
                     player.discard, player.removed):
            for kind, count in enumerate(zone):
                stash[kind] += count
        for unit in player.units:
            if unit is not None:
                stash[unit.kind] += 1
        for kind in (player.strategy, player.capitol):
            if kind >= 0:
                stash[kind] += 1
        player.hand = new_counts(size)
        player.supply_ready = new_counts(size)
        player.supply_fresh = new_counts(size)
        player.kingdom = new_counts(size)
        player.discard = new_counts(size)
        player.removed = stash
        player.playing_deck = []
        player.supply_pile = []
        player.units = [None] * len(player.units)
        player.strategy = -1
        player.capitol = -1
        player.ch = config.target if config.slaughterhouse else 0
        player.budget = 0
        player.alive = True
        player.passed_last = False
        player.turns_taken = 1
        player.place = 0
        if hasattr(player, "final_reward"):
            player.final_reward = 0.0
        assert player.card_count() == player.deck_size
    state.current = current
    state.first = 0
    state.phase = phase
    state.round = 1
    state.draws_left = 0
    state.attacked = False
    state.battle = None
    state.target_player = -1
    state.pending_card = -1
    state.pending_to_bf = False
    state.banned = set()
    state.outcome = ONGOING
    state.winner = -1
    state.victory = ""
    state.finish_order = []
    state.last_battle = ()
    return state


def kind(state: GeneralsState, card_id: str) -> int:
    return state.pool.index(card_id)


def cost(state: GeneralsState, card_id: str) -> int:
    """The printed cost of a card (the pool's numbers may be tuned: tests read them)."""
    return state.tables.cost[kind(state, card_id)]


def kingdom_phase_card_costing(state: GeneralsState, amount: int) -> str:
    """The id of a Kingdom, Strategy or Capitol card (not ultra rare) of exactly this cost."""
    for card in state.pool.kinds:
        if (card.type in ("kingdom", "strategy", "capitol") and card.cost == amount
                and card.rarity != "ultra_rare"):
            return card.id
    raise LookupError(f"the pool has no Kingdom-phase card of cost {amount}")


def _take(state: GeneralsState, seat: int, card_id: str) -> int:
    """One card of ``card_id`` out of the seat's stash (or a new copy)."""
    k = kind(state, card_id)
    player = state.players[seat]
    if player.removed[k]:
        player.removed[k] -= 1
    else:
        player.deck_size += 1
    return k


def give_hand(state: GeneralsState, seat: int, *card_ids: str) -> None:
    for card_id in card_ids:
        state.players[seat].hand[_take(state, seat, card_id)] += 1


def give_ready(state: GeneralsState, seat: int, *card_ids: str) -> None:
    """Ready (spendable) cards in the seat's Supply Line."""
    for card_id in card_ids:
        state.players[seat].supply_ready[_take(state, seat, card_id)] += 1


def give_fresh(state: GeneralsState, seat: int, *card_ids: str) -> None:
    for card_id in card_ids:
        state.players[seat].supply_fresh[_take(state, seat, card_id)] += 1


def set_kingdom(state: GeneralsState, seat: int, *card_ids: str) -> None:
    for card_id in card_ids:
        state.players[seat].kingdom[_take(state, seat, card_id)] += 1


def set_strategy(state: GeneralsState, seat: int, card_id: str) -> None:
    assert state.players[seat].strategy < 0
    state.players[seat].strategy = _take(state, seat, card_id)


def set_capitol(state: GeneralsState, seat: int, card_id: str) -> None:
    assert state.players[seat].capitol < 0
    state.players[seat].capitol = _take(state, seat, card_id)


def set_pile(state: GeneralsState, seat: int, pile: str, card_ids: Iterable[str]) -> None:
    """``pile`` "playing" or "supply", bottom card first (the top card is the last one)."""
    cards = [_take(state, seat, card_id) for card_id in card_ids]
    player = state.players[seat]
    assert pile in ("playing", "supply")
    if pile == "playing":
        player.playing_deck = cards
    else:
        player.supply_pile = cards


def put_unit(state: GeneralsState, seat: int, slot: int, card_id: str, zone: int,
             entered_turn: int = 0) -> None:
    """A unit in play; ``entered_turn=0`` (before the seat's current turn 1) is not pulled."""
    assert state.players[seat].units[slot] is None
    state.players[seat].units[slot] = Unit(_take(state, seat, card_id), zone, entered_turn)


# --------------------------------------------------------------------------- reading


def units_of(state: GeneralsState, seat: int) -> dict[int, tuple[str, int]]:
    """``{slot: (card id, zone)}`` of the seat's units in play."""
    ids = state.tables.ids
    return {u: (ids[unit.kind], unit.zone) for u, unit in enumerate(state.players[seat].units)
            if unit is not None}


def discards(state: GeneralsState, seat: int) -> dict[str, int]:
    ids = state.tables.ids
    return {ids[k]: n for k, n in enumerate(state.players[seat].discard) if n}


def hand_of(state: GeneralsState, seat: int) -> dict[str, int]:
    ids = state.tables.ids
    return {ids[k]: n for k, n in enumerate(state.players[seat].hand) if n}


def chs(state: GeneralsState) -> list[int]:
    return [p.ch for p in state.players]


def legal(state: GeneralsState) -> list[int]:
    """The legal actions, sorted (compared as a set: the engine lists END_PHASE last)."""
    return sorted(rules.legal_actions(state))


def mask(state: GeneralsState) -> np.ndarray:
    return rules.legal_mask(state)


# --------------------------------------------------------------------------- action indices


def lay(state: GeneralsState):
    return rules.layout(state)


def PLAY(state: GeneralsState, card_id: str) -> int:
    return lay(state).index(Kind.PLAY, kind(state, card_id))


def PLAY_TO_BF(state: GeneralsState, card_id: str) -> int:
    return lay(state).index(Kind.PLAY_TO_BF, kind(state, card_id))


def MOVE(state: GeneralsState, slot: int) -> int:
    return lay(state).index(Kind.MOVE, slot)


def DISCARD_UNIT(state: GeneralsState, slot: int) -> int:
    return lay(state).index(Kind.DISCARD_UNIT, slot)


def ATTACK_AT(state: GeneralsState, slot: int, offset: int, zone: int) -> int:
    return lay(state).index(Kind.ATTACK, slot, offset, zone)


def BLOCK(state: GeneralsState, slot: int) -> int:
    return lay(state).index(Kind.BLOCK, slot)


def DISCARD_HAND(state: GeneralsState, card_id: str) -> int:
    return lay(state).index(Kind.DISCARD_HAND, kind(state, card_id))


def TARGET_PLAYER(state: GeneralsState, offset: int) -> int:
    return lay(state).index(Kind.TARGET_PLAYER, offset)


def TARGET_KIND(state: GeneralsState, card_id: str) -> int:
    return lay(state).index(Kind.TARGET_KIND, kind(state, card_id))


# --------------------------------------------------------------------------- acting


def act(state: GeneralsState, action: int) -> list[float]:
    """Apply one action (and the engine's automatic steps); the per-seat rewards of the step."""
    return rules.apply_action(state, action, np.random.default_rng(0))


def acts(state: GeneralsState, *actions: int) -> list[list[float]]:
    return [act(state, a) for a in actions]


def start_attack(state: GeneralsState, attacker: int, slot: int, defender: int,
                 zone: int) -> list[float]:
    """Put the attacker in its Attack phase and declare ATTACK(slot -> defender, zone)."""
    state.current = attacker
    state.phase = ATTACK
    state.attacked = False
    state.battle = None
    return act(state, ATTACK_AT(state, slot, state.offset_of(attacker, defender), zone))


def kill_tests_for(state: GeneralsState, attacker: int, a_slot: int, defender: int,
                   b_slot: int, zone: int) -> tuple[bool, bool]:
    """``rules.kill_tests`` of a battle set up on a clone (no tactic pumps)."""
    from empire_envs.games.generals.state import Battle

    probe = state.clone()
    probe.battle = Battle(attacker, a_slot, defender, zone)
    probe.battle.blocker = b_slot
    probe.battle.blocker_declared = True
    return rules.kill_tests(probe)


#: the actions that decline to fight: the end of a phase, no blocker, no tactic
DECLINING = frozenset({END_PHASE, NO_BLOCK, NO_TACTIC})


def fighting_action(state: GeneralsState, rng: np.random.Generator) -> int:
    """A random legal action that, in the Attack, Block and Tactic phases, fights (attacks,
    blocks, plays a tactic) 85% of the time when it can, so random games reach battles."""
    legal = rules.legal_actions(state)
    if state.phase in (Phase.ATTACK, Phase.BLOCK, Phase.TACTIC) and rng.random() < 0.85:
        fighting = [action for action in legal if action not in DECLINING]
        if fighting:
            return fighting[int(rng.integers(len(fighting)))]
    return legal[int(rng.integers(len(legal)))]
