"""A rule-of-thumb player for Empires and Generals: develop the economy, attack when the board
favours it, block sensibly.

It reads only what its seat may know: public zones (units, Kingdom, Strategy, Capitol, Supply
Lines, CH) and its own hand. Plays of the Kingdom and Army phases are scored one action deep by
``evaluate`` (cultural health first, then income, then strength in play); the draw pile, attacks,
blocks and tactics follow the battle arithmetic of ``rules.kill_tests`` with the opponents
assumed to answer with no tactic (their hands are hidden). Ties fall to the agent's own seeded
generator, so a game is repeatable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..games.generals import rules
from ..games.generals.actions import Kind
from ..games.generals.state import (
    ARMY,
    ATTACK,
    BF,
    BLOCK,
    DECLARE,
    DISCARD_HAND,
    DRAW,
    KINGDOM,
    OVER,
    REPLACE_GENERAL,
    TACTIC,
    TARGET_KIND,
    TARGET_PLAYER,
    WC,
    Battle,
    GeneralsState,
)
from .base import SeededAgent

CH_WEIGHT = 10.0
WIN = 1000.0


def seat_score(state: GeneralsState, seat: int) -> float:
    """How strong one seat stands, from public information only."""
    player = state.players[seat]
    statics = sum(
        weight * rules.static_total(state, seat, effect)
        for effect, weight in (
            ("harvest", 3.0),
            ("ch_per_turn", 6.0),
            ("draw_extra", 2.0),
            ("on_block_kill_ch", 1.0),
            ("hand_limit", 0.2),
        )
    )
    might = 0.0
    generals = 0
    for unit, numbers in zip(player.units, rules.unit_numbers(state, seat), strict=True):
        if unit is None or numbers is None:
            continue
        might += 0.5 * sum(numbers)
        generals += state.tables.is_general[unit.kind]
    return (
        CH_WEIGHT * player.ch
        + statics
        + might
        + (3.0 if generals else 0.0)
        + 0.4 * (rules.ready_value(state, seat) + rules.fresh_value(state, seat))
        + 0.5 * sum(player.kingdom)
    )


def evaluate(state: GeneralsState, seat: int) -> float:
    """My score against the best of the others (a win or a loss dominates)."""
    if not state.players[seat].alive or state.phase == OVER:
        if state.winner == seat or state.players[seat].place == 1:
            return WIN
        if not state.players[seat].alive or state.phase == OVER and state.winner >= 0:
            return -WIN
    others = [seat_score(state, p) for p in rules.opponents_in_game(state, seat)]
    return seat_score(state, seat) - (max(others) if others else 0.0)


def unit_value(state: GeneralsState, seat: int, slot: int) -> float:
    unit = state.players[seat].units[slot]
    assert unit is not None
    bonus = 3.0 if state.tables.is_general[unit.kind] else 0.0
    return 0.5 * sum(rules.unit_numbers_at(state, seat, slot)) + bonus


class GeneralsHeuristicAgent(SeededAgent):
    """See the module docstring."""

    name = "heuristic"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if state is None:
            raise ValueError("the Generals heuristic reads the game state; pass it to act()")
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("no legal action in the mask")
        if len(legal) == 1:
            return legal[0]
        seat = state.acting_player()
        phase = state.phase
        if phase == DECLARE:
            return rules.PLAY_TURN
        if phase == DRAW:
            return self._draw(state, seat, legal)
        if phase in (KINGDOM, ARMY):
            return self._best_play(state, seat, legal)
        if phase == ATTACK:
            return self._attack(state, seat, legal)
        if phase == BLOCK:
            return self._block(state, seat, legal)
        if phase == TACTIC:
            return self._tactic(state, seat, legal)
        if phase == TARGET_PLAYER:
            return max(legal, key=lambda a: self._target_score(state, seat, a))
        lay = rules.layout(state)
        if phase == TARGET_KIND:
            return max(legal, key=lambda a: kingdom_card_worth(state, lay.decode(a).a))
        if phase == DISCARD_HAND:
            return min(legal, key=lambda a: (state.tables.cost[lay.decode(a).a], a))
        if phase == REPLACE_GENERAL:
            return min(legal, key=lambda a: unit_value(state, seat, lay.decode(a).a))
        return self._pick(legal)

    def _pick(self, actions: list[int]) -> int:
        return actions[int(self.rng.integers(len(actions)))]

    def _best(self, scored: list[tuple[float, int]]) -> int:
        top = max(score for score, _ in scored)
        return self._pick([a for score, a in scored if score >= top - 1e-9])

    # ------------------------------------------------------------------ phases

    def _draw(self, state: GeneralsState, seat: int, legal: list[int]) -> int:
        """Money first while the Supply Line is thin, else cards to play."""
        player = state.players[seat]
        money = rules.ready_value(state, seat) + rules.fresh_value(state, seat)
        if rules.DRAW_SUPPLY in legal and (money < 4 or rules.DRAW_PLAYING not in legal):
            return rules.DRAW_SUPPLY
        if rules.DRAW_PLAYING in legal and sum(player.hand) < 9:
            return rules.DRAW_PLAYING
        return self._pick(legal)

    def _best_play(self, state: GeneralsState, seat: int, legal: list[int]) -> int:
        """One action deep: the play that raises ``evaluate`` most, or END_PHASE."""
        lay = rules.layout(state)
        base = evaluate(state, seat)
        scored = [(0.0, rules.END_PHASE)]
        for action in legal:
            kind, a, _, _ = lay.decode(action)
            if action == rules.END_PHASE or kind is Kind.DISCARD_UNIT:
                continue
            if kind is Kind.PLAY and state.tables.kinds[a].effect == "destroy_kingdom":
                gain = max(
                    (
                        kingdom_card_worth(state, k)
                        for p in rules.opponents_in_game(state, seat)
                        for k, c in enumerate(state.players[p].kingdom)
                        if c
                    ),
                    default=0.0,
                )
                scored.append((gain - 0.4 * state.tables.cost[a], action))
                continue
            after = state.clone()
            rules.apply_action(after, action, np.random.default_rng(0))
            value = evaluate(after, seat) - base
            if kind is Kind.PLAY_TO_BF:
                value += 0.5  # ready to attack at once
            if kind is Kind.PLAY and state.tables.is_unit[a]:
                value += 0.2
            scored.append((value, action))
        return self._best(scored)

    def _target_score(self, state: GeneralsState, seat: int, action: int) -> float:
        target = state.seat_at(seat, rules.layout(state).decode(action).a)
        return seat_score(state, target)

    def _attack(self, state: GeneralsState, seat: int, legal: list[int]) -> int:
        lay = rules.layout(state)
        player = state.players[seat]
        # bring fresh units forward, but keep the sturdiest one home as a Warcamp guard
        home = [u for u, unit in enumerate(player.units) if unit is not None and unit.zone == WC]
        movable = [
            a
            for a in legal
            if (move := lay.decode(a)).kind is Kind.MOVE
            and (unit := player.units[move.a]) is not None
            and unit.zone == WC
        ]
        if movable and not state.attacked:
            guard = max(home, key=lambda u: rules.unit_life(state, seat, u), default=-1)
            forward = [a for a in movable if lay.decode(a).a != guard or len(home) > 2]
            if forward:
                return forward[0]
        attacks = [a for a in legal if lay.decode(a).kind is Kind.ATTACK]
        if not attacks:
            return rules.END_PHASE
        scored = [(0.0, rules.END_PHASE)]
        for action in attacks:
            _, slot, offset, zone = lay.decode(action)
            scored.append((attack_value(state, seat, slot, state.seat_at(seat, offset), zone), action))
        return self._best(scored)

    def _block(self, state: GeneralsState, seat: int, legal: list[int]) -> int:
        lay = rules.layout(state)
        battle = state.battle
        assert battle is not None
        scored = []
        for action in legal:
            blocker = -1 if action == rules.NO_BLOCK else lay.decode(action).a
            scored.append((-block_cost(state, battle, blocker), action))
        return self._best(scored)

    def _tactic(self, state: GeneralsState, seat: int, legal: list[int]) -> int:
        """Each tactic (or none) played on a copy, the rest of the battle without tactics."""
        scored = []
        for action in legal:
            after = state.clone()
            rules.apply_action(after, action, np.random.default_rng(0))
            while after.phase in (TACTIC, BLOCK) and after.battle is not None:
                # the others answer without a tactic; a redirect's Warcamp block as ours would be
                if after.phase == TACTIC:
                    rules.apply_action(after, rules.NO_TACTIC, np.random.default_rng(0))
                else:
                    lay, battle = rules.layout(after), after.battle
                    block = min(
                        rules.legal_actions(after),
                        key=lambda a: block_cost(after, battle, -1 if a == rules.NO_BLOCK else lay.decode(a).a),
                    )
                    rules.apply_action(after, block, np.random.default_rng(0))
            cost = 0.0 if action == rules.NO_TACTIC else 0.4 * state.tables.cost[rules.layout(state).decode(action).a]
            scored.append((evaluate(after, seat) - cost, action))
        return self._best(scored)


def kingdom_card_worth(state: GeneralsState, kind: int) -> float:
    """What a Kingdom kind is worth to whoever holds it (for Sabotage)."""
    card = state.tables.kinds[kind]
    return (
        3.0 * card.harvest
        + 6.0 * card.ch_per_turn
        + 2.0 * card.draw_extra
        + 1.0 * (card.soldier_str + card.soldier_life + card.general_str + card.general_life + card.camp_life_all)
        + 0.5
    )


def _battle_result(state: GeneralsState, battle: Battle, blocker: int) -> tuple[bool, bool]:
    """(attacker kills, blocker kills) if ``blocker`` blocks with no tactics."""
    probe = state.clone()
    probe.battle = battle.clone()
    probe.battle.blocker = blocker
    probe.battle.pumps = battle.pumps[:]
    return rules.kill_tests(probe)


def block_cost(state: GeneralsState, battle: Battle, blocker: int) -> float:
    """What a block (or none) is expected to cost the defender."""
    defender, attacker = battle.defender, battle.attacker
    attacker_value = unit_value(state, attacker, battle.a_slot)
    if blocker < 0:
        if battle.zone == BF:  # redirected to the Warcamp: the best Warcamp block decides
            home = [u for u, unit in enumerate(state.players[defender].units) if unit is not None and unit.zone == WC]
            redirected = battle.clone()
            redirected.zone = WC
            return min([CH_WEIGHT] + [block_cost(state, redirected, u) for u in home])
        return CH_WEIGHT
    a_kills, d_kills = _battle_result(state, battle, blocker)
    cost = 0.0
    if a_kills:
        cost += unit_value(state, defender, blocker)
        if battle.zone == WC and not d_kills:
            cost += CH_WEIGHT
    if d_kills:
        cost -= attacker_value
    return cost


def attack_value(state: GeneralsState, seat: int, slot: int, defender: int, zone: int) -> float:
    """The attack's worth to the attacker, assuming the defender blocks as ``block_cost``
    advises and nobody plays a tactic."""
    probe = state.clone()
    battle = Battle(seat, slot, defender, zone)
    units = probe.players[defender].units
    options = [-1] + [u for u, unit in enumerate(units) if unit is not None and unit.zone == zone]
    blocker = min(options, key=lambda u: block_cost(probe, battle, u))
    if blocker < 0 and zone == BF:
        home = [u for u, unit in enumerate(units) if unit is not None and unit.zone == WC]
        battle.zone = WC
        blocker = min([-1] + home, key=lambda u: block_cost(probe, battle, u))
    if blocker < 0:
        return CH_WEIGHT
    a_kills, d_kills = _battle_result(probe, battle, blocker)
    value = 0.0
    if a_kills:
        value += unit_value(state, defender, blocker) + (CH_WEIGHT if battle.zone == WC and not d_kills else 0.0)
    if d_kills:
        value -= unit_value(state, seat, slot)
    return value - 0.1
