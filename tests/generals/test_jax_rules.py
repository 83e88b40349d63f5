"""The Generals twin's rules step (``jax_rules``), part by part, against the Python rules.

Each part is compiled on its own, so these tests cost more compile time than whole games do:
they run in the soak (``pytest -m soak``), the payment tests also in ``make test``; the whole
games of ``tests/generals/test_jax_twin.py`` play every part in ``make test``.

- ``legal_mask`` equals ``rules.legal_mask`` (and ``acting_seat`` ``acting_player``) on states
  of seeded random legal games of every registered Generals id and of ``max_generals=3``
  (REPLACE_GENERAL), jitted and vmapped; the games reach every phase.
- ``end_turn`` equals ``rules.turn.end_turn`` (``to_python`` of the twin after it equals the
  Python state after it) on the same sampled states, a round limit of 1 included (truncation).
- ``change_ch`` equals ``rules.scoring.change_ch`` (state exactly, earned reward as float32)
  on the sampled states with deltas reaching victory and elimination, on configs with
  ``play_for_second``, ``placement``, ``shaping`` and a Slaughterhouse floor.
- ``apply_declare``/``apply_draw``/``apply_discard_hand`` equal the Python phase's ``apply``
  (one step, no automatic steps), thin piles included (deck-outs, dropped draws);
  ``resolve_phase`` equals ``rules.turn.resolve_phase``.
- ``apply_kingdom``/``apply_target_player``/``apply_target_kind`` equal the Python phase's
  ``apply`` on sampled KINGDOM points, copies with every Kingdom-phase card planted in hand and
  a budget, and the TARGET states those steps reach.
- ``apply_army``/``apply_replace_general``/``apply_attack``/``apply_block``/``apply_tactic``
  equal the Python phase's ``apply`` on sampled points and planted copies (each battle tactic
  effect of the pool played, by either side).
- ``apply_action`` equals ``rules.apply_action`` (automatic steps, final results, the decision
  limit) on every legal action of sampled points of a 3-seat placement config with shaping.
- ``payment_choice`` equals ``rules.derived.payment_choice`` on random ready sets, budgets and
  amounts (every amount up to the pool's largest cost that the seat can pay), jitted and vmapped.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from empire_envs.games.generals import jax_rules, jax_state, rules  # noqa: E402
from empire_envs.games.generals.actions import Kind  # noqa: E402
from empire_envs.games.generals.config import GeneralsConfig  # noqa: E402
from empire_envs.games.generals.jax_tables import card_arrays  # noqa: E402
from empire_envs.games.generals.rules import scoring, turn  # noqa: E402
from empire_envs.games.generals.state import GeneralsState, Phase  # noqa: E402
from empire_envs.registry import game_entry  # noqa: E402
from tests.generals.helpers import fighting_action  # noqa: E402

CONFIGS = {variant.name: dict(variant.kwargs) for variant in game_entry("generals").variants}
CONFIGS["max_generals=3"] = {"max_generals": 3}
#: configs of the scoring tests only (not every phase's mask)
SCORING = {
    "4p play_for_second placement": {"num_players": 4, "play_for_second": True, "reward_scheme": "placement"},
    "3p placement shaping": {"num_players": 3, "reward_scheme": "placement", "shaping": 0.05},
    "slaughter bottom shaping": {"slaughterhouse": True, "slaughter_floor": "bottom", "shaping": 0.1},
    "draw both deckout shaping": {"draw_mode": "both", "deckout_loses": True, "shaping": 0.05},
    "3p deckout": {"num_players": 3, "deckout_loses": True},
}
GAMES = 3
SAMPLE_EVERY = 3


@functools.cache
def _config(name: str) -> GeneralsConfig:
    return GeneralsConfig(**{**CONFIGS, **SCORING}[name])


@functools.cache
def _points(name: str) -> tuple[GeneralsState, ...]:
    """Every ``SAMPLE_EVERY``-th point of ``GAMES`` seeded games, every point of a special phase
    or a battle, and each end."""
    config = _config(name)
    points = []
    for seed in range(GAMES):
        rng = np.random.default_rng(seed)
        state = rules.new_game(config, rng)
        step = 0
        while state.phase != Phase.OVER:
            if state.battle is not None or state.phase >= Phase.BLOCK or step % SAMPLE_EVERY == 0:
                points.append(state.clone())
            rules.apply_action(state, fighting_action(state, rng), rng)
            step += 1
        points.append(state)
    return tuple(points)


def _stacked(config: GeneralsConfig, points) -> jax_state.State:
    codec, blank = jax_state.make_codec(config), jax_state._host_blank(config)
    hosts = [blank.replace(**codec.from_python(python)) for python in points]
    return jax.tree_util.tree_map(lambda *leaves: np.stack(leaves), *hosts)


@pytest.mark.soak
@pytest.mark.parametrize("name", list(CONFIGS))
def test_legal_mask_equals_python(name):
    config = _config(name)
    points = _points(name)
    cards = card_arrays(config.pool)

    def both(state):
        return jax_rules.legal_mask(cards, config, state), jax_rules.acting_seat(state)

    masks, seats = jax.jit(jax.vmap(both))(_stacked(config, points))
    masks, seats = np.asarray(masks), np.asarray(seats)
    lay = points[0].layout
    for index, python in enumerate(points):
        expected = rules.legal_mask(python).astype(bool)
        if not np.array_equal(masks[index], expected):
            extra = [lay.name(int(a)) for a in np.flatnonzero(masks[index] & ~expected)]
            missing = [lay.name(int(a)) for a in np.flatnonzero(expected & ~masks[index])]
            pytest.fail(f"point {index}, phase {Phase(python.phase).name}: extra {extra}, missing {missing}")
        assert int(seats[index]) == python.acting_player()
    assert {Phase(p.phase) for p in points} >= {Phase.DECLARE, Phase.KINGDOM, Phase.ARMY, Phase.ATTACK, Phase.OVER}


@pytest.mark.soak
def test_the_games_reach_every_phase():
    phases = {Phase(p.phase) for name in CONFIGS for p in _points(name)}
    assert phases == set(Phase), set(Phase) - phases


def test_payment_choice_equals_python():
    config = GeneralsConfig()
    cards = card_arrays(config.pool)
    python = rules.new_game(config, np.random.default_rng(0))
    player = python.players[0]
    resources = np.flatnonzero(cards.is_resource)
    plan = jax_rules.payment_plan(cards)
    rng = np.random.default_rng(1)
    readies, needs, expected = [], [], []
    for _ in range(400):
        ready = np.zeros(config.pool.size, np.int64)
        chosen = rng.choice(resources, size=int(rng.integers(0, len(resources) + 1)), replace=False)
        ready[chosen] = rng.integers(1, 7, size=len(chosen))
        budget = int(rng.integers(0, 3))
        player.supply_ready = type(player.supply_ready)(player.supply_ready.typecode, ready.tolist())
        player.budget = budget
        wealth = rules.money(python, 0)
        for amount in range(0, min(wealth, plan["max_cost"]) + 1):
            spent = np.bincount(rules.payment_choice(python, 0, amount), minlength=config.pool.size)
            readies.append(ready)
            needs.append(amount - budget)
            expected.append(spent)
    function = jax.jit(jax.vmap(functools.partial(jax_rules.payment_choice, cards)))
    got = np.asarray(function(np.stack(readies).astype(np.int16), np.asarray(needs, np.int32)))
    expected = np.stack(expected)
    wrong = np.flatnonzero((got != expected).any(axis=1))
    assert not wrong.size, (len(wrong), readies[wrong[0]], needs[wrong[0]], got[wrong[0]], expected[wrong[0]])
    assert len(needs) > 2000


def test_payment_prefers_fewer_cards_then_lower_refs():
    """Hand-made ties: value 2 from one card of value 2 beats two cards of value 1; among
    equal counts the lowest refs win."""
    config = GeneralsConfig()
    cards = card_arrays(config.pool)
    plan = jax_rules.payment_plan(cards)
    kinds, values = plan["kinds"], plan["values"]
    ready = np.zeros(config.pool.size, np.int16)
    ready[kinds] = 3
    spent = np.asarray(jax_rules.payment_choice(cards, ready, 2))
    two = kinds[values == 2]
    if two.size:
        assert spent.sum() == 1 and spent[two[0]] == 1
    ones = kinds[values == 1]
    spent = np.asarray(jax_rules.payment_choice(cards, ready, 1))
    assert spent.sum() == 1 and spent[ones[0]] == 1  # the lowest ref of value 1


@pytest.mark.soak
@pytest.mark.parametrize("name", ["Generals-v0", "Generals3p-v0", "Generals4pSlaughter-v0"])
def test_end_turn_equals_python(name):

    config = _config(name)
    points = [p for p in _points(name) if p.phase != Phase.OVER]
    function = jax.jit(jax.vmap(functools.partial(jax_rules.end_turn, config)))
    after = function(_stacked(config, points))
    checked = set()
    for index, python in enumerate(points):
        expected = python.clone()
        turn.end_turn(expected)
        twin = jax_state.to_python(jax.tree_util.tree_map(lambda leaf, i=index: np.asarray(leaf[i]), after), config)
        assert twin == expected, f"point {index}, phase {Phase(python.phase).name}"
        checked.add((expected.round != python.round, expected.phase == Phase.OVER))
    assert (True, False) in checked and (False, False) in checked


@pytest.mark.soak
def test_end_turn_truncates_at_the_round_limit():

    name = "Generals-v0"
    points = [p for p in _points(name) if p.phase != Phase.OVER][:40]
    limited = GeneralsConfig(**{**CONFIGS[name], "length_limit": 1})
    moved = []
    for python in points:
        copy = python.clone()
        copy.config = limited
        copy.round = 1
        moved.append(copy)
    after = jax.jit(jax.vmap(functools.partial(jax_rules.end_turn, limited)))(_stacked(limited, moved))
    overs = 0
    for index, python in enumerate(moved):
        expected = python.clone()
        turn.end_turn(expected)
        twin = jax_state.to_python(jax.tree_util.tree_map(lambda leaf, i=index: np.asarray(leaf[i]), after), limited)
        assert twin == expected, f"point {index}"
        overs += expected.phase == Phase.OVER
    assert overs


def _row_of(batch, index):
    return jax.tree_util.tree_map(lambda leaf: np.asarray(leaf[index]), batch)


@pytest.mark.soak
@pytest.mark.parametrize("name", ["Generals-v0", "Generals4pSlaughter-v0", *SCORING])
def test_change_ch_equals_python(name):
    """``change_ch`` (with the victory, elimination, last seat standing and shares it sets off)
    against ``rules.scoring.change_ch``: the state exactly, each seat's earned reward as float32
    (the twin's float32 ``shaping`` times the points may differ from the rounded double by an
    ulp)."""
    config = _config(name)
    points = list(_points(name))
    rng = np.random.default_rng(7)
    seats, deltas, line = [], [], scoring.elimination_line(config)
    for python in points:
        seat = int(rng.integers(config.num_players))
        ch = python.players[seat].ch
        seats.append(seat)
        deltas.append(int(rng.choice([0, int(rng.integers(-3, 4)), config.target - ch, line - ch, line - ch - 1])))
    cards = card_arrays(config.pool)
    n = config.num_players

    def one(state, seat, delta):
        return jax_rules.change_ch(cards, config, state, seat, delta, np.zeros(n, np.float32))

    after, earned = jax.jit(jax.vmap(one))(_stacked(config, points), np.asarray(seats), np.asarray(deltas))
    seen = set()
    for index, python in enumerate(points):
        expected = python.clone()
        rewards = [0.0] * n
        scoring.change_ch(expected, seats[index], deltas[index], rewards)
        twin = jax_state.to_python(_row_of(after, index), config)
        assert twin == expected, f"point {index}, seat {seats[index]}, delta {deltas[index]}"
        # float32 shaping x points against the double: within an ulp (exact without shaping)
        np.testing.assert_allclose(np.asarray(earned[index]), np.float32(rewards), rtol=1e-6, atol=0)
        seen.add((expected.phase == Phase.OVER, len(expected.finish_order) - len(python.finish_order)))
    assert len(seen) >= 3, seen


def _thinned(points, rng):
    """Copies of the DECLARE and DRAW points with piles cut to 0-2 cards (deck-outs, dropped
    draws, a Harvest straight after a declaration)."""
    thin = []
    for python in points:
        if python.phase not in (Phase.DECLARE, Phase.DRAW):
            continue
        copy = python.clone()
        player = copy.players[copy.current]
        player.playing_deck = player.playing_deck[: int(rng.integers(0, 3))]
        player.supply_pile = player.supply_pile[: int(rng.integers(0, 3))]
        if copy.phase == Phase.DRAW and not player.playing_deck and not player.supply_pile:
            continue  # no legal draw
        thin.append(copy)
    return thin


STEP_APPLIES = {
    Phase.DECLARE: jax_rules.apply_declare,
    Phase.DRAW: jax_rules.apply_draw,
    Phase.DISCARD_HAND: jax_rules.apply_discard_hand,
}
KINGDOM_APPLIES = {
    Phase.KINGDOM: jax_rules.apply_kingdom,
    Phase.TARGET_PLAYER: jax_rules.apply_target_player,
    Phase.TARGET_KIND: jax_rules.apply_target_kind,
}


@pytest.mark.soak
@pytest.mark.parametrize("name", ["Generals-v0", "Generals3p-v0", "draw both deckout shaping", "3p deckout"])
def test_declare_draw_discard_equal_python(name):
    """``apply_declare``, ``apply_draw`` (with ``_continue_draw`` and the Harvest) and
    ``apply_discard_hand`` against the Python phase's ``apply`` alone (``rules.PHASES[phase].
    apply``, no automatic steps): every legal action of every sampled point of those phases,
    and of copies with thin piles."""
    seen = _one_steps(name, STEP_APPLIES, thin=True)
    harvests = {(Phase.DECLARE, Phase.KINGDOM), (Phase.DRAW, Phase.KINGDOM)}
    assert seen & harvests and (Phase.DISCARD_HAND, Phase.DECLARE) in seen, seen
    assert ("deck-out" in seen) == _config(name).deckout_loses, seen


@pytest.mark.soak
@pytest.mark.parametrize("name", ["Generals-v0", "Generals3p-v0", "3p placement shaping"])
def test_kingdom_phase_equals_python(name):
    """``apply_kingdom`` (``play_kingdom_card`` with ``pay``: statics, main tactics, the
    on-play CH) and the two Sabotage choices against the Python phase's ``apply`` alone: every
    legal action of every sampled point of those phases."""
    seen = _one_steps(name, KINGDOM_APPLIES, extra=_planted)
    assert {(Phase.KINGDOM, Phase.KINGDOM), (Phase.KINGDOM, Phase.ARMY), (Phase.KINGDOM, Phase.TARGET_PLAYER)} <= seen
    assert {(Phase.TARGET_PLAYER, Phase.TARGET_KIND), (Phase.TARGET_KIND, Phase.KINGDOM)} <= seen, seen
    # the main tactics the pool has (the default pool has no draw or gain_ch main tactic)
    main = {
        card.effect
        for card in _config(name).pool.kinds
        if card.is_tactic and card.effect in ("draw", "gain_ch", "destroy_kingdom")
    }
    assert {"static", *main} <= seen, seen


def _planted(points, rng):
    """Copies of the KINGDOM points with one more copy in hand of every Kingdom-phase kind (the
    main tactics' draw and gain_ch included) and a budget of 0-4 (payments from budget and
    Supply Line together)."""
    planted = []
    for python in points:
        if python.phase != Phase.KINGDOM:
            continue
        copy = python.clone()
        player = copy.players[copy.current]
        for kind, card in enumerate(copy.tables.kinds):
            if card.is_static or (card.is_tactic and card.effect in ("draw", "gain_ch", "destroy_kingdom")):
                player.hand[kind] += 1
        player.budget += int(rng.integers(0, 5))
        planted.append(copy)
    return planted


def _one_steps(name, applies, thin=False, extra=None):
    """Every legal action of every sampled point (and thin-pile copies) in the phases of
    ``applies``, and of the states those steps reach in a later phase of ``applies``: the
    twin's apply against ``rules.PHASES[phase].apply``; the (phase, next phase) pairs seen, and
    "deck-out" if a seat left."""
    config = _config(name)
    cards = card_arrays(config.pool)
    rng = np.random.default_rng(3)
    points = list(_points(name))
    if thin:
        points += _thinned(points, rng)
    if extra is not None:
        points += extra(points, rng)
    seen = set()
    for phase, apply in applies.items():  # a later phase also gets the states the earlier ones reached
        chosen = [
            (python, action) for python in points if python.phase == phase for action in rules.legal_actions(python)
        ]
        if not chosen:
            continue
        function = jax.jit(jax.vmap(functools.partial(apply, cards, config)))
        after, earned = function(_stacked(config, [p for p, _ in chosen]), np.asarray([a for _, a in chosen]))
        for index, (python, action) in enumerate(chosen):
            expected = python.clone()
            rewards = rules.PHASES[phase].apply(expected, action, np.random.default_rng(0))
            twin = jax_state.to_python(_row_of(after, index), config)
            assert twin == expected, f"{phase.name} point {index}, action {action}"
            np.testing.assert_allclose(np.asarray(earned[index]), np.float32(rewards), rtol=1e-6, atol=0)
            seen.add((phase, Phase(expected.phase)))
            if phase in (Phase.KINGDOM, Phase.TACTIC) and action not in (rules.END_PHASE, rules.NO_TACTIC):
                card = python.tables.kinds[action - python.layout.starts[Kind.PLAY]]
                seen.add(card.effect if card.is_tactic else "static")
            points.append(expected)
            if len(expected.finish_order) > len(python.finish_order):
                seen.add("deck-out")
    return seen


@pytest.mark.soak
@pytest.mark.parametrize("name", ["Generals-v0", "Generals3p-v0"])
def test_resolve_phase_equals_python(name):
    config = _config(name)
    cards = card_arrays(config.pool)
    points = [p for p in _points(name) if p.phase != Phase.OVER]
    after = jax.jit(jax.vmap(functools.partial(jax_rules.resolve_phase, cards, config)))(_stacked(config, points))
    phases = set()
    for index, python in enumerate(points):
        expected = python.clone()
        turn.resolve_phase(expected)
        assert jax_state.to_python(_row_of(after, index), config) == expected, f"point {index}"
        phases.add(Phase(expected.phase))
    assert Phase.DECLARE in phases


ARMY_APPLIES = {
    Phase.ARMY: jax_rules.apply_army,
    Phase.REPLACE_GENERAL: jax_rules.apply_replace_general,
}


def _armed(points, rng):
    """Copies of the ARMY points with one more copy in hand of every unit kind, a budget of
    0-6 and the unit abilities unused (plays to both zones, Generals at the cap, abilities of
    each effect, Soldier discards)."""
    planted = []
    for python in points:
        if python.phase != Phase.ARMY:
            continue
        copy = python.clone()
        player = copy.players[copy.current]
        for kind in copy.tables.unit_kinds:
            player.hand[kind] += 1
        player.budget += int(rng.integers(0, 7))
        player.units = [None if unit is None else unit._replace(ability_used=False) for unit in player.units]
        planted.append(copy)
    return planted


@pytest.mark.soak
@pytest.mark.parametrize("name", ["Generals-v0", "Generals3p-v0", "max_generals=3", "3p placement shaping"])
def test_army_phase_equals_python(name):
    """``apply_army`` (``play_unit``, ``enter_play``, ``activate``, Soldier discards) and
    ``apply_replace_general`` against the Python phase's ``apply`` alone: every legal action of
    every sampled ARMY point, of planted copies, and of the REPLACE_GENERAL states reached."""
    seen = _one_steps(name, ARMY_APPLIES, extra=_armed)
    assert {(Phase.ARMY, Phase.ARMY), (Phase.ARMY, Phase.ATTACK)} <= seen, seen
    if _config(name).max_generals > 1:
        assert {(Phase.ARMY, Phase.REPLACE_GENERAL), (Phase.REPLACE_GENERAL, Phase.ARMY)} <= seen, seen


@pytest.mark.soak
@pytest.mark.parametrize("name", ["Generals-v0", "Generals3p-v0", "Generals4pSlaughter-v0"])
def test_attack_phase_equals_python(name):
    """``apply_attack`` against the Python phase's ``apply`` alone: END_PHASE (``resolve_phase``:
    the hand limit or the end of the turn), moves both ways and attacks on each zone, on every
    legal action of every sampled ATTACK point."""
    seen = _one_steps(name, {Phase.ATTACK: jax_rules.apply_attack})
    assert {(Phase.ATTACK, Phase.ATTACK), (Phase.ATTACK, Phase.BLOCK), (Phase.ATTACK, Phase.DECLARE)} <= seen, seen


@pytest.mark.soak
@pytest.mark.parametrize("name", ["Generals-v0", "Generals3p-v0", "Generals4pSlaughter-v0"])
def test_block_phase_equals_python(name):
    """``apply_block`` (with ``resolve_battle``, ``kill_tests`` and ``_finish_battle`` when the
    tactic window is done) against the Python phase's ``apply`` alone: every legal action of
    every sampled BLOCK point, and of copies with the window done (resolution at once)."""
    seen = _one_steps(name, {Phase.BLOCK: jax_rules.apply_block}, extra=_windows_done)
    assert {(Phase.BLOCK, Phase.BLOCK), (Phase.BLOCK, Phase.TACTIC)} <= seen, seen
    assert seen - {(Phase.BLOCK, Phase.BLOCK), (Phase.BLOCK, Phase.TACTIC)}, seen


def _windows_done(points, rng):
    """Copies of the BLOCK points with the tactic window done and random pumps (each outcome
    of the kill tests)."""
    done = []
    for python in points:
        if python.phase != Phase.BLOCK:
            continue
        copy = python.clone()
        copy.battle.window_done = True
        copy.battle.pumps = [int(x) for x in rng.integers(0, 3, size=4)]
        done.append(copy)
    return done


@pytest.mark.soak
@pytest.mark.parametrize("name", ["Generals-v0", "Generals3p-v0", "Generals4pSlaughter-v0"])
def test_tactic_phase_equals_python(name):
    """``apply_tactic`` (``_play_tactic``, then the defender's turn or ``resolve_battle``) against
    the Python phase's ``apply`` alone: every legal action of the TACTIC points sampled and of
    the windows that the BLOCK points open, each also with every battle tactic of the pool in
    the acting side's hand and money to pay, on the attacker's turn and on the defender's."""
    seen = _one_steps(name, {Phase.TACTIC: jax_rules.apply_tactic}, extra=_tactic_windows)
    assert {(Phase.TACTIC, Phase.TACTIC)} < seen, seen  # the defender's turn, and a resolution
    effects = {"pump_str", "pump_life", "withdraw_self", "remove_enemy"}
    pool_effects = {card.effect for card in _config(name).pool.kinds if card.is_tactic} & effects
    assert pool_effects and pool_effects <= seen, (pool_effects, seen)


def _tactic_windows(points, rng):
    """TACTIC states: the windows the BLOCK points' blocks open (the Python BLOCK apply alone),
    and copies of those and of the sampled TACTIC points, on the attacker's turn and on the
    defender's, with one more copy of every battle tactic in the acting side's hand and a
    budget of 3-8."""
    windows = [python for python in points if python.phase == Phase.TACTIC]
    for python in points:
        if python.phase != Phase.BLOCK:
            continue
        for action in rules.legal_actions(python):
            opened = python.clone()
            rules.PHASES[Phase.BLOCK].apply(opened, action, np.random.default_rng(0))
            if opened.phase == Phase.TACTIC:
                windows.append(opened)
    planted = []
    for python in windows:
        for turn_of in (0, 1):
            copy = python.clone()
            copy.battle.tactic_turn = turn_of
            side = copy.players[copy.battle.attacker if turn_of == 0 else copy.battle.defender]
            for kind in copy.tables.battle_tactic_kinds:
                side.hand[kind] += 1
            side.budget += int(rng.integers(3, 9))
            planted.append(copy)
    return windows + planted


@pytest.mark.soak
@pytest.mark.parametrize("name", ["3p placement shaping"])
def test_apply_action_equals_python(name):
    """``apply_action`` (``do_step`` of every phase, the automatic steps, the final results and
    the decision count) against ``rules.apply_action``: every legal action of every sampled
    point, and of copies one decision short of their ``decision_limit`` (truncation, which whole
    games reach only by the round limit). One config, the one whose rewards sum the most terms
    (placement, shaping): ``test_jax_twin`` plays the whole step on every registered config."""
    config = _config(name)
    cards = card_arrays(config.pool)
    points = [python for python in _points(name) if python.phase != Phase.OVER]
    for python in points[::4]:
        short = python.clone()
        short.decision_limit = short.decisions + 1
        points.append(short)
    chosen = [(python, action) for python in points for action in rules.legal_actions(python)]
    function = jax.jit(jax.vmap(functools.partial(jax_rules.apply_action, cards, config)))
    after, earned = function(_stacked(config, [p for p, _ in chosen]), np.asarray([a for _, a in chosen]))
    phases, outcomes = set(), set()
    for index, (python, action) in enumerate(chosen):
        expected = python.clone()
        rewards = rules.apply_action(expected, action, np.random.default_rng(0))
        twin = jax_state.to_python(_row_of(after, index), config)
        assert twin == expected, f"point {index} ({Phase(python.phase).name}), action {action}"
        np.testing.assert_allclose(np.asarray(earned[index]), np.float32(rewards), rtol=1e-6, atol=1e-7)
        phases.add(Phase(python.phase))
        outcomes.add(rules.outcome_name(expected).split(" (")[0])
    assert {Phase.DECLARE, Phase.KINGDOM, Phase.ARMY, Phase.ATTACK} <= phases, phases
    assert "truncated" in outcomes, outcomes
