"""The Empires and Generals twin's rules: the deal, the legal mask of every phase, every phase's
apply and the whole step with its automatic steps, for a twin ``State`` (``jax_state``),
select-style (no Python branching on traced values), so ``jit`` and ``vmap`` apply. Every
Generals id is registered with it (``GameEntry.jax_rules``: ``rules_for``).

The parts, each the twin of the Python function it names:

- ``acting_seat``: ``rules.phases.acting_player`` (the turn player, the defender in BLOCK, the
  tactic side in TACTIC; -1 once over);
- ``legal_mask``: ``rules.phases.legal_mask``, every phase's blocks computed and picked by the
  phase (the blocks come in the action table's order, ``actions.action_blocks``);
- ``end_turn``: ``rules.turn.end_turn`` with ``begin_turn`` and ``scoring.truncate``;
- ``change_ch``: ``rules.scoring.change_ch`` with what it sets off (``eliminate``,
  ``_chancellor_victory``, ``_last_player_standing``, ``_leave``), returning each seat's earned
  reward (float32; under ``shaping`` it may be an ulp off the float32 of Python's double);
- ``apply_declare``, ``apply_draw``, ``apply_discard_hand``: the DECLARE, DRAW and DISCARD_HAND
  phases' ``apply`` (``rules.turn``, with ``_continue_draw`` and ``_harvest``), one step
  without ``_do``'s end of a turn for a seat that left or ``auto_resolve``; ``resolve_phase``;
- ``apply_kingdom`` (``play_kingdom_card`` with ``pay``), ``apply_target_player``,
  ``apply_target_kind``: the Kingdom phase and the Sabotage choices (``rules.kingdom``), one step;
  the ``draw`` and ``gain_ch`` main tactics are written but no card of the default pool has them,
  so only card pools that have them reach them;
- ``payment_choice``: ``rules.derived.payment_choice`` as a fixed-shape dynamic programme over
  the pool's resource kinds (see its docstring for the bound and the tie-break).

- ``apply_army`` (``play_unit``, ``enter_play``, ``activate``, Soldier discards),
  ``apply_replace_general``, ``apply_attack``, ``apply_block`` (``resolve_battle``,
  ``kill_tests``, ``_finish_battle``), ``apply_tactic`` (``_play_tactic``: pumps, withdrawals,
  the removal of the enemy unit): one step each, against the Python phase applies.
  ``PHASE_STEPS`` takes DECLARE and DRAW only up to ``_continue_draw``, BLOCK and TACTIC only up
  to the battle, and ``do_step`` runs each of those once for both phases; ``_finish_battle``
  makes its CH changes in one ``lax.scan``: the step's program is 38% smaller, and compiles in
  half the time, than with a copy of each;
- ``do_step`` (``rules.phases._do``: every phase's step computed and the one of the state's
  phase selected, the draw or the battle it reaches, a turn player that left ends its turn;
  the rare and costly parts behind gates, ``_where_needed``) and ``apply_action``
  (``rules.phases.apply_action`` for a legal action: the decision and every automatic step in
  one ``lax.while_loop``, ``add_final_results``, the decision count and its truncation);
- ``make_init`` (``rules.setup.new_game`` without reset options: ``deal_orders`` draws the
  decks, every pile's shuffle and the first player from the key, kept in ``state.deal_key``),
  ``python_deal_draws`` (the ``PresetDraws`` that make ``new_game`` deal the same) and
  ``settle`` (the pgx fields).

- ``make_step``, ``python_draws`` and ``rules_for``: the env's record (``core.jax_game.JaxRules``);
  outcome codes name the winner and the victory (``jax_state.won_code``, ``outcome_names``).
  The game type, the Slaughterhouse (with its floor) and the length limit are state fields
  (``jax_state``), set by the deal: the configs that differ only in them share one step and
  one view, the same function objects (``program_config``), so one compile serves Generals-v0,
  GeneralsQuick-v0, GeneralsEpic-v0 and GeneralsSlaughter-v0 (and the two 4-seat ids).

Every card number comes from ``jax_tables.CardArrays`` (``cards``); the payment needs them as
numpy constants (the resource kinds, their values and copy bounds fix its shape).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .actions import DRAW_PLAYING, END_PHASE, NO_BLOCK, NO_TACTIC, PASS, PLAY_TURN, Kind, layout_for
from .config import MAX_KINGDOM, UNIT_SLOTS, GeneralsConfig
from .jax_derived import (
    bf_entry_flags,
    effective_costs,
    free_slot,
    generals_in_play,
    hand_limit,
    has_keyword,
    money,
    obeys_pull,
    per_kind,
    static_total,
    static_totals,
    unit_life,
    unit_strength,
)
from .jax_state import VICTORY_NAMES, _host_blank, deck_ids, final_reward_table, twin_decks, won_code
from .jax_tables import (
    TWIN_ABILITY_EFFECTS,
    TWIN_KEYWORDS,
    TWIN_SIDES,
    TWIN_TACTIC_EFFECTS,
    CardArrays,
    card_arrays,
)
from .state import (
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
    TRUNCATED,
    WC,
)

__all__ = [
    "PHASE_STEPS",
    "acting_seat",
    "activate",
    "add_final_results",
    "apply_action",
    "apply_army",
    "apply_attack",
    "apply_block",
    "apply_declare",
    "apply_discard_hand",
    "apply_draw",
    "apply_kingdom",
    "apply_replace_general",
    "apply_tactic",
    "apply_target_kind",
    "apply_target_player",
    "change_ch",
    "do_step",
    "eliminate",
    "deal_orders",
    "end_turn",
    "enter_play",
    "legal_mask",
    "make_init",
    "make_step",
    "python_deal_draws",
    "python_draws",
    "payment_choice",
    "pay",
    "resolve_battle",
    "kill_tests",
    "payment_plan",
    "play_kingdom_card",
    "play_unit",
    "resolve_phase",
    "rules_for",
    "settle",
    "single_action",
]

_I32 = jnp.int32


def _row(values: jax.Array, seat: jax.Array) -> jax.Array:
    """``values[seat]`` for a per-seat array (``seat`` traced, clipped into range)."""
    return values[jnp.clip(seat, 0, values.shape[0] - 1)]


def acting_seat(state) -> jax.Array:
    """``int32``: the seat whose decision is pending, -1 once over; ``rules.phases.
    acting_player`` (the phase table's ``actor``: the turn player, ``battle.defender`` in BLOCK,
    ``tactics.tactic_side`` in TACTIC)."""
    phase = state.phase.astype(_I32)
    turn = state.turn_player.astype(_I32)
    attacker, defender = state.battle_attacker.astype(_I32), state.battle_defender.astype(_I32)
    tactic_side = jnp.where(state.battle_tactic_turn == 0, attacker, defender)
    seat = jnp.where(phase == BLOCK, defender, jnp.where(phase == TACTIC, tactic_side, turn))
    return jnp.where(phase == OVER, -1, seat)


# --------------------------------------------------------------------------- the legal mask


def _kingdom_plays(cards: CardArrays, state, seat, wealth, opponents) -> jax.Array:
    """``bool[K]``: ``rules.kingdom.kingdom_plays``: Kingdom cards (fewer than ``MAX_KINGDOM``
    in the Kingdom), Strategy, Capitol and main tactics in hand, not banned, printed cost within
    the seat's money; a ``destroy_kingdom`` tactic only while an opponent in the game has a
    Kingdom card."""
    hand = _row(state.hand, seat) > 0
    base = (jnp.asarray(cards.is_static) | jnp.asarray(cards.is_main_tactic)) & hand & ~state.banned
    base = base & (jnp.asarray(cards.cost) <= wealth)
    room = _row(state.kingdom.astype(_I32).sum(axis=1), seat) < MAX_KINGDOM
    any_target = (opponents & (state.kingdom.astype(_I32).sum(axis=1) > 0)).any()
    destroys = jnp.asarray(cards.effect_code) == TWIN_TACTIC_EFFECTS.index("destroy_kingdom")
    kingdom = jnp.asarray(cards.is_kingdom)
    tactic = jnp.asarray(cards.is_tactic)
    allowed = jnp.where(kingdom, room, jnp.where(tactic & destroys, any_target, True))
    return base & allowed


def _army_moves(cards: CardArrays, config: GeneralsConfig, state, seat, wealth, totals):
    """``(play, play_to_bf, activate, discard)`` (``bool[K]``, ``bool[K]``, ``bool[U]``,
    ``bool[U]``): ``rules.army.army_moves``: a unit in hand, not banned, its cost (a Soldier's
    less the discount) within the money, with a free slot or a General at the cap (it replaces
    one); straight to the Battlefield unless it obeys Pull; abilities not used this turn within
    the money; discards of Soldiers."""
    costs = _row(effective_costs(cards, state, totals), seat)
    hand = _row(state.hand, seat) > 0
    general = jnp.asarray(cards.is_general)
    has_slot = _row(free_slot(state), seat) >= 0
    at_cap = _row(generals_in_play(cards, state).sum(axis=1), seat) >= config.max_generals
    play = jnp.asarray(cards.is_unit) & hand & ~state.banned & (costs <= wealth) & (has_slot | (general & at_cap))
    every_kind = jnp.broadcast_to(jnp.arange(play.shape[0], dtype=_I32), (state.hand.shape[0], play.shape[0]))
    pulls = _row(obeys_pull(cards, totals, every_kind), seat)
    kinds = _row(state.unit_kind.astype(_I32), seat)
    present = kinds >= 0
    ability = per_kind(cards.has_ability, kinds) & ~_row(state.unit_ability_used, seat)
    activate = present & ability & (per_kind(cards.ability_cost, kinds) <= wealth)
    discard = present & per_kind(cards.is_soldier, kinds)
    return play, play & ~pulls, activate, discard


def _attack_moves(cards: CardArrays, config: GeneralsConfig, state, seat, opponents, totals):
    """``(move, attack)`` (``bool[U]``, ``bool[U, O, 2]``): ``rules.battle.attack_moves``: moves
    of units in the Battlefield or allowed into it; once per turn, with a General in play, an
    attack of each Battlefield unit on each opponent in the game (offset ``o``), on its
    Battlefield, and on its Warcamp too for a raider (or any unit under ``warcamp_attacks="any"``)."""
    n = state.alive.shape[0]
    kinds = _row(state.unit_kind.astype(_I32), seat)
    present = kinds >= 0
    in_field = present & (_row(state.unit_zone, seat) == BF)
    move = in_field | _row(bf_entry_flags(cards, state, totals), seat)
    may_attack = ~state.attacked & _row(generals_in_play(cards, state), seat).any()
    offsets = jnp.arange(1, config.offsets + 1)
    targets = (offsets < n) & _row(state.alive, jnp.mod(seat + offsets, n)) if n > 1 else offsets < 0
    all_kinds = state.unit_kind.astype(_I32)
    raider = _row(has_keyword(cards, totals, all_kinds, "raider"), seat)
    if config.warcamp_attacks == "any":
        raider = jnp.ones_like(raider)
    by_zone = jnp.stack([in_field, in_field & raider], axis=-1)  # [U, 2]
    attack = may_attack & by_zone[:, None, :] & targets[None, :, None]
    return move, attack


def _tactic_plays(cards: CardArrays, state, seat, wealth) -> jax.Array:
    """``bool[K]``: ``rules.tactics.tactic_plays``: battle tactics in hand, not banned, within
    the money, of the acting side (or ``any``), and with their unit in the battle (the enemy's
    for ``remove_enemy``)."""
    attacking = seat == state.battle_attacker.astype(_I32)
    blocker_in = (state.battle_blocker >= 0) & ~state.battle_b_out
    attacker_in = ~state.battle_a_out
    own_in = jnp.where(attacking, attacker_in, blocker_in)
    enemy_in = jnp.where(attacking, blocker_in, attacker_in)
    side = jnp.asarray(cards.side_code)
    side_ok = (side == TWIN_SIDES.index("any")) | (
        side == jnp.where(attacking, TWIN_SIDES.index("attacker"), TWIN_SIDES.index("defender"))
    )
    removes = jnp.asarray(cards.effect_code) == TWIN_TACTIC_EFFECTS.index("remove_enemy")
    hand = _row(state.hand, seat) > 0
    base = jnp.asarray(cards.is_battle_tactic) & hand & ~state.banned & (jnp.asarray(cards.cost) <= wealth)
    return base & side_ok & jnp.where(removes, enemy_in, own_in)


def legal_mask(cards: CardArrays, config: GeneralsConfig, state) -> jax.Array:
    """``bool[A]``: the legal actions of the seat to act (all False once over); ``rules.phases.
    legal_mask``. Each phase's blocks are computed and the phase picks them (``phase == p``)."""
    n, k, u, o = config.num_players, config.pool.size, UNIT_SLOTS, config.offsets
    phase = state.phase.astype(_I32)
    turn = state.turn_player.astype(_I32)
    seat = jnp.maximum(acting_seat(state), 0)
    totals = static_totals(cards, state)
    wealth = _row(money(cards, state), seat)
    opponents = state.alive & (jnp.arange(n) != seat)
    at = {p: phase == p for p in (DECLARE, DRAW, KINGDOM, ARMY, ATTACK, BLOCK, TACTIC)}
    at.update({p: phase == p for p in (TARGET_PLAYER, TARGET_KIND, DISCARD_HAND, REPLACE_GENERAL)})

    singles = jnp.stack(
        [
            at[DECLARE],  # PLAY_TURN
            at[DECLARE] & ~_row(state.passed_last, turn),  # PASS
            at[DRAW] & (_row(state.playing_size, turn) > 0),  # DRAW_PLAYING
            at[DRAW] & (_row(state.supply_size, turn) > 0),  # DRAW_SUPPLY
            at[KINGDOM] | at[ARMY] | at[ATTACK],  # END_PHASE
            at[BLOCK],  # NO_BLOCK
            at[TACTIC],  # NO_TACTIC
        ]
    )
    army_play, army_bf, activate, soldiers = _army_moves(cards, config, state, seat, wealth, totals)
    play = (
        (at[KINGDOM] & _kingdom_plays(cards, state, seat, wealth, opponents))
        | (at[ARMY] & army_play)
        | (at[TACTIC] & _tactic_plays(cards, state, seat, wealth))
    )
    move, attack = _attack_moves(cards, config, state, seat, opponents, totals)
    generals = _row(generals_in_play(cards, state), seat)
    discard_unit = (at[ARMY] & soldiers) | (at[REPLACE_GENERAL] & generals)
    defender_units = _row(state.unit_kind, seat) >= 0
    block = at[BLOCK] & defender_units & (_row(state.unit_zone, seat) == state.battle_zone)
    offsets = jnp.arange(1, o + 1)
    targets = jnp.mod(turn + offsets, n)
    with_kingdom = state.kingdom.astype(_I32).sum(axis=1) > 0
    target_player = at[TARGET_PLAYER] & (offsets < n) & _row(opponents & with_kingdom, targets)
    target_kind = at[TARGET_KIND] & (_row(state.kingdom, state.target_player.astype(_I32)) > 0)
    mask = jnp.concatenate(
        [
            singles,
            play,
            at[ARMY] & army_bf,
            at[ATTACK] & move,
            discard_unit,
            at[ARMY] & activate,
            (at[ATTACK] & attack).reshape(-1),
            block,
            at[DISCARD_HAND] & (_row(state.hand, turn) > 0),
            target_player,
            target_kind,
        ]
    )
    assert mask.shape == (layout_for(k, o).size,), (mask.shape, u)
    return mask & (phase != OVER)


# --------------------------------------------------------------------------- payment (ruling 24)


def payment_plan(cards: CardArrays) -> dict[str, Any]:
    """The static shape of the payment programme: the resource kinds with a value (a card worth
    0 never pays: it adds a card and no value), sorted by ``pay_order`` (ascending ref);
    ``span``, the totals it tracks, and per kind the most copies worth trying.

    **The bound.** A cost is at most ``max_cost`` (the largest printed or ability cost of the
    pool), so the need after the budget ``N <= max_cost``. In the chosen set no card can be
    left out while still paying: leaving out a card of value ``v > 0`` would lower the
    overpayment (or, at overpayment 0, is impossible) -- so the total is below ``N + v_min``,
    hence below ``max_cost + v_max``: totals ``0 .. span - 1`` with ``span = max_cost + v_max``
    suffice, and a kind of value ``v`` gives at most ``ceil(span / v)`` copies."""
    value = np.asarray(cards.value).astype(np.int64)
    kinds = np.flatnonzero(np.asarray(cards.is_resource) & (value > 0))
    kinds = kinds[np.argsort(np.asarray(cards.pay_order)[kinds], kind="stable")]
    max_cost = int(max(np.asarray(cards.cost).max(initial=0), np.asarray(cards.ability_cost).max(initial=0)))
    v_max = int(value[kinds].max(initial=1))
    span = max_cost + v_max
    copies = np.array([-(-span // int(value[kind])) for kind in kinds], dtype=np.int64)
    return {"kinds": kinds, "values": value[kinds], "copies": copies, "span": span, "max_cost": max_cost}


def payment_choice(cards: CardArrays, ready: jax.Array, need: jax.Array) -> jax.Array:
    """``int32[K]``: the ready cards (per kind) a payment spends after the budget, ``need`` being
    the cost less the budget (nothing when ``need <= 0``); ``rules.derived.payment_choice``:
    least overpayment, then fewest cards, then the lowest refs compared as sorted lists.

    With equal card counts, the sorted ref lists compare as the per-kind count vectors in ref
    order, the one with **more** copies of the lowest kind where they differ being smaller. So
    the key is ``(total - need, cards, -count vector in ref order)`` and a dynamic programme over
    the resource kinds in ref order finds it: ``best[i][t]`` is the fewest cards of kinds
    ``i..`` totalling exactly ``t``, ``pick[i][t]`` the copies of kind ``i`` it takes (ties
    going to more copies: the lexicographic rule). The smallest reachable total ``>= need``
    fixes the overpayment; walking ``pick`` from the first kind rebuilds the set. Shapes come
    from ``payment_plan`` (``cards`` are numpy constants). ``ready`` is one seat's
    ``supply_ready`` row; ``need`` at most the pool's largest cost (a legal payment)."""
    plan = payment_plan(cards)
    kinds, values, copies, span = plan["kinds"], plan["values"], plan["copies"], int(plan["span"])
    num_kinds = np.asarray(cards.value).shape[0]
    need = jnp.asarray(need, dtype=_I32)
    ready = jnp.asarray(ready).astype(_I32)
    infinity = jnp.int32(1 << 20)
    totals = jnp.arange(span, dtype=_I32)
    best = jnp.where(totals == 0, 0, infinity)  # no kinds: only the empty total
    picks = []
    for index in range(len(kinds) - 1, -1, -1):
        value, most = int(values[index]), int(copies[index])
        have = ready[int(kinds[index])]
        tries = jnp.arange(most, -1, -1, dtype=_I32)  # more copies first: argmin keeps the first
        rest = totals[None, :] - tries[:, None] * value
        ok = (rest >= 0) & (tries[:, None] <= have)
        cost = jnp.where(ok, tries[:, None] + best[jnp.clip(rest, 0, span - 1)], infinity)
        choice = jnp.argmin(cost, axis=0)
        best = jnp.minimum(cost.min(axis=0), infinity)
        picks.append(tries[choice])
    picks = picks[::-1]  # picks[i][t]: copies of kind i for a total t
    reachable = (best < infinity) & (totals >= need)
    total = jnp.where(reachable.any(), jnp.argmax(reachable), 0).astype(_I32)
    spent = jnp.zeros(num_kinds, _I32)
    for index, kind in enumerate(kinds):
        count = picks[index][total]
        spent = spent.at[int(kind)].set(count)
        total = total - count * int(values[index])
    return jnp.where(need > 0, spent, 0)


# --------------------------------------------------------------------------- the end of a turn


@functools.cache
def _no_battle(config: GeneralsConfig) -> dict[str, np.ndarray]:
    """The ``battle_*`` fields of the twin without a battle (``jax_state``'s fresh
    ``Battle(-1, -1, -1, BF)``), the values ``state.battle = None`` writes; built once per
    config (the step's trace asks for them at every end of a turn, phase and battle)."""
    with jax.ensure_compile_time_eval():  # the blank state's pgx fields are built with jnp
        blank = _host_blank(config)
    names = [field.name for field in dataclasses.fields(blank)]
    return {name: getattr(blank, name) for name in names if name.startswith("battle_")}


def end_turn(config: GeneralsConfig, state):
    """The state after ``rules.turn.end_turn`` (rulings 26, 54): nothing once over; else every
    budget cleared and every ability reset, the turn player's fresh Supply Line ready, no
    battle; then, with two seats or more in the game, the next seat in the game clockwise
    begins its turn (``begin_turn``: its ``turns_taken`` + 1, ``attacked`` cleared, DECLARE),
    a new round counted when play passes the first player's place, unless the round limit is
    reached (``scoring.truncate``: TRUNCATED, OVER)."""
    n = config.num_players
    over = state.phase == OVER
    seat = state.turn_player.astype(_I32)
    mine = jnp.arange(n) == seat
    ready = jnp.where(mine[:, None], state.supply_ready + state.supply_fresh, state.supply_ready)
    fresh = jnp.where(mine[:, None], jnp.zeros_like(state.supply_fresh), state.supply_fresh)
    cleared = {
        "budget": jnp.zeros_like(state.budget),
        "unit_ability_used": jnp.zeros_like(state.unit_ability_used),
        "supply_ready": ready.astype(state.supply_ready.dtype),
        "supply_fresh": fresh,
        **{name: jnp.asarray(value) for name, value in _no_battle(config).items()},
    }
    offsets = jnp.arange(1, n + 1)
    candidates = jnp.mod(seat + offsets, n)
    in_game = state.alive[candidates]
    nxt = candidates[jnp.argmax(in_game)].astype(_I32)
    goes_on = state.alive.sum() >= 2
    first = state.first.astype(_I32)
    new_round = jnp.mod(nxt - first, n) <= jnp.mod(seat - first, n)
    truncated = goes_on & new_round & (state.round >= state.length_limit)
    begins = goes_on & ~truncated
    turns = state.turns_taken + (begins & (jnp.arange(n) == nxt)).astype(state.turns_taken.dtype)
    changed = {
        **cleared,
        "round": state.round + (begins & new_round).astype(state.round.dtype),
        "turn_player": jnp.where(begins, nxt, seat).astype(state.turn_player.dtype),
        "turns_taken": turns,
        "attacked": jnp.where(begins, False, state.attacked),
        "phase": jnp.where(begins, DECLARE, jnp.where(truncated, OVER, state.phase)).astype(state.phase.dtype),
        "outcome": jnp.where(truncated, TRUNCATED, state.outcome).astype(state.outcome.dtype),
    }
    return state.replace(
        **{
            name: jnp.where(over, getattr(state, name), value).astype(getattr(state, name).dtype)
            for name, value in changed.items()
        }
    )


# --------------------------------------------------------------------------- scoring


def _choose(active, new, old):
    """``new`` where ``active`` (a traced bool), else ``old``: every leaf of two states (or of
    any two pytrees of the same shapes)."""
    return jax.tree_util.tree_map(lambda a, b: jnp.where(active, a, b).astype(b.dtype), new, old)


def _where_needed(needed, compute, operand):
    """``compute(operand)`` where ``needed`` (a traced bool), else ``operand``, as a
    ``lax.while_loop`` of at most one turn: under ``vmap`` a loop turns while any game's test
    holds, so the work is done only when a game of the batch needs it, where a select would do
    it for every game at every step. The step's rare or costly parts (a phase no game is in,
    the plays that only a decision makes, the battle) sit behind it."""

    def once(carry):
        return compute(carry[0]), jnp.zeros((), bool)

    return jax.lax.while_loop(lambda carry: carry[1], once, (operand, jnp.asarray(needed)))[0]


def _reward_table(config: GeneralsConfig) -> jax.Array:
    """``float32[n + 1, n + 1]``: ``jax_state.final_reward_table`` (the rules' double per place
    and number of seats sharing it) rounded to the twin's float32."""
    return jnp.asarray(final_reward_table(config).astype(np.float32))


def _open_places(config: GeneralsConfig, state) -> jax.Array:
    """``bool[n]``: entry ``p`` says place ``p + 1`` is not taken yet; ``rules.scoring.
    _open_places`` lists them."""
    places = jnp.arange(1, config.num_players + 1)
    return ~(state.place.astype(_I32)[:, None] == places[None, :]).any(axis=0)


def _first_open(config: GeneralsConfig, state) -> jax.Array:
    """The best open place (``_open_places(state)[0]``); 0 when none is open."""
    open_ = _open_places(config, state)
    return jnp.where(open_.any(), jnp.argmax(open_) + 1, 0).astype(_I32)


def _last_open(config: GeneralsConfig, state) -> jax.Array:
    """The worst open place (``_open_places(state)[-1]``); 0 when none is open."""
    n = config.num_players
    open_ = _open_places(config, state)
    return jnp.where(open_.any(), n - jnp.argmax(open_[::-1]), 0).astype(_I32)


def _leave(cards: CardArrays, config: GeneralsConfig, state, seat, place, active):
    """``rules.scoring._leave`` when ``active``: the seat is out with ``place`` (appended to
    ``finish_order``), its cards in play (units, Kingdom, Supply Line, Strategy, Capitol) go to
    its ``removed`` counts, its ``final_reward`` is its place's (``final_reward_table``)."""
    n, k = config.num_players, config.pool.size
    seat = jnp.asarray(seat, _I32)
    mine = jnp.arange(n) == seat
    kinds = jnp.arange(k)
    units = state.unit_kind.astype(_I32)  # [n, U]
    from_units = (units[:, :, None] == kinds[None, None, :]).sum(axis=1)
    singles = (state.strategy.astype(_I32)[:, None] == kinds) + (state.capitol.astype(_I32)[:, None] == kinds)
    in_play = from_units + state.kingdom + state.supply_ready + state.supply_fresh + singles
    removed = state.removed + jnp.where(mine[:, None], in_play, 0)
    zero_rows = {
        name: jnp.where(mine[:, None], jnp.zeros_like(getattr(state, name)), getattr(state, name))
        for name in ("kingdom", "supply_ready", "supply_fresh", "unit_zone", "unit_entered_turn", "unit_ability_used")
    }
    count = state.finish_count.astype(_I32)
    left = state.replace(
        alive=jnp.where(mine, False, state.alive),
        place=jnp.where(mine, place, state.place).astype(state.place.dtype),
        finish_order=jnp.where(jnp.arange(n) == count, seat, state.finish_order).astype(state.finish_order.dtype),
        finish_count=(count + 1).astype(state.finish_count.dtype),
        unit_kind=jnp.where(mine[:, None], -1, state.unit_kind).astype(state.unit_kind.dtype),
        strategy=jnp.where(mine, -1, state.strategy).astype(state.strategy.dtype),
        capitol=jnp.where(mine, -1, state.capitol).astype(state.capitol.dtype),
        removed=removed.astype(state.removed.dtype),
        final_reward=jnp.where(mine, _reward_table(config)[place, 1], state.final_reward),
        **zero_rows,
    )
    return _choose(active, left, state)


def _end_won(state, active):
    """``outcome = WON`` (the code naming the winner and the victory, ``jax_state.won_code``),
    ``phase = OVER`` when ``active``; the winner and the victory are set already."""
    code = won_code(state.winner.astype(_I32), state.victory.astype(_I32))
    return state.replace(
        outcome=jnp.where(active, code, state.outcome).astype(state.outcome.dtype),
        phase=jnp.where(active, OVER, state.phase).astype(state.phase.dtype),
    )


def _last_player_standing(cards, config, state, seat, active):
    """``rules.scoring._last_player_standing`` when ``active``: the seat takes the best open
    place; a Warlord victory unless someone already won; the game is won and over."""
    first_win = state.winner < 0
    state = _leave(cards, config, state, seat, _first_open(config, state), active)
    crowned = active & first_win
    state = state.replace(
        winner=jnp.where(crowned, seat, state.winner).astype(state.winner.dtype),
        victory=jnp.where(crowned, VICTORY_NAMES.index("warlord"), state.victory).astype(state.victory.dtype),
    )
    return _end_won(state, active)


def eliminate(cards: CardArrays, config: GeneralsConfig, state, seat, active=True):
    """The state after ``rules.scoring.eliminate`` when ``active`` (ruling 13): the seat leaves
    with the worst open place; if one seat is left in, ``_last_player_standing``."""
    active = jnp.asarray(active)
    state = _leave(cards, config, state, seat, _last_open(config, state), active)
    alone = active & (state.alive.sum() == 1)
    return _last_player_standing(cards, config, state, jnp.argmax(state.alive).astype(_I32), alone)


def _chancellor_victory(cards, config: GeneralsConfig, state, seat, active):
    """``rules.scoring._chancellor_victory`` when ``active`` (rulings 13, 15): the first to win
    is the winner (chancellor); the seat leaves with the best open place; unless the others
    play for second (two or more still in), the game ends: a last seat in leaves with the next
    place, several share the places left (``placement``: the mean reward of that run of places,
    ``final_reward_table[first open, sharers]``; ``win_loss``: the loss reward), in the game
    but placed."""
    first_win = active & (state.winner < 0)
    state = state.replace(
        winner=jnp.where(first_win, seat, state.winner).astype(state.winner.dtype),
        victory=jnp.where(first_win, VICTORY_NAMES.index("chancellor"), state.victory).astype(state.victory.dtype),
    )
    state = _leave(cards, config, state, seat, _first_open(config, state), active)
    remaining = state.alive.sum()
    ends = active & ~(config.play_for_second & (remaining >= 2))
    place = _first_open(config, state)
    state = _leave(cards, config, state, jnp.argmax(state.alive).astype(_I32), place, ends & (remaining == 1))
    share = ends & (remaining >= 2)
    sharing = share & state.alive
    state = state.replace(
        place=jnp.where(sharing, place, state.place).astype(state.place.dtype),
        final_reward=jnp.where(sharing, _reward_table(config)[place, remaining], state.final_reward),
    )
    return _end_won(state, ends)


def change_ch(cards: CardArrays, config: GeneralsConfig, state, seat, delta, earned):
    """``(state, earned)`` after ``rules.scoring.change_ch`` (rulings 9-12): nothing when
    ``delta`` is 0, the seat is out or the game is over; else CH moves (capped at the target in
    a Slaughterhouse), ``earned[seat]`` (``float32[n]``) gains ``shaping`` per point moved, and a
    Chancellor victory (CH at the target, no Slaughterhouse) or an elimination (CH at the
    elimination line) follows at once. ``earned`` is float32 ``shaping`` times the points, which
    may be an ulp off the float32 of Python's double product."""
    n = config.num_players
    seat = jnp.asarray(seat, _I32)
    delta = jnp.asarray(delta, _I32)
    mine = jnp.arange(n) == seat
    before = _row(state.ch.astype(_I32), seat)
    active = (delta != 0) & _row(state.alive, seat) & (state.phase != OVER)
    target = state.ch_target.astype(_I32)
    after = before + delta
    after = jnp.where(state.slaughterhouse, jnp.minimum(after, target), after)
    after = jnp.where(active, after, before)
    earned = earned + jnp.where(mine, np.float32(config.shaping) * (after - before).astype(jnp.float32), 0.0)
    state = state.replace(ch=jnp.where(mine, after, state.ch).astype(state.ch.dtype))
    wins = active & ~state.slaughterhouse & (after >= target)
    state = _chancellor_victory(cards, config, state, seat, wins)
    state = eliminate(cards, config, state, seat, active & ~wins & (after <= state.elimination_line.astype(_I32)))
    return state, earned


# --------------------------------------------------------------------------- DECLARE, DRAW, the Harvest, Resolve


def _zeros(config: GeneralsConfig) -> jax.Array:
    """``rules.scoring.no_rewards``: float32 0 per seat."""
    return jnp.zeros(config.num_players, jnp.float32)


def _top_counts(pile: jax.Array, size: jax.Array, taken: jax.Array, num_kinds: int) -> jax.Array:
    """``int32[K]``: the kinds of the top ``taken`` cards of one pile (``pile[size - taken:size]``,
    bottom first)."""
    positions = jnp.arange(pile.shape[0])
    top = (positions >= size - taken) & (positions < size)
    return ((pile.astype(_I32)[:, None] == jnp.arange(num_kinds)[None, :]) & top[:, None]).sum(axis=0)


def _harvest(cards: CardArrays, config: GeneralsConfig, state, seat, earned, active):
    """``rules.turn._harvest`` when ``active`` (rulings 23-26, 7): the seat's resources in hand
    but banned ones go to the Supply Line (ready if continuous, else fresh), one copy of an
    ultra rare, which bans its kind; the draw counts reset; ``banned_at_harvest`` takes the bans
    (they only grow, so Python's length test is an equality test); the budget gains the
    ``harvest`` total; KINGDOM; then ``change_ch`` by the ``ch_per_turn`` total."""
    n = config.num_players
    mine = jnp.arange(n) == seat
    hand = _row(state.hand, seat).astype(_I32)
    moves = jnp.asarray(cards.is_resource) & ~state.banned & (hand > 0)
    ultra = moves & jnp.asarray(cards.ultra_rare)
    count = jnp.where(moves, jnp.where(ultra, 1, hand), 0)
    continuous = jnp.asarray(cards.continuous)
    banned = state.banned | ultra
    totals = static_totals(cards, state)
    row = {
        "hand": -count,
        "supply_ready": jnp.where(continuous, count, 0),
        "supply_fresh": jnp.where(continuous, 0, count),
    }
    changed = {
        name: (getattr(state, name) + jnp.where(mine[:, None], add[None, :], 0)).astype(getattr(state, name).dtype)
        for name, add in row.items()
    }
    for name in ("drawn_playing", "drawn_supply", "resources_discarded"):
        changed[name] = jnp.where(mine, 0, getattr(state, name)).astype(getattr(state, name).dtype)
    harvest = static_total(cards, state, "harvest", totals)
    harvested = state.replace(
        **changed,
        banned=banned,
        banned_at_harvest=jnp.where(mine[:, None], banned[None, :], state.banned_at_harvest),
        budget=(state.budget + jnp.where(mine, harvest, 0)).astype(state.budget.dtype),
        phase=jnp.asarray(KINGDOM, state.phase.dtype),
    )
    state = _choose(active, harvested, state)
    delta = jnp.where(active, _row(static_total(cards, state, "ch_per_turn", totals), seat), 0)
    return change_ch(cards, config, state, seat, delta, earned)


#: each pile a seat draws from: (its cards, its size, its draw count), as ``jax_state`` names them
_PILES = {
    "playing": ("playing_deck", "playing_size", "drawn_playing"),
    "supply": ("supply_pile", "supply_size", "drawn_supply"),
}


def _draw_from(state, seat, pile: str, taken, k: int):
    """``seat`` draws the top ``taken`` cards of one pile (``"playing"`` or ``"supply"``, at
    most its size) into its hand (``rules.effects.draw``), the pile's draw count raised."""
    cards_field, size_field, drawn_field = _PILES[pile]
    mine = jnp.arange(state.alive.shape[0]) == seat
    size = _row(getattr(state, size_field), seat).astype(_I32)
    drawn = _top_counts(_row(getattr(state, cards_field), seat), size, taken, k)
    return state.replace(
        hand=(state.hand + jnp.where(mine[:, None], drawn[None, :], 0)).astype(state.hand.dtype),
        **{
            name: (getattr(state, name) + jnp.where(mine, sign * taken, 0)).astype(getattr(state, name).dtype)
            for name, sign in ((size_field, -1), (drawn_field, 1))
        },
    )


def _take_tops(state, seat, from_playing, from_supply, k: int):
    """``seat`` draws the top ``from_playing`` cards of its Playing Deck and ``from_supply`` of
    its Supply Pile into its hand, each pile's draw count raised."""
    return _draw_from(_draw_from(state, seat, "playing", from_playing, k), seat, "supply", from_supply, k)


def _continue_draw(cards: CardArrays, config: GeneralsConfig, state, earned, active):
    """``rules.turn._continue_draw`` when ``active`` (rulings 21-22): under ``draw_mode="both"``
    every draw left takes the top card of each pile at once while a pile holds a card; draws
    left with both piles empty eliminate the seat under ``deckout_loses`` (no Harvest), else are
    dropped; no draw left: the Harvest. Under ``"choose"`` draws left with a card somewhere wait
    for a decision."""
    seat = state.turn_player.astype(_I32)
    k = config.pool.size
    if config.draw_mode == "both":
        left = state.draws_left.astype(_I32)
        playing, supply = _row(state.playing_size, seat).astype(_I32), _row(state.supply_size, seat).astype(_I32)
        rounds = jnp.where(active, jnp.clip(jnp.minimum(left, jnp.maximum(playing, supply)), 0), 0)
        state = _take_tops(state, seat, jnp.minimum(rounds, playing), jnp.minimum(rounds, supply), k)
        state = state.replace(draws_left=(left - rounds).astype(state.draws_left.dtype))
    need = state.draws_left > 0
    empty = (_row(state.playing_size, seat) == 0) & (_row(state.supply_size, seat) == 0)
    out = active & need & empty & config.deckout_loses
    dropped = active & need & empty & (not config.deckout_loses)
    state = state.replace(draws_left=jnp.where(dropped, 0, state.draws_left).astype(state.draws_left.dtype))
    state = eliminate(cards, config, state, seat, out)
    return _harvest(cards, config, state, seat, earned, active & (~need | dropped))


def _declare_until_draw(cards: CardArrays, config: GeneralsConfig, state, action):
    """``apply_declare`` up to ``_continue_draw``: ``(state, draws)``, and whether the draw
    goes on (``do_step`` runs ``_continue_draw`` once for DECLARE and DRAW)."""
    seat = state.turn_player.astype(_I32)
    mine = jnp.arange(config.num_players) == seat
    passes = jnp.asarray(action) == PASS
    state = state.replace(passed_last=jnp.where(mine, passes, state.passed_last))
    draws = 1 + _row(static_total(cards, state, "draw_extra"), seat)
    playing = state.replace(draws_left=draws.astype(state.draws_left.dtype), phase=jnp.asarray(DRAW, state.phase.dtype))
    return _choose(passes, end_turn(config, state), playing), ~passes


def _then_draw(cards: CardArrays, config: GeneralsConfig, state, draws):
    """``(state, earned)``: ``_continue_draw`` where ``draws``, else ``state`` as it is."""
    drawn, earned = _continue_draw(cards, config, state, _zeros(config), draws)
    return _choose(draws, drawn, state), jnp.where(draws, earned, 0.0).astype(earned.dtype)


def apply_declare(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.turn.apply_declare`` (ruling 19): ``passed_last`` is
    whether the seat passes; a pass ends the turn (``end_turn``); a play sets the draws (1 plus
    the ``draw_extra`` total), DRAW, and ``_continue_draw``."""
    return _then_draw(cards, config, *_declare_until_draw(cards, config, state, action))


def _draw_until_more(cards: CardArrays, config: GeneralsConfig, state, action):
    """``apply_draw`` up to ``_continue_draw``: ``(state, True)``."""
    seat = state.turn_player.astype(_I32)
    k = config.pool.size
    from_playing = jnp.asarray(action) == DRAW_PLAYING
    playing, supply = _row(state.playing_size, seat).astype(_I32), _row(state.supply_size, seat).astype(_I32)
    take_p = jnp.where(from_playing, jnp.minimum(playing, 1), 0)
    take_s = jnp.where(from_playing, 0, jnp.minimum(supply, 1))
    state = _take_tops(state, seat, take_p, take_s, k)
    return state.replace(draws_left=(state.draws_left - 1).astype(state.draws_left.dtype)), jnp.asarray(True)


def apply_draw(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.turn.apply_draw`` (rulings 21-22): the top card of the
    chosen pile (``pile[size - 1]``; ``rules.effects.draw``) to the hand, its draw count + 1, a
    draw used, then ``_continue_draw``."""
    return _then_draw(cards, config, *_draw_until_more(cards, config, state, action))


def resolve_phase(cards: CardArrays, config: GeneralsConfig, state):
    """The state after ``rules.turn.resolve_phase`` (ruling 52): no battle; DISCARD_HAND while
    the turn player is in with more cards in hand than its limit, else ``end_turn``."""
    state = state.replace(**{name: jnp.asarray(value) for name, value in _no_battle(config).items()})
    seat = state.turn_player.astype(_I32)
    over_limit = _row(state.hand.astype(_I32).sum(axis=1) > hand_limit(cards, state), seat)
    discards = _row(state.alive, seat) & over_limit
    waiting = state.replace(phase=jnp.asarray(DISCARD_HAND, state.phase.dtype))
    return _choose(discards, waiting, end_turn(config, state))


def apply_discard_hand(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.turn.apply_discard_hand`` (ruling 52): one card of the
    kind from hand to the discard pile (a resource not banned at the Harvest counts in
    ``resources_discarded``); the turn ends once the hand is within the limit. Earns nothing."""
    seat = state.turn_player.astype(_I32)
    n, k = config.num_players, config.pool.size
    mine = jnp.arange(n) == seat
    kind = jnp.asarray(action, _I32) - layout_for(k, config.offsets).starts[Kind.DISCARD_HAND]
    one = (jnp.arange(k) == kind)[None, :] & mine[:, None]
    counted = jnp.asarray(cards.is_resource)[kind] & ~_row(state.banned_at_harvest, seat)[kind]
    state = state.replace(
        hand=(state.hand - one).astype(state.hand.dtype),
        discard=(state.discard + one).astype(state.discard.dtype),
        resources_discarded=(state.resources_discarded + (mine & counted)).astype(state.resources_discarded.dtype),
    )
    within = _row(state.hand.astype(_I32).sum(axis=1) <= hand_limit(cards, state), seat)
    return _choose(within, end_turn(config, state), state), _zeros(config)


# --------------------------------------------------------------------------- the Kingdom phase


def pay(cards: CardArrays, state, seat, amount):
    """The state after ``rules.effects.pay``: the ready cards ``payment_choice`` picks for
    ``amount`` less the budget go to the discard pile, their value to the budget; the budget
    then loses ``amount``."""
    n = state.alive.shape[0]
    mine = jnp.arange(n) == seat
    amount = jnp.asarray(amount, _I32)
    need = amount - _row(state.budget.astype(_I32), seat)
    spent = payment_choice(cards, _row(state.supply_ready, seat), need)
    gained = (spent * jnp.asarray(cards.value).astype(_I32)).sum()
    return state.replace(
        supply_ready=(state.supply_ready - jnp.where(mine[:, None], spent[None, :], 0)).astype(
            state.supply_ready.dtype
        ),
        discard=(state.discard + jnp.where(mine[:, None], spent[None, :], 0)).astype(state.discard.dtype),
        budget=(state.budget + jnp.where(mine, gained - amount, 0)).astype(state.budget.dtype),
    )


def play_kingdom_card(cards: CardArrays, config: GeneralsConfig, state, seat, kind, earned, active=True):
    """``(state, earned)`` after ``rules.kingdom.play_kingdom_card`` when ``active``: pay the
    effective cost (``pay``), the card leaves the hand (an ultra rare bans its kind); a Kingdom
    card joins the Kingdom, a Strategy or Capitol takes its slot (the old one discarded), each
    then ``change_ch`` by ``on_play_ch``; a main tactic goes to the discard pile and resolves:
    ``draw`` (its amount from the Playing Deck, while it holds cards), ``gain_ch``
    (``change_ch``), ``destroy_kingdom`` (TARGET_PLAYER)."""
    n, k = config.num_players, config.pool.size
    active = jnp.asarray(active)
    seat = jnp.asarray(seat, _I32)
    kind = jnp.asarray(kind, _I32)
    mine = jnp.arange(n) == seat
    one = jnp.arange(k) == kind
    cost = _row(effective_costs(cards, state), seat)[kind]
    paid = pay(cards, state, seat, cost)
    is_kingdom, is_strategy = jnp.asarray(cards.is_kingdom)[kind], jnp.asarray(cards.is_strategy)[kind]
    is_capitol = jnp.asarray(cards.is_capitol)[kind]
    tactic = ~(is_kingdom | is_strategy | is_capitol)
    effect = jnp.asarray(cards.effect_code)[kind]
    amount = jnp.asarray(cards.amount).astype(_I32)[kind]
    old_strategy, old_capitol = _row(paid.strategy.astype(_I32), seat), _row(paid.capitol.astype(_I32), seat)
    to_discard = (
        (tactic & one)
        + (is_strategy & (old_strategy >= 0) & (jnp.arange(k) == old_strategy))
        + (is_capitol & (old_capitol >= 0) & (jnp.arange(k) == old_capitol))
    ).astype(_I32)
    draws = tactic & (effect == TWIN_TACTIC_EFFECTS.index("draw"))
    paid = _draw_playing(paid, seat, jnp.where(draws, amount, 0), k)
    hand = paid.hand - jnp.where(mine[:, None], one[None, :], 0)
    destroys = tactic & (effect == TWIN_TACTIC_EFFECTS.index("destroy_kingdom"))
    played = paid.replace(
        hand=hand.astype(paid.hand.dtype),
        banned=paid.banned | (one & jnp.asarray(cards.ultra_rare)),
        kingdom=(paid.kingdom + jnp.where(mine[:, None] & is_kingdom, one[None, :], 0)).astype(paid.kingdom.dtype),
        strategy=jnp.where(mine & is_strategy, kind, paid.strategy).astype(paid.strategy.dtype),
        capitol=jnp.where(mine & is_capitol, kind, paid.capitol).astype(paid.capitol.dtype),
        discard=(paid.discard + jnp.where(mine[:, None], to_discard[None, :], 0)).astype(paid.discard.dtype),
        phase=jnp.where(destroys, TARGET_PLAYER, paid.phase).astype(paid.phase.dtype),
    )
    state = _choose(active, played, state)
    gains = tactic & (effect == TWIN_TACTIC_EFFECTS.index("gain_ch"))
    delta = jnp.where(tactic, jnp.where(gains, amount, 0), jnp.asarray(cards.on_play_ch).astype(_I32)[kind])
    return change_ch(cards, config, state, seat, jnp.where(active, delta, 0), earned)


def apply_kingdom(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.kingdom.apply_kingdom`` (ruling 33): END_PHASE moves
    to ARMY, a PLAY is ``play_kingdom_card`` of its kind."""
    action = jnp.asarray(action, _I32)
    ends = action == END_PHASE
    kind = jnp.clip(action - layout_for(config.pool.size, config.offsets).starts[Kind.PLAY], 0, config.pool.size - 1)

    def play(carry):
        return play_kingdom_card(cards, config, carry[0], state.turn_player.astype(_I32), kind, carry[1])

    played, earned = _where_needed(~ends, play, (state, _zeros(config)))
    ended = state.replace(phase=jnp.asarray(ARMY, state.phase.dtype))
    return _choose(ends, ended, played), earned


def apply_target_player(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.kingdom.apply_target_player``: the seat at the action's
    offset is the target; TARGET_KIND. Earns nothing."""
    offset = jnp.asarray(action, _I32) - layout_for(config.pool.size, config.offsets).starts[Kind.TARGET_PLAYER] + 1
    target = jnp.mod(state.turn_player.astype(_I32) + offset, config.num_players)
    state = state.replace(
        target_player=target.astype(state.target_player.dtype), phase=jnp.asarray(TARGET_KIND, state.phase.dtype)
    )
    return state, _zeros(config)


def apply_target_kind(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.kingdom.apply_target_kind``: one Kingdom card of the
    kind goes from the target's Kingdom to its discard pile; no target; KINGDOM. Earns
    nothing."""
    k = config.pool.size
    kind = jnp.asarray(action, _I32) - layout_for(k, config.offsets).starts[Kind.TARGET_KIND]
    target = jnp.arange(config.num_players) == state.target_player.astype(_I32)
    one = (target[:, None] & (jnp.arange(k) == kind)[None, :]).astype(_I32)
    state = state.replace(
        kingdom=(state.kingdom - one).astype(state.kingdom.dtype),
        discard=(state.discard + one).astype(state.discard.dtype),
        target_player=jnp.asarray(-1, state.target_player.dtype),
        phase=jnp.asarray(KINGDOM, state.phase.dtype),
    )
    return state, _zeros(config)


# --------------------------------------------------------------------------- the Army phase


def _in_block(config: GeneralsConfig, action, kind: Kind):
    """``(inside, index)``: whether ``action`` lies in the block of ``kind`` and its index in
    the block (clipped into range)."""
    span = layout_for(config.pool.size, config.offsets).block_range(kind)
    action = jnp.asarray(action, _I32)
    inside = (action >= span.start) & (action < span.stop)
    return inside, jnp.clip(action - span.start, 0, span.stop - span.start - 1)


def _draw_playing(state, seat, amount, k):
    """The state after ``amount`` ``rules.effects.draw`` from the seat's Playing Deck (each
    while it holds a card): the top cards to the hand, ``drawn_playing`` counts them."""
    playing = _row(state.playing_size, seat).astype(_I32)
    return _draw_from(state, seat, "playing", jnp.clip(jnp.minimum(jnp.asarray(amount, _I32), playing), 0), k)


def _discard_unit(state, seat, slot, k, active=True):
    """The state after ``rules.effects.discard_unit`` when ``active``: the unit of the slot to
    its owner's discard pile, the slot empty (the empty slot's columns as ``jax_state`` writes
    them)."""
    n, u = state.alive.shape[0], state.unit_kind.shape[1]
    at = (jnp.arange(n) == seat)[:, None] & (jnp.arange(u) == slot)[None, :] & jnp.asarray(active)
    kind = _row(state.unit_kind.astype(_I32), seat)[jnp.clip(slot, 0, u - 1)]
    one = (jnp.arange(k) == kind)[None, :] & at.any(axis=1)[:, None]
    return state.replace(
        discard=(state.discard + one).astype(state.discard.dtype),
        unit_kind=jnp.where(at, -1, state.unit_kind).astype(state.unit_kind.dtype),
        unit_zone=jnp.where(at, 0, state.unit_zone).astype(state.unit_zone.dtype),
        unit_entered_turn=jnp.where(at, 0, state.unit_entered_turn).astype(state.unit_entered_turn.dtype),
        unit_ability_used=jnp.where(at, False, state.unit_ability_used),
    )


def enter_play(cards: CardArrays, config: GeneralsConfig, state, seat, kind, to_bf, earned, active=True):
    """``(state, earned)`` after ``rules.army.enter_play`` when ``active`` (the card already
    out of the hand): the unit takes the seat's first free slot (its zone BF or WC, entered on
    the seat's ``turns_taken``), an ultra rare bans its kind, ``on_play_draw`` draws from the
    Playing Deck, then ``change_ch`` by ``on_play_ch``."""
    n, k, u = config.num_players, config.pool.size, UNIT_SLOTS
    active = jnp.asarray(active)
    seat, kind = jnp.asarray(seat, _I32), jnp.asarray(kind, _I32)
    slot = _row(free_slot(state), seat)
    at = (jnp.arange(n) == seat)[:, None] & (jnp.arange(u) == slot)[None, :]
    zone = jnp.where(to_bf, BF, WC)
    entered = state.replace(
        unit_kind=jnp.where(at, kind, state.unit_kind).astype(state.unit_kind.dtype),
        unit_zone=jnp.where(at, zone, state.unit_zone).astype(state.unit_zone.dtype),
        unit_entered_turn=jnp.where(at, _row(state.turns_taken, seat), state.unit_entered_turn).astype(
            state.unit_entered_turn.dtype
        ),
        unit_ability_used=jnp.where(at, False, state.unit_ability_used),
        banned=state.banned | ((jnp.arange(k) == kind) & jnp.asarray(cards.ultra_rare)),
    )
    entered = _draw_playing(entered, seat, jnp.asarray(cards.on_play_draw).astype(_I32)[kind], k)
    state = _choose(active, entered, state)
    delta = jnp.where(active, jnp.asarray(cards.on_play_ch).astype(_I32)[kind], 0)
    return change_ch(cards, config, state, seat, delta, earned)


def play_unit(cards: CardArrays, config: GeneralsConfig, state, seat, kind, to_bf, earned, active=True):
    """``(state, earned)`` after ``rules.army.play_unit`` when ``active``: pay the effective
    cost (a Soldier's less the discount); a General at the ``max_generals`` cap (ruling 36)
    discards the seat's first General when the cap is 1, else waits in the hand, paid, as
    ``pending_card``/``pending_to_bf`` in REPLACE_GENERAL; otherwise the card leaves the hand
    and ``enter_play``."""
    n, k = config.num_players, config.pool.size
    active = jnp.asarray(active)
    seat, kind = jnp.asarray(seat, _I32), jnp.asarray(kind, _I32)
    mine = jnp.arange(n) == seat
    paid = pay(cards, state, seat, _row(effective_costs(cards, state), seat)[kind])
    generals = _row(generals_in_play(cards, paid), seat)
    at_cap = jnp.asarray(cards.is_general)[kind] & (generals.sum() >= config.max_generals)
    waits = at_cap & (config.max_generals != 1)
    if config.max_generals == 1:
        paid = _discard_unit(paid, seat, jnp.argmax(generals).astype(_I32), k, at_cap)
    pending = paid.replace(
        pending_card=kind.astype(paid.pending_card.dtype),
        pending_to_bf=jnp.asarray(to_bf),
        phase=jnp.asarray(REPLACE_GENERAL, paid.phase.dtype),
    )
    out_of_hand = paid.replace(
        hand=(paid.hand - (mine[:, None] & (jnp.arange(k) == kind)[None, :])).astype(paid.hand.dtype)
    )
    entered, earned = enter_play(cards, config, out_of_hand, seat, kind, to_bf, earned, active & ~waits)
    return _choose(active, _choose(waits, pending, entered), state), earned


def activate(cards: CardArrays, config: GeneralsConfig, state, seat, slot, earned, active=True):
    """``(state, earned)`` after ``rules.army.activate`` when ``active`` (ruling 37): pay the
    ability's cost, the unit's ability used; ``draw`` takes its amount from the Playing Deck,
    ``gain_ch`` is ``change_ch`` by it."""
    n, k, u = config.num_players, config.pool.size, UNIT_SLOTS
    active = jnp.asarray(active)
    seat, slot = jnp.asarray(seat, _I32), jnp.asarray(slot, _I32)
    kind = jnp.maximum(_row(state.unit_kind.astype(_I32), seat)[slot], 0)
    cost = jnp.asarray(cards.ability_cost).astype(_I32)[kind]
    amount = jnp.asarray(cards.ability_amount).astype(_I32)[kind]
    draws = jnp.asarray(cards.ability_code)[kind] == TWIN_ABILITY_EFFECTS.index("draw")
    paid = pay(cards, state, seat, cost)
    at = (jnp.arange(n) == seat)[:, None] & (jnp.arange(u) == slot)[None, :]
    used = paid.replace(unit_ability_used=paid.unit_ability_used | at)
    used = _draw_playing(used, seat, jnp.where(draws, amount, 0), k)
    state = _choose(active, used, state)
    return change_ch(cards, config, state, seat, jnp.where(active & ~draws, amount, 0), earned)


def apply_army(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.army.apply_army`` (rulings 34-39): END_PHASE moves to
    ATTACK; PLAY / PLAY_TO_BF is ``play_unit``; ACTIVATE is ``activate``; DISCARD_UNIT discards
    the Soldier (``rules.effects.discard_unit``)."""
    k = config.pool.size
    seat = state.turn_player.astype(_I32)
    action = jnp.asarray(action, _I32)
    ends = action == END_PHASE
    to_play, kind = _in_block(config, action, Kind.PLAY)
    to_bf, kind_bf = _in_block(config, action, Kind.PLAY_TO_BF)
    activates, slot_a = _in_block(config, action, Kind.ACTIVATE)
    discards, slot_d = _in_block(config, action, Kind.DISCARD_UNIT)

    def move(carry):
        state, earned = carry
        played, earned = play_unit(
            cards, config, state, seat, jnp.where(to_bf, kind_bf, kind), to_bf, earned, to_play | to_bf
        )
        used, earned = activate(cards, config, state, seat, slot_a, earned, activates)
        discarded = _discard_unit(state, seat, slot_d, k, discards)
        return _choose(to_play | to_bf, played, _choose(activates, used, discarded)), earned

    moved, earned = _where_needed(~ends, move, (state, _zeros(config)))
    ended = state.replace(phase=jnp.asarray(ATTACK, state.phase.dtype))
    return _choose(ends, ended, moved), earned


def apply_replace_general(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.army.apply_replace_general`` (ruling 36): the chosen
    General discarded, ARMY, the pending card leaves the hand and ``enter_play`` (with the
    pending zone); no pending card (``pending_to_bf`` stays, as in Python)."""
    n, k = config.num_players, config.pool.size
    seat = state.turn_player.astype(_I32)
    _, slot = _in_block(config, action, Kind.DISCARD_UNIT)
    state = _discard_unit(state, seat, slot, k)
    kind = jnp.maximum(state.pending_card.astype(_I32), 0)
    mine = jnp.arange(n) == seat
    state = state.replace(
        phase=jnp.asarray(ARMY, state.phase.dtype),
        hand=(state.hand - (mine[:, None] & (jnp.arange(k) == kind)[None, :])).astype(state.hand.dtype),
    )
    state, earned = enter_play(cards, config, state, seat, kind, state.pending_to_bf, _zeros(config))
    return state.replace(pending_card=jnp.asarray(-1, state.pending_card.dtype)), earned


# --------------------------------------------------------------------------- the Attack phase


def apply_attack(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.battle.apply_attack`` (rulings 40-44): END_PHASE is
    ``resolve_phase``; MOVE toggles the unit between the Battlefield and the Warcamp; ATTACK
    marks the turn's attack and opens a battle (``Battle(seat, slot, target, zone)``: the
    blank battle's fields but those four, ``battle_on``) in BLOCK. Earns nothing."""
    n, u = config.num_players, UNIT_SLOTS
    seat = state.turn_player.astype(_I32)
    action = jnp.asarray(action, _I32)
    ends = action == END_PHASE
    moves, slot_m = _in_block(config, action, Kind.MOVE)
    attacks, index = _in_block(config, action, Kind.ATTACK)
    at = (jnp.arange(n) == seat)[:, None] & (jnp.arange(u) == slot_m)[None, :]
    moved = state.replace(
        unit_zone=jnp.where(at, jnp.where(state.unit_zone == BF, WC, BF), state.unit_zone).astype(state.unit_zone.dtype)
    )
    # the ATTACK block is (slot, offset 1.., zone) in C order
    slot_a = index // (config.offsets * 2)
    offset = index // 2 % config.offsets + 1
    zone = index % 2
    battle = {name: jnp.asarray(value) for name, value in _no_battle(config).items()}
    battle.update(
        battle_on=jnp.asarray(True),
        battle_attacker=seat,
        battle_a_slot=slot_a,
        battle_defender=jnp.mod(seat + offset, n),
        battle_zone=zone,
    )
    attacked = state.replace(
        attacked=jnp.asarray(True),
        phase=jnp.asarray(BLOCK, state.phase.dtype),
        **{name: value.astype(getattr(state, name).dtype) for name, value in battle.items()},
    )
    ended = resolve_phase(cards, config, state)
    state = _choose(ends, ended, _choose(moves, moved, _choose(attacks, attacked, state)))
    return state, _zeros(config)


# --------------------------------------------------------------------------- BLOCK and resolution

_NO_BLOCKER, _BLOCKER_OUT, _ATTACKER_KILLS, _DOUBLE_DEATH, _COUNTER_ATTACK, _ATTACKER_OUT, _DOUBLE_BLOCK = range(1, 8)


def _append_step(state, zone, outcome, active):
    """``battle.outcomes.append((zone, outcome))`` when ``active``."""
    count = state.battle_outcome_count.astype(_I32)
    at = (jnp.arange(state.battle_outcomes.shape[0]) == count)[:, None] & jnp.asarray(active)
    step = jnp.stack([jnp.asarray(zone, _I32), jnp.asarray(outcome, _I32)])[None, :]
    return state.replace(
        battle_outcomes=jnp.where(at, step, state.battle_outcomes).astype(state.battle_outcomes.dtype),
        battle_outcome_count=(count + jnp.asarray(active)).astype(state.battle_outcome_count.dtype),
    )


def kill_tests(cards: CardArrays, config: GeneralsConfig, state):
    """``(a_kills, d_kills)`` of the battle under way: ``rules.battle.kill_tests`` (rulings 46,
    section 5.1): the attacker's strength (attacking) and life, the blocker's strength and life
    (blocking), each plus its pump; the attacker kills above the blocker's life, the blocker at
    or above (``defender_wins_ties``) or above the attacker's; a first strike (the card's own
    keyword) alone on one side that kills saves its unit."""
    att, dfn = state.battle_attacker.astype(_I32), state.battle_defender.astype(_I32)
    a_slot, b_slot = jnp.maximum(state.battle_a_slot.astype(_I32), 0), jnp.maximum(state.battle_blocker.astype(_I32), 0)
    totals = static_totals(cards, state)
    pumps = state.battle_pumps.astype(_I32)
    a_str = _row(unit_strength(cards, state, True, totals), att)[a_slot] + pumps[0]
    a_life = _row(unit_life(cards, state, False, totals), att)[a_slot] + pumps[1]
    d_str = _row(unit_strength(cards, state, False, totals), dfn)[b_slot] + pumps[2]
    d_life = _row(unit_life(cards, state, True, totals), dfn)[b_slot] + pumps[3]
    a_kills = a_str > d_life
    d_kills = d_str >= a_life if config.defender_wins_ties else d_str > a_life
    first = jnp.asarray(cards.keywords)[:, TWIN_KEYWORDS.index("first_strike")]
    a_first = first[jnp.maximum(_row(state.unit_kind.astype(_I32), att)[a_slot], 0)]
    d_first = first[jnp.maximum(_row(state.unit_kind.astype(_I32), dfn)[b_slot], 0)]
    d_kills_first = jnp.where(a_first & ~d_first & a_kills, False, d_kills)
    a_kills_first = jnp.where(d_first & ~a_first & d_kills, False, a_kills)
    return a_kills_first, d_kills_first


def _finish_battle(cards, config: GeneralsConfig, state, outcome, killers, earned, active):
    """``(state, earned)`` after ``rules.battle._finish_battle`` when ``active``: the final
    step appended, ``last_battle`` its copy; a Warcamp no blocker / blocker out / attacker kills
    costs the defender 1 CH (the attacker gains 1 under ``attack_transfer``); each killer
    ``(seat, kind, kills)`` gains its ``on_kill_ch``; a double death or counter-attack gives
    the defender its ``on_block_kill_ch`` total; then, unless over, no battle and
    ``resolve_phase``."""
    active = jnp.asarray(active)
    att, dfn = state.battle_attacker.astype(_I32), state.battle_defender.astype(_I32)
    zone = state.battle_zone.astype(_I32)
    outcome = jnp.asarray(outcome, _I32)
    state = _append_step(state, zone, outcome, active)
    recorded = state.replace(
        last_battle_attacker=state.battle_attacker.astype(state.last_battle_attacker.dtype),
        last_battle_defender=state.battle_defender.astype(state.last_battle_defender.dtype),
        last_battle_outcomes=state.battle_outcomes.astype(state.last_battle_outcomes.dtype),
        last_battle_count=state.battle_outcome_count.astype(state.last_battle_count.dtype),
    )
    state = _choose(active, recorded, state)
    loses = (
        active & (zone == WC) & ((outcome == _NO_BLOCKER) | (outcome == _BLOCKER_OUT) | (outcome == _ATTACKER_KILLS))
    )
    # the CH changes in the Python order, as one scan (each change may end the game or eliminate
    # a seat before the next; one compiled change_ch instead of one per change)
    on_kill = jnp.asarray(cards.on_kill_ch).astype(_I32)
    seats = [dfn] + ([att] if config.attack_transfer else []) + [seat for seat, _, _ in killers] + [dfn]
    deltas = (
        [jnp.where(loses, -1, 0)]
        + ([jnp.where(loses, 1, 0)] if config.attack_transfer else [])
        + [jnp.where(active & kills, on_kill[kind], 0) for _, kind, kills in killers]
        + [jnp.zeros((), _I32)]  # the block bonus: read from the state the changes before it left
    )
    blocked = active & ((outcome == _DOUBLE_DEATH) | (outcome == _COUNTER_ATTACK))
    last = len(seats) - 1

    def one_change(carry, entry):
        state, earned = carry
        index, seat, delta = entry
        bonus = jnp.where(blocked, _row(static_total(cards, state, "on_block_kill_ch"), dfn), 0)
        return change_ch(cards, config, state, seat, jnp.where(index == last, bonus, delta), earned), None

    entries = (
        jnp.arange(len(seats), dtype=_I32),
        jnp.stack([jnp.asarray(seat, _I32) for seat in seats]),
        jnp.stack([jnp.asarray(delta, _I32) for delta in deltas]),
    )
    (state, earned), _ = jax.lax.scan(one_change, (state, earned), entries)
    resolved = resolve_phase(cards, config, state)
    return _choose(active & (state.phase != OVER), resolved, state), earned


def resolve_battle(cards: CardArrays, config: GeneralsConfig, state, earned, active=True):
    """``(state, earned)`` after ``rules.battle.resolve_battle`` when ``active`` (section 5.5,
    steps 5-6): the attacker out; a declared blocker out (on the Battlefield: the battle moves
    to the Warcamp, a step appended, BLOCK again, no new window; in the Warcamp: blocker out);
    no blocker; else the kill tests decide, the killed units are discarded and
    ``_finish_battle`` gives the killers their ``on_kill_ch``."""
    k = config.pool.size
    active = jnp.asarray(active)
    att, dfn = state.battle_attacker.astype(_I32), state.battle_defender.astype(_I32)
    a_slot, b_slot = state.battle_a_slot.astype(_I32), state.battle_blocker.astype(_I32)
    zone = state.battle_zone.astype(_I32)
    a_out = state.battle_a_out
    b_out = ~a_out & state.battle_blocker_declared & state.battle_b_out
    redirects = b_out & (zone == BF)
    unblocked = ~a_out & ~b_out & (b_slot < 0)
    fights = ~a_out & ~b_out & (b_slot >= 0)
    a_kills, d_kills = kill_tests(cards, config, state)
    a_kills, d_kills = fights & a_kills, fights & d_kills
    outcome = jnp.where(
        a_out,
        _ATTACKER_OUT,
        jnp.where(
            b_out,
            _BLOCKER_OUT,
            jnp.where(
                unblocked,
                _NO_BLOCKER,
                jnp.where(
                    a_kills & d_kills,
                    _DOUBLE_DEATH,
                    jnp.where(a_kills, _ATTACKER_KILLS, jnp.where(d_kills, _COUNTER_ATTACK, _DOUBLE_BLOCK)),
                ),
            ),
        ),
    )
    a_kind = jnp.maximum(_row(state.unit_kind.astype(_I32), att)[jnp.maximum(a_slot, 0)], 0)
    d_kind = jnp.maximum(_row(state.unit_kind.astype(_I32), dfn)[jnp.maximum(b_slot, 0)], 0)
    redirected = _append_step(state, BF, _BLOCKER_OUT, True).replace(
        battle_zone=jnp.asarray(WC, state.battle_zone.dtype),
        battle_blocker=jnp.asarray(-1, state.battle_blocker.dtype),
        battle_blocker_declared=jnp.asarray(False),
        battle_b_out=jnp.asarray(False),
        battle_redirected=jnp.asarray(True),
        battle_stage=jnp.asarray(BLOCK, state.battle_stage.dtype),
        phase=jnp.asarray(BLOCK, state.phase.dtype),
    )
    fought = _discard_unit(state, dfn, b_slot, k, a_kills)
    fought = _discard_unit(fought, att, a_slot, k, d_kills)
    killers = ((att, a_kind, a_kills), (dfn, d_kind, d_kills))
    finished, earned = _finish_battle(cards, config, fought, outcome, killers, earned, active & ~redirects)
    return _choose(active & redirects, redirected, finished), earned


def _then_resolve_battle(cards: CardArrays, config: GeneralsConfig, state, resolves):
    """``(state, earned)``: ``resolve_battle`` where ``resolves``, else ``state`` as it is and
    nothing earned, behind a gate (``_where_needed``): how BLOCK and TACTIC end (``do_step``
    runs it once for both phases)."""

    def resolve(carry):
        return resolve_battle(cards, config, carry[0], carry[1])

    return _where_needed(resolves, resolve, (state, _zeros(config)))


def _block_until_battle(cards: CardArrays, config: GeneralsConfig, state, action):
    """``apply_block`` up to ``resolve_battle``: ``(state, resolves)``, the state before the
    battle is resolved and whether it is (the tactic window done, no Warcamp turn)."""
    blocks, slot = _in_block(config, action, Kind.BLOCK)
    slot = jnp.where(blocks, slot, -1)
    state = state.replace(
        battle_blocker=slot.astype(state.battle_blocker.dtype), battle_blocker_declared=jnp.asarray(blocks)
    )
    turns = (state.battle_zone == BF) & ~blocks
    turned = _append_step(state, BF, _NO_BLOCKER, True).replace(
        battle_zone=jnp.asarray(WC, state.battle_zone.dtype), battle_redirected=jnp.asarray(True)
    )
    done = ~turns & state.battle_window_done
    window = state.replace(
        phase=jnp.asarray(TACTIC, state.phase.dtype),
        battle_stage=jnp.asarray(TACTIC, state.battle_stage.dtype),
        battle_tactic_turn=jnp.asarray(0, state.battle_tactic_turn.dtype),
    )
    return _choose(turns, turned, _choose(done, state, window)), done


def apply_block(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.battle.apply_block`` (section 5.5, steps 2, 3 and 6):
    the blocker (a slot, or -1 for NO_BLOCK) and whether one is declared; an unblocked
    Battlefield attack appends a no-blocker step and turns on the Warcamp (BLOCK again); else
    ``resolve_battle`` once the tactic window is done, or the window opens (TACTIC, the
    attacker's turn)."""
    return _then_resolve_battle(cards, config, *_block_until_battle(cards, config, state, action))


# --------------------------------------------------------------------------- the tactic window


def _play_tactic(cards: CardArrays, config: GeneralsConfig, state, seat, kind, attacking, active):
    """The state after ``rules.tactics._play_tactic`` when ``active``: pay the effective cost,
    the card from the hand to the discard pile (an ultra rare bans its kind), the side's tactic
    recorded; then its effect: a pump (strength or life, the side's entry of ``pumps``), a
    withdrawal (the side's unit out) or the removal of the enemy unit (discarded, not killed:
    no kill trigger; that side out)."""
    n, k = config.num_players, config.pool.size
    mine = jnp.arange(n) == seat
    one = jnp.arange(k) == kind
    paid = pay(cards, state, seat, _row(effective_costs(cards, state), seat)[kind])
    effect = jnp.asarray(cards.effect_code)[kind]
    amount = jnp.asarray(cards.amount).astype(_I32)[kind]
    pumps_str = effect == TWIN_TACTIC_EFFECTS.index("pump_str")
    pumps_life = effect == TWIN_TACTIC_EFFECTS.index("pump_life")
    withdraws = effect == TWIN_TACTIC_EFFECTS.index("withdraw_self")
    removes = effect == TWIN_TACTIC_EFFECTS.index("remove_enemy")
    entry = jnp.where(attacking, 0, 2) + jnp.where(pumps_life, 1, 0)
    pumped = (jnp.arange(4) == entry) & (pumps_str | pumps_life)
    side = jnp.where(attacking, 0, 1)
    played = paid.replace(
        hand=(paid.hand - (mine[:, None] & one[None, :])).astype(paid.hand.dtype),
        discard=(paid.discard + (mine[:, None] & one[None, :])).astype(paid.discard.dtype),
        banned=paid.banned | (one & jnp.asarray(cards.ultra_rare)),
        battle_tactics=jnp.where(jnp.arange(2) == side, kind, paid.battle_tactics).astype(paid.battle_tactics.dtype),
        battle_pumps=(paid.battle_pumps + jnp.where(pumped, amount, 0)).astype(paid.battle_pumps.dtype),
    )
    # the enemy unit of a removal: the blocker when the attacker plays it, else the attacker's
    enemy = jnp.where(attacking, state.battle_defender, state.battle_attacker).astype(_I32)
    enemy_slot = jnp.where(attacking, state.battle_blocker, state.battle_a_slot).astype(_I32)
    played = _discard_unit(played, enemy, enemy_slot, k, removes)
    # a withdrawal takes the side's own unit out, a removal the enemy's
    a_out = (withdraws & attacking) | (removes & ~attacking)
    b_out = (withdraws & ~attacking) | (removes & attacking)
    played = played.replace(battle_a_out=played.battle_a_out | a_out, battle_b_out=played.battle_b_out | b_out)
    return _choose(active, played, state)


def _tactic_until_battle(cards: CardArrays, config: GeneralsConfig, state, action):
    """``apply_tactic`` up to ``resolve_battle``: ``(state, resolves)`` (the defender has
    played or passed)."""
    plays, kind = _in_block(config, action, Kind.PLAY)
    attacking = state.battle_tactic_turn == 0
    seat = jnp.where(attacking, state.battle_attacker, state.battle_defender).astype(_I32)
    state = _where_needed(plays, lambda state: _play_tactic(cards, config, state, seat, kind, attacking, True), state)
    turned = state.replace(battle_tactic_turn=jnp.asarray(1, state.battle_tactic_turn.dtype))
    done = state.replace(battle_window_done=jnp.asarray(True))
    return _choose(attacking, turned, done), ~attacking


def apply_tactic(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, earned)`` after ``rules.tactics.apply_tactic`` (section 5.5, step 4): the side
    to play (the attacker first) plays the tactic of a PLAY action (``_play_tactic``) or none
    (NO_TACTIC); then the defender's turn, or, after the defender, the window is done and
    ``resolve_battle``."""
    return _then_resolve_battle(cards, config, *_tactic_until_battle(cards, config, state, action))


# --------------------------------------------------------------------------- one decision


def _plain(apply):
    """A phase's apply as a step of ``PHASE_STEPS``: it ends in neither a draw nor a battle."""

    def step(cards: CardArrays, config: GeneralsConfig, state, action):
        return (*apply(cards, config, state, action), jnp.zeros((), bool), jnp.zeros((), bool))

    return step


def _until_draw(until_draw):
    """A DECLARE or DRAW step up to ``_continue_draw``: it earns nothing before it."""

    def step(cards: CardArrays, config: GeneralsConfig, state, action):
        state, draws = until_draw(cards, config, state, action)
        return state, _zeros(config), draws, jnp.zeros((), bool)

    return step


def _until_battle(until_battle):
    """A BLOCK or TACTIC step up to the battle: it earns nothing before it."""

    def step(cards: CardArrays, config: GeneralsConfig, state, action):
        state, resolves = until_battle(cards, config, state, action)
        return state, _zeros(config), jnp.zeros((), bool), resolves

    return step


#: each phase's step (``rules.phases.PHASES``' apply, by the phase's number; OVER has none) as
#: ``(state, earned, draws, resolves)``: DECLARE and DRAW stop where ``_continue_draw`` would
#: go on, BLOCK and TACTIC where the battle would be resolved, and ``draws`` and ``resolves``
#: say that it does (``do_step`` runs each once, for both phases)
PHASE_STEPS = {
    DECLARE: _until_draw(_declare_until_draw),
    DRAW: _until_draw(_draw_until_more),
    KINGDOM: _plain(apply_kingdom),
    ARMY: _plain(apply_army),
    ATTACK: _plain(apply_attack),
    BLOCK: _until_battle(_block_until_battle),
    TACTIC: _until_battle(_tactic_until_battle),
    TARGET_PLAYER: _plain(apply_target_player),
    TARGET_KIND: _plain(apply_target_kind),
    DISCARD_HAND: _plain(apply_discard_hand),
    REPLACE_GENERAL: _plain(apply_replace_general),
}
#: the phases few games of a batch are in (the Sabotage's choices, a discard down to the hand
#: limit, the General replaced): ``do_step`` puts their steps behind a gate
_RARE_PHASES = (TARGET_PLAYER, TARGET_KIND, DISCARD_HAND, REPLACE_GENERAL)
#: an action legal in each phase that plays nothing, given to the games of a batch that are not
#: in the phase, so that the gates of its plays stay shut for them
_IDLE_ACTIONS = {
    DECLARE: PLAY_TURN,
    DRAW: DRAW_PLAYING,
    KINGDOM: END_PHASE,
    ARMY: END_PHASE,
    ATTACK: END_PHASE,
    BLOCK: NO_BLOCK,
    TACTIC: NO_TACTIC,
}


def do_step(cards: CardArrays, config: GeneralsConfig, state, action, active=True):
    """``(state, earned)`` after ``rules.phases._do`` when ``active``: the apply of the state's
    phase (``PHASE_STEPS``), the battle resolved where the phase reaches it; then a turn player
    that left the game mid-turn (a Chancellor victory with play for second, a deck-out with
    ``deckout_loses``) ends its turn there (``end_turn`` also clears the battle).

    Under ``vmap`` every phase's step is computed for every game (select-style), and
    ``apply_action``'s loop of automatic steps runs this about 9 times per batched decision, so
    the costly parts that few games need sit behind gates (``_where_needed``): the steps of the
    rare phases (``_RARE_PHASES``), the plays of the Kingdom, Army and Tactic phases (an
    automatic step is always the phase's pass, END_PHASE, NO_BLOCK or NO_TACTIC, which are
    always legal, so the loop's later turns never open those gates), the battle, and the end of
    the turn of a seat that left. ``_continue_draw`` (with the Harvest) and the battle are each
    compiled once, after the phase is chosen. A game that is not ``active`` or not in a phase
    is given the phase's idle action (``_IDLE_ACTIONS``), so it opens no gate."""
    active = jnp.asarray(active)
    after, earned, draws, resolves = state, _zeros(config), jnp.zeros((), bool), jnp.zeros((), bool)
    for phase, step in PHASE_STEPS.items():
        hit = active & (state.phase == phase)
        given = jnp.where(hit, action, _IDLE_ACTIONS.get(phase, action))
        if phase in _RARE_PHASES:
            blank = (state, _zeros(config), jnp.zeros((), bool), jnp.zeros((), bool))
            stepped, gained, more, battle = _where_needed(
                hit, lambda blank, step=step, given=given: step(cards, config, blank[0], given), blank
            )
        else:
            stepped, gained, more, battle = step(cards, config, state, given)
        after = _choose(hit, stepped, after)
        earned = jnp.where(hit, gained, earned)
        draws, resolves = draws | (hit & more), resolves | (hit & battle)
    state, gained = _then_draw(cards, config, after, draws)
    earned = earned + gained
    state, gained = _then_resolve_battle(cards, config, state, resolves)
    earned = earned + gained
    left = active & (state.phase != OVER) & ~_row(state.alive, state.turn_player.astype(_I32))
    return _where_needed(left, functools.partial(end_turn, config), state), earned


def single_action(cards: CardArrays, config: GeneralsConfig, state) -> jax.Array:
    """The one legal action of a state with exactly one (``core.phases.single_action``), else
    -1 (none, several, or the game over)."""
    mask = legal_mask(cards, config, state)
    return jnp.where((mask.sum() == 1) & (state.phase != OVER), jnp.argmax(mask), -1).astype(_I32)


def add_final_results(config: GeneralsConfig, state, finished, earned):
    """``earned`` plus ``rules.scoring.add_final_results``: the final reward of every seat that
    left since ``finished`` seats had (its place paid in the step it is reached), and, once the
    game is over, of every seat still in that has a place."""
    n = config.num_players
    position = jnp.arange(n)
    newly = (position >= finished) & (position < state.finish_count.astype(_I32))
    left_now = ((state.finish_order.astype(_I32)[:, None] == position[None, :]) & newly[:, None]).any(axis=0)
    placed_in = (state.phase == OVER) & state.alive & (state.place > 0)
    return earned + jnp.where(left_now | placed_in, state.final_reward, 0.0).astype(earned.dtype)


def apply_action(cards: CardArrays, config: GeneralsConfig, state, action):
    """``(state, rewards)`` after ``rules.phases.apply_action`` with a legal ``action`` (the env
    wrapper handles illegal ones): the decision and every automatic step that follows (a
    decision with exactly one legal action, taken at once: a ``lax.while_loop`` whose first
    turn plays ``action``, so ``do_step`` is compiled once), what each step earned summed
    (float32), each seat placed in the step paid its final reward, the decision counted and the
    game truncated at ``decision_limit`` decisions.

    Under ``vmap`` the loop turns until the longest chain of the batch ends (about 9 steps at
    1,024 games, where a chain takes 1.8 on average); ``do_step``'s gates keep its later turns
    cheap. The view and the mask stay out of the loop (``settle`` computes them after)."""
    finished = state.finish_count.astype(_I32)
    kept = {"observation": state.observation, "legal_action_mask": state.legal_action_mask}
    state = state.replace(**{name: jnp.zeros((0,), value.dtype) for name, value in kept.items()})

    def more(carry):
        return carry[2] >= 0

    def one(carry):
        state, earned, action = carry
        state, gained = do_step(cards, config, state, action, action >= 0)
        return state, earned + gained, single_action(cards, config, state)

    state, earned, _ = jax.lax.while_loop(more, one, (state, _zeros(config), jnp.asarray(action, _I32)))
    earned = add_final_results(config, state, finished, earned)
    decisions = state.decisions + 1
    limit = (decisions >= state.decision_limit) & (state.phase != OVER)
    state = state.replace(
        decisions=decisions.astype(state.decisions.dtype),
        outcome=jnp.where(limit, TRUNCATED, state.outcome).astype(state.outcome.dtype),
        phase=jnp.where(limit, OVER, state.phase).astype(state.phase.dtype),
        **kept,
    )
    return state, earned


# --------------------------------------------------------------------------- the deal

#: ``jax.random.fold_in`` tags of the deal's draws, one stream each
_DECK_CHOICE, _SHUFFLES, _FIRST_PLAYER = 0, 1, 2


def _shuffled(pile: jax.Array, size: jax.Array, key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(pile, order)``: the first ``size`` entries of a padded pile in a uniformly random
    order (a uniform score per entry, the padding scored last, then sorted), -1 past the size;
    ``order[i]`` is the entry now at ``i`` (numpy's ``shuffle`` of the Python list puts
    ``old[order[i]]`` at ``i``)."""
    width = pile.shape[0]
    inside = jnp.arange(width) < size
    scores = jnp.where(inside, jax.random.uniform(key, (width,)), 2.0)
    order = jnp.argsort(scores, stable=True)
    return jnp.where(inside, pile[order], -1).astype(pile.dtype), order.astype(_I32)


def deal_orders(config: GeneralsConfig, key: jax.Array) -> dict[str, jax.Array]:
    """The deal's draws from ``key`` (``rules.setup.new_game``'s, in its order): each seat's deck
    (``config.decks`` by name; ``"random"``: a uniform draw of ``deck_ids``, with repeats under
    ``allow_mirror``, else the first ``n`` of a random permutation), each seat's Playing Deck
    then Supply Pile shuffled (``playing``, ``supply``: bottom first, -1 past the size;
    ``playing_order``, ``supply_order``: the permutations), and the first player."""
    n = config.num_players
    decks = twin_decks(config)
    ids = deck_ids(config)
    count = len(ids)
    choice_key = jax.random.fold_in(key, _DECK_CHOICE)
    if config.decks != "random":
        choice = jnp.asarray([ids.index(name) for name in config.decks], _I32)
    elif config.allow_mirror:
        choice = jax.random.randint(choice_key, (n,), 0, count).astype(_I32)
    else:
        choice = jax.random.permutation(choice_key, count)[:n].astype(_I32)
    shuffle_keys = jax.random.split(jax.random.fold_in(key, _SHUFFLES), 2 * n).reshape(n, 2, -1)
    playing_sizes = jnp.asarray(decks.playing_size).astype(_I32)[choice]
    supply_sizes = jnp.asarray(decks.supply_size).astype(_I32)[choice]
    playing, playing_order = jax.vmap(_shuffled)(jnp.asarray(decks.playing)[choice], playing_sizes, shuffle_keys[:, 0])
    supply, supply_order = jax.vmap(_shuffled)(jnp.asarray(decks.supply)[choice], supply_sizes, shuffle_keys[:, 1])
    first = jax.random.randint(jax.random.fold_in(key, _FIRST_PLAYER), (), 0, n).astype(_I32)
    return {
        "choice": choice,
        "playing": playing,
        "playing_size": playing_sizes,
        "playing_order": playing_order,
        "supply": supply,
        "supply_size": supply_sizes,
        "supply_order": supply_order,
        "first": first,
    }


def make_init(config: GeneralsConfig):
    """The twin of ``rules.setup.new_game`` (no reset options) for one config: ``deal_orders``,
    each seat's deck in place (its id, empire, both piles shuffled, ``deck_size``, cultural
    health ``target`` in a Slaughterhouse, else 0), the opening hands drawn from the tops
    (``opening_hand``: Playing Deck, then Supply Pile), the first player's turn begun (DECLARE).
    ``new_game`` then takes the automatic steps; there are none here: a fresh DECLARE always
    offers PLAY_TURN and PASS (no seat has passed yet). The pgx fields are ``settle``'s."""
    from .jax_observe import observe
    from .rules.setup import max_game_length

    n, k = config.num_players, config.pool.size
    cards = card_arrays(config.pool)
    decks = twin_decks(config)
    from_playing, from_supply = config.opening_hand
    template = _host_blank(config)
    limit = max_game_length(config)

    def draw_tops(pile, size, amount):
        taken = jnp.minimum(size, amount)
        return jax.vmap(lambda p, s, t: _top_counts(p, s, t, k))(pile, size, taken), taken

    def init(key: jax.Array):
        deal = deal_orders(config, key)
        from_deck, drawn_p = draw_tops(deal["playing"], deal["playing_size"], from_playing)
        from_pile, drawn_s = draw_tops(deal["supply"], deal["supply_size"], from_supply)
        first = deal["first"]
        starts = jnp.arange(n) == first
        state = jax.device_put(template).replace(
            deck_id=deal["choice"].astype(template.deck_id.dtype),
            empire=jnp.asarray(decks.empire)[deal["choice"]].astype(template.empire.dtype),
            hand=(from_deck + from_pile).astype(template.hand.dtype),
            playing_deck=jnp.where(
                jnp.arange(template.playing_deck.shape[1])[None, :] < (deal["playing_size"] - drawn_p)[:, None],
                deal["playing"],
                -1,
            ).astype(template.playing_deck.dtype),
            playing_size=(deal["playing_size"] - drawn_p).astype(template.playing_size.dtype),
            supply_pile=jnp.where(
                jnp.arange(template.supply_pile.shape[1])[None, :] < (deal["supply_size"] - drawn_s)[:, None],
                deal["supply"],
                -1,
            ).astype(template.supply_pile.dtype),
            supply_size=(deal["supply_size"] - drawn_s).astype(template.supply_size.dtype),
            deck_size=(deal["playing_size"] + deal["supply_size"]).astype(template.deck_size.dtype),
            drawn_playing=drawn_p.astype(template.drawn_playing.dtype),
            drawn_supply=drawn_s.astype(template.drawn_supply.dtype),
            ch=jnp.full(n, config.target if config.slaughterhouse else 0, template.ch.dtype),
            turns_taken=starts.astype(template.turns_taken.dtype),
            turn_player=first.astype(template.turn_player.dtype),
            first=first.astype(template.first.dtype),
            phase=jnp.asarray(DECLARE, template.phase.dtype),
            decks_public=jnp.asarray(config.decks != "random"),
            decision_limit=jnp.asarray(limit, template.decision_limit.dtype),
            deal_key=jnp.asarray(key, jnp.uint32),  # a raw key, uint32[2], as the twins take
        )
        return settle(cards, config, state, observe)

    return init


def settle(cards: CardArrays, config: GeneralsConfig, state, observe):
    """The pgx fields of a state the rules have left: the seat to act (the turn player once
    over), its legal mask (all False once over; the env adapter opens it, as pgx), its view,
    the end flags."""
    over = state.phase == OVER
    seat = jnp.where(over, state.turn_player.astype(_I32), acting_seat(state))
    mask = legal_mask(cards, config, state)
    return state.replace(
        current_player=seat.astype(state.current_player.dtype),
        legal_action_mask=mask,
        observation=observe(state, seat, config, cards),
        terminated=over & (state.outcome != TRUNCATED),
        truncated=over & (state.outcome == TRUNCATED),
    )


def python_deal_draws(config: GeneralsConfig):
    """``draws(state)``: the ``core.rng.PresetDraws`` that make ``rules.setup.new_game`` deal
    what the twin dealt into ``state`` (a fresh twin state, host or device): the decks (the
    preset integers under ``allow_mirror``, else a permutation of ``deck_ids`` that begins with
    them), each pile's shuffle, the first player; all redrawn from ``state.deal_key``."""
    from ...core.rng import PresetDraws

    orders = jax.jit(functools.partial(deal_orders, config))
    count = len(deck_ids(config))

    def draws(state) -> PresetDraws:
        deal = jax.tree_util.tree_map(np.asarray, orders(jnp.asarray(np.asarray(state.deal_key), jnp.uint32)))
        choice = [int(index) for index in deal["choice"]]
        integers, permutations = [], []
        if config.decks == "random":
            if config.allow_mirror:
                integers += choice
            else:
                permutations.append(choice + [index for index in range(count) if index not in choice])
        for seat in range(config.num_players):
            permutations.append(deal["playing_order"][seat][: int(deal["playing_size"][seat])].tolist())
            permutations.append(deal["supply_order"][seat][: int(deal["supply_size"][seat])].tolist())
        integers.append(int(deal["first"]))
        return PresetDraws(integers=integers, permutations=permutations)

    return draws


# --------------------------------------------------------------------------- the env's record


def program_config(config: GeneralsConfig) -> GeneralsConfig:
    """The config whose step and view serve ``config``: the same but for the fields the state
    carries (``jax_state._rule_parameters``), which take their defaults; configs with the same
    ``program_config`` share ``make_step``'s and ``make_observe``'s functions (one compile)."""
    defaults: dict[str, Any] = {field.name: field.default for field in dataclasses.fields(GeneralsConfig)}
    return dataclasses.replace(config, **{name: defaults[name] for name in STATE_CARRIED_FIELDS})


#: the config fields the twin reads from the state, not the config (``program_config``)
STATE_CARRIED_FIELDS = ("game_type", "slaughterhouse", "slaughter_floor", "length_limit")


def make_step(config: GeneralsConfig):
    """The twin of ``rules.apply_action`` for one config, as ``core.jax_game.JaxRules.step``:
    one legal action (``adapters.jax_env`` handles illegal actions and finished games), the
    automatic steps after it, each seat's reward, the pgx fields. ``key`` is unused: nothing is
    random after the deal. One function per ``program_config``."""
    return _step_of_program(program_config(config))


def make_observe(config: GeneralsConfig):
    """``JaxRules.observe`` (``jax_observe.observe``), one function per ``program_config``."""
    return _observe_of_program(program_config(config))


@functools.cache
def _observe_of_program(config: GeneralsConfig):
    from .jax_observe import observe

    cards = card_arrays(config.pool)
    return lambda state, seat: observe(state, seat, config, cards)


@functools.cache
def _step_of_program(config: GeneralsConfig):
    from .jax_observe import observe

    cards = card_arrays(config.pool)

    def step(state, action: jax.Array, key: jax.Array | None = None):
        del key
        after, earned = apply_action(cards, config, state, action)
        settled = settle(cards, config, after, observe)
        return settled.replace(rewards=earned.astype(state.rewards.dtype), step_count=state.step_count + 1)

    return step


def python_draws(config: GeneralsConfig):
    """``JaxRules.python_draws``: for the deal (``before`` None) ``python_deal_draws``'s preset
    draws; for a step, none (a ``PresetDraws`` with nothing preset, so a draw the Python rules
    made after the deal would fail the lockstep)."""
    from ...core.rng import PresetDraws

    deal = python_deal_draws(config)
    return lambda before, after: deal(after) if before is None else PresetDraws()


def rules_for(config: GeneralsConfig):
    """The Generals twin of one config, as ``core.jax_game.JaxRules`` (the card pool is checked
    first: ``jax_tables.TwinUnsupportedError`` names a card the twin cannot play)."""
    from ...core.jax_game import JaxRules
    from . import GAME
    from .jax_observe import observation_size
    from .jax_state import outcome_names, to_python

    card_arrays(config.pool)  # refuses an unsupported card by name, before anything is traced
    return JaxRules(
        name=GAME.name,
        game=GAME,
        config=config,
        num_actions=layout_for(config.pool.size, config.offsets).size,
        observation_size=observation_size(config),
        init=make_init(config),
        step=make_step(config),
        observe=make_observe(config),
        outcome_names=outcome_names(config),
        to_python=lambda state: to_python(state, config),
        python_deck=lambda state: None,
        reshuffle_orders=lambda before, after: [],
        num_players=config.num_players,
        python_draws=python_draws(config),
    )
