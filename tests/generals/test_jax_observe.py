"""The Generals twin's observation (``jax_observe.observe``) and derived numbers
(``jax_derived``) against the Python rules.

- **Equal, bit for bit, for every seat** (the seat to act and every other), jitted and vmapped
  with the seat traced, on states of seeded random legal games of every registered Generals id
  and of ``max_generals=3`` (REPLACE_GENERAL), and on the fresh state before the deal (no deck,
  no empire: "other"). The random policy is uniform over the legal actions, except that in
  ATTACK, BLOCK and TACTIC it takes one of the actions other than the pass most of the time, so
  that battles, tactics and their pumps come up. What the states hold is checked
  (``test_the_games_reach_every_case``): every phase, battles in both zones at every stage with
  pumps, a redirect, a blocker, units taken out, seats out of a game that goes on, every way a
  game ends, fresh Supply Lines, units that may and may not enter the Battlefield, statics and
  auras in the units' numbers, banned kinds.
- **No leak**: a seat's view is unchanged when what it cannot see is drawn again, by the Python
  ``determinize`` and, harder, on the twin's arrays (every other seat's hand, Playing Deck and
  Supply Pile drawn anew at their sizes, its deck id, the order of the seat's own piles, and
  whatever lies past every pile's size); and it changes, in the "my hand" block only, when a
  card of its own hand is another.
- ``jax_derived``'s helpers equal ``rules.derived``'s functions for every seat.

Each config's observation is compiled once (the module-scoped ``twin`` fixture), for batches of
``CHUNK`` (state, seat) pairs stacked on the host.
"""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from empire_envs.games.generals import jax_derived, jax_observe, jax_state, observe, rules  # noqa: E402
from empire_envs.games.generals.cards import STATIC_EFFECTS  # noqa: E402
from empire_envs.games.generals.config import UNIT_SLOTS, GeneralsConfig  # noqa: E402
from empire_envs.games.generals.jax_tables import STATIC_INDEX, TWIN_KEYWORDS, card_arrays  # noqa: E402
from empire_envs.games.generals.state import BF, WC, GeneralsState, Phase  # noqa: E402
from empire_envs.registry import game_entry  # noqa: E402
from tests.generals.helpers import fighting_action  # noqa: E402

#: every registered Generals id and its config kwargs, and max_generals=3 (REPLACE_GENERAL)
CONFIGS = {variant.name: dict(variant.kwargs) for variant in game_entry("generals").variants}
CONFIGS["max_generals=3"] = {"max_generals": 3}
#: games played per config, and how often an ordinary point of a game is kept
GAMES = 8
SAMPLE_EVERY = 12
#: (state, seat) pairs per compiled batch; a config's pairs are padded to a multiple of it
CHUNK = 1024
#: the phases whose every point is kept (the rarer decisions)
SPECIAL = {Phase.BLOCK, Phase.TACTIC, Phase.TARGET_PLAYER, Phase.TARGET_KIND, Phase.REPLACE_GENERAL}


@functools.cache
def _config(name: str) -> GeneralsConfig:
    return GeneralsConfig(**CONFIGS[name])


# --------------------------------------------------------------------------- states to compare


def _fresh(config: GeneralsConfig) -> GeneralsState:
    return GeneralsState(config, config.pool, rules.tables_for(config.pool))


@functools.cache
def _points(name: str) -> tuple[GeneralsState, ...]:
    """The fresh state, then of ``GAMES`` seeded games: every point of a battle or a special
    phase, every ``SAMPLE_EVERY``-th other point (every 4th once a seat is out), each end."""
    config = _config(name)
    points = [_fresh(config)]
    for seed in range(GAMES):
        rng = np.random.default_rng(seed)
        state = rules.new_game(config, rng)
        step = 0
        while state.phase != Phase.OVER:
            every = 4 if not all(player.alive for player in state.players) else SAMPLE_EVERY
            if state.battle is not None or state.phase in SPECIAL or step % every == 0:
                points.append(state.clone())
            rules.apply_action(state, fighting_action(state, rng), rng)
            step += 1
        points.append(state)
    return tuple(points)


# --------------------------------------------------------------------------- the twin, batched


class Twin:
    """Per config: the codec, the blank host state and ``jit(vmap(observe))``, each built once."""

    def __init__(self) -> None:
        self._built: dict[str, tuple] = {}

    def parts(self, name: str) -> tuple:
        if name not in self._built:
            config = _config(name)
            function = jax.jit(jax.vmap(functools.partial(jax_observe.observe, config=config)))
            self._built[name] = (jax_state.make_codec(config), jax_state._host_blank(config), function)
        return self._built[name]

    def host(self, name: str, python: GeneralsState) -> jax_state.State:
        codec, blank, _ = self.parts(name)
        return blank.replace(**codec.from_python(python))

    def views(self, name: str, hosts: list[jax_state.State], seats: list[int]) -> np.ndarray:
        """The twin's observation of each host state for the seat beside it, ``CHUNK`` at a time."""
        function = self.parts(name)[2]
        count = len(hosts)
        padding = -count % CHUNK
        hosts, seats = hosts + [hosts[-1]] * padding, list(seats) + [seats[-1]] * padding
        out = []
        for start in range(0, count + padding, CHUNK):
            batch = jax.tree_util.tree_map(lambda *leaves: np.stack(leaves), *hosts[start : start + CHUNK])
            out.append(np.asarray(function(batch, np.asarray(seats[start : start + CHUNK], dtype=np.int32))))
        return np.concatenate(out)[:count]

    def compiles(self, name: str) -> int:
        return int(self.parts(name)[2]._cache_size())


@pytest.fixture(scope="module")
def twin() -> Twin:
    return Twin()


def _entry_name(config: GeneralsConfig, index: int) -> str:
    """Where entry ``index`` of the observation lies, e.g. ``units[offset 1, slot 3].strength``."""
    k, p = config.pool.size, config.max_seats
    whole = observe.observation_layout(k, p)
    block, first, _ = next(row for row in whole.rows() if row[1] <= index <= row[2])
    inner = {"seats": observe.seat_layout(k), "units": observe.unit_layout(k), "battle": observe.battle_layout(k, p)}
    if block not in inner:
        return f"{block}[{index - first}]"
    layout = inner[block]
    row, at = divmod(index - first, layout.size)
    field = next(name for name, start, stop in layout.rows() if start <= at <= stop)
    where = {"seats": f"[offset {row}]", "units": f"[offset {row // UNIT_SLOTS}, slot {row % UNIT_SLOTS}]"}
    return f"{block}{where.get(block, '')}.{field}"


def assert_same_bits(config: GeneralsConfig, labels: list[str], got: np.ndarray, expected: np.ndarray) -> None:
    assert got.dtype == expected.dtype == np.float32 and got.shape == expected.shape
    differs = got.view(np.uint32) != expected.view(np.uint32)  # bits: -0.0 is not 0.0 here
    wrong = np.flatnonzero(differs.any(axis=1))
    if wrong.size:
        first = wrong[0]
        entries = np.flatnonzero(differs[first])[:6]
        shown = [(_entry_name(config, int(e)), float(got[first, e]), float(expected[first, e])) for e in entries]
        pytest.fail(
            f"{wrong.size} of {len(labels)} views differ; the first, {labels[first]}: (entry, twin, python) {shown}"
        )


def _label(python: GeneralsState, seat: int) -> str:
    return f"seat {seat} in phase {Phase(python.phase).name}, round {python.round}, turn player {python.current}"


# --------------------------------------------------------------------------- equal to Python


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_seat_sees_what_python_shows(twin, name):
    config = _config(name)
    points = _points(name)
    hosts = [twin.host(name, python) for python in points]
    pairs = [(i, seat) for i in range(len(points)) for seat in range(config.num_players)]
    got = twin.views(name, [hosts[i] for i, _ in pairs], [seat for _, seat in pairs])
    expected = np.stack([observe.observe(points[i], seat) for i, seat in pairs])
    assert got.shape == (len(pairs), jax_observe.observation_size(config)) == (len(pairs), jax_state.sizes(config)["O"])
    assert_same_bits(config, [_label(points[i], seat) for i, seat in pairs], got, expected)
    assert twin.compiles(name) == 1


def _facts(python: GeneralsState) -> set[str]:
    """What a state holds that the observation shows."""
    facts = {Phase(python.phase).name}
    battle = python.battle
    if battle is not None:
        facts.add(f"battle in {Phase(python.phase).name} {('BF', 'WC')[battle.zone]} turn {battle.tactic_turn}")
        facts |= {"pumps"} if any(battle.pumps) else set()
        facts |= {"redirected"} if battle.redirected else set()
        facts |= {"blocker"} if battle.blocker >= 0 else set()
        facts |= {"attacker taken out"} if battle.a_out else set()
        facts |= {"blocker taken out"} if battle.b_out else set()
        facts |= {"attacker tactic"} if battle.tactics[0] >= 0 else set()
        facts |= {"defender tactic"} if battle.tactics[1] >= 0 else set()
    if python.phase == Phase.OVER:
        facts.add(f"over: {python.outcome.name} {python.victory}")
    elif not all(player.alive for player in python.players):
        facts.add("a seat out, the game on")
    facts |= {"banned"} if python.banned else set()
    facts |= {"no empire"} if any(player.empire == "" for player in python.players) else set()
    for seat, player in enumerate(python.players):
        if not player.alive:
            continue
        facts |= {"fresh Supply Line"} if any(player.supply_fresh) else set()
        facts |= {"strategy"} if player.strategy >= 0 else set()
        facts |= {"capitol"} if player.capitol >= 0 else set()
        facts |= {"negative CH"} if player.ch < 0 else set()
        facts |= {"ability used"} if any(u is not None and u.ability_used for u in player.units) else set()
        flags, numbers = rules.bf_entry_flags(python, seat), rules.unit_numbers(python, seat)
        for unit, flag, pair in zip(player.units, flags, numbers, strict=True):
            if unit is None or pair is None:
                continue
            card = python.tables.kinds[unit.kind]
            facts.add(f"may enter {flag}" if unit.zone == WC else "in the Battlefield")
            facts |= {"entered this turn, may enter"} if flag and unit.entered_turn >= player.turns_taken else set()
            facts |= (
                {"strength bonus"} if pair[0] != card.strength + (card.field_str if unit.zone == BF else 0) else set()
            )
            facts |= {"life bonus"} if pair[1] != card.life + (card.camp_life if unit.zone == WC else 0) else set()
    return facts


def test_the_games_reach_every_case():
    seen: Counter[str] = Counter()
    for name in CONFIGS:
        for python in _points(name):
            seen.update(_facts(python))
    wanted = {phase.name for phase in Phase} | {
        "battle in BLOCK BF turn 0",
        "battle in BLOCK WC turn 0",
        "battle in TACTIC BF turn 0",
        "battle in TACTIC BF turn 1",
        "battle in TACTIC WC turn 0",
        "battle in TACTIC WC turn 1",
        "pumps",
        "redirected",
        "blocker",
        "attacker taken out",
        "blocker taken out",
        "attacker tactic",
        "over: WON warlord",
        "over: WON chancellor",
        "over: TRUNCATED ",
        "a seat out, the game on",
        "banned",
        "no empire",
        "fresh Supply Line",
        "strategy",
        "capitol",
        "negative CH",
        "ability used",
        "may enter True",
        "may enter False",
        "entered this turn, may enter",
        "in the Battlefield",
        "strength bonus",
        "life bonus",
    }
    assert wanted <= set(seen), sorted(wanted - set(seen))


# --------------------------------------------------------------------------- no leak


def _redrawn(host: jax_state.State, seat: int, config: GeneralsConfig, rng: np.random.Generator) -> jax_state.State:
    """``host`` with what ``seat`` cannot see drawn again on the twin's arrays: the other seats'
    hands (their sizes kept), Playing Decks and Supply Piles (at their sizes) and deck ids, the
    order of the seat's own piles, and every entry past a pile's size."""
    k, decks = config.pool.size, len(jax_state.deck_ids(config))
    hand, deck_id = host.hand.copy(), host.deck_id.copy()
    piles = {"playing_deck": host.playing_deck.copy(), "supply_pile": host.supply_pile.copy()}
    sizes = {"playing_deck": host.playing_size, "supply_pile": host.supply_size}
    for other in range(config.num_players):
        for name, pile in piles.items():
            size = int(sizes[name][other])
            pile[other, size:] = rng.integers(0, k, pile.shape[1] - size)
            pile[other, :size] = rng.permutation(pile[other, :size]) if other == seat else rng.integers(0, k, size)
        if other != seat:
            hand[other] = np.bincount(rng.integers(0, k, int(hand[other].sum())), minlength=k)
            deck_id[other] = rng.integers(0, decks)
    return host.replace(hand=hand, deck_id=deck_id, **piles)


def _own_card_swapped(host: jax_state.State, seat: int, rng: np.random.Generator) -> tuple[jax_state.State, set[int]]:
    """``host`` with one card of ``seat``'s hand another kind, and the two kinds."""
    hand = host.hand.copy()
    held = np.flatnonzero(hand[seat])
    old = int(rng.choice(held))
    new = int(rng.choice(np.setdiff1d(np.arange(hand.shape[1]), [old])))
    hand[seat, old] -= 1
    hand[seat, new] += 1
    return host.replace(hand=hand), {old, new}


@pytest.mark.parametrize("name", ["Generals-v0", "Generals4p-v0"])
def test_a_seat_sees_nothing_it_cannot_see(twin, name):
    config = _config(name)
    n = config.num_players
    points = [p for p in _points(name)[1::5] if p.phase != Phase.OVER][:50]
    rng = np.random.default_rng(3)
    originals, determinized, redrawn, swapped, labels, changed = [], [], [], [], [], []
    for python in points:
        host = twin.host(name, python)
        for seat in range(n):
            originals.append(host)
            determinized.append(twin.host(name, rules.determinize(python, seat, rng)))
            redrawn.append(_redrawn(host, seat, config, rng))
            if python.players[seat].hand.count(0) < len(python.players[seat].hand):
                other, kinds = _own_card_swapped(host, seat, rng)
                swapped.append((len(labels), other))
                changed.append(kinds)
            labels.append(_label(python, seat))
    seats = [seat for _ in points for seat in range(n)]
    swap_rows = [row for row, _ in swapped]
    views = twin.views(
        name,
        originals + determinized + redrawn + [other for _, other in swapped],
        seats * 3 + [seats[row] for row in swap_rows],
    )
    count = len(originals)
    base = views[:count]
    assert_same_bits(config, labels, views[count : 2 * count], base)
    assert_same_bits(config, labels, views[2 * count : 3 * count], base)
    # a card of my own hand changed: exactly those two entries of "my hand" differ
    hand_block = observe.observation_layout(config.pool.size, config.max_seats)["my hand"]
    assert len(swapped) > count // 2
    for view, row, kinds in zip(views[3 * count :], swap_rows, changed, strict=True):
        differs = set(np.flatnonzero(view != base[row]).tolist())
        assert differs == {hand_block.start + kind for kind in kinds}, labels[row]
    assert twin.compiles(name) == 1


# --------------------------------------------------------------------------- the derived numbers


def _derived(state, config: GeneralsConfig) -> dict:
    cards = card_arrays(config.pool)
    n, k = config.num_players, config.pool.size
    totals = jax_derived.static_totals(cards, state)
    every_kind = jax.numpy.broadcast_to(jax.numpy.arange(k), (n, k))
    return {
        "statics": totals,
        "keywords": jax.numpy.stack(
            [jax_derived.has_keyword(cards, totals, every_kind, word) for word in TWIN_KEYWORDS], axis=-1
        ),
        "obeys pull": jax_derived.obeys_pull(cards, totals, every_kind),
        "may enter": jax_derived.bf_entry_flags(cards, state),
        "numbers": jax.numpy.stack(jax_derived.unit_numbers(cards, state), axis=-1),
        "attacking": jax_derived.unit_strength(cards, state, attacking=True),
        "blocking": jax_derived.unit_life(cards, state, blocking=True),
        "costs": jax_derived.effective_costs(cards, state),
        "ready": jax_derived.ready_value(cards, state),
        "fresh": jax_derived.fresh_value(cards, state),
        "money": jax_derived.money(cards, state),
        "can pay": jax_derived.can_pay(cards, state, jax_derived.money(cards, state)[:, None] + np.arange(-1, 2)),
        "hand limit": jax_derived.hand_limit(cards, state),
        "generals": jax_derived.generals_in_play(cards, state),
        "free slot": jax_derived.free_slot(state),
        "opponents": jax.numpy.stack([jax_derived.opponents_in_game(state, seat) for seat in range(n)]),
        "static total": jax_derived.static_total(cards, state, "harvest"),
    }


def _python_derived(python: GeneralsState) -> dict:
    n, k = python.num_players, python.pool.size

    def slots(seat: int, read, empty) -> list:
        return [empty if unit is None else read(slot) for slot, unit in enumerate(python.players[seat].units)]

    seats = range(n)
    order = sorted(STATIC_INDEX, key=STATIC_INDEX.__getitem__)
    assert set(order) == set(STATIC_EFFECTS)
    money = [rules.money(python, s) for s in seats]
    return {
        "statics": [[rules.statics(python, s)[effect] for effect in order] for s in seats],
        "keywords": [
            [[rules.has_keyword(python, s, kind, w) for w in TWIN_KEYWORDS] for kind in range(k)] for s in seats
        ],
        "obeys pull": [[rules.obeys_pull(python, s, kind) for kind in range(k)] for s in seats],
        "may enter": [rules.bf_entry_flags(python, s) for s in seats],
        "numbers": [[pair or (0, 0) for pair in rules.unit_numbers(python, s)] for s in seats],
        "attacking": [
            slots(s, lambda slot, s=s: rules.unit_strength(python, s, slot, attacking=True), 0) for s in seats
        ],
        "blocking": [slots(s, lambda slot, s=s: rules.unit_life(python, s, slot, blocking=True), 0) for s in seats],
        "costs": [[rules.effective_cost(python, s, kind) for kind in range(k)] for s in seats],
        "ready": [rules.ready_value(python, s) for s in seats],
        "fresh": [rules.fresh_value(python, s) for s in seats],
        "money": money,
        "can pay": [[rules.can_pay(python, s, money[s] + d) for d in (-1, 0, 1)] for s in seats],
        "hand limit": [rules.hand_limit(python, s) for s in seats],
        "generals": [[slot in rules.generals_in_play(python, s) for slot in range(UNIT_SLOTS)] for s in seats],
        "free slot": [rules.free_slot(python.players[s]) for s in seats],
        "opponents": [[other in rules.opponents_in_game(python, s) for other in seats] for s in seats],
        "static total": [rules.static_total(python, s, "harvest") for s in seats],
    }


def test_derived_numbers_equal_python():
    name = "Generals4p-v0"
    config = _config(name)
    points = list(_points(name)[::3])
    codec, blank = jax_state.make_codec(config), jax_state._host_blank(config)
    hosts = [blank.replace(**codec.from_python(python)) for python in points]
    batch = jax.tree_util.tree_map(lambda *leaves: np.stack(leaves), *hosts)
    got = jax.jit(jax.vmap(functools.partial(_derived, config=config)))(batch)
    statics = np.zeros(len(STATIC_EFFECTS), dtype=bool)
    for index, python in enumerate(points):
        expected = _python_derived(python)
        for key, value in expected.items():
            assert np.array_equal(np.asarray(got[key][index]), np.asarray(value)), (key, _label(python, -1))
        statics |= np.asarray(expected["statics"]).any(axis=0)
    # the games put every static effect the pool has into play, the two grants among them
    in_pool = np.array([any(getattr(kind, effect) for kind in config.pool.kinds) for effect in STATIC_EFFECTS])
    assert statics[in_pool].all() and in_pool[[STATIC_INDEX["grant_raider"], STATIC_INDEX["grant_no_pull"]]].all()


def test_the_quotient_tables_hold_python_quotients():
    """Every entry of the CH and target tables is the Python float64 quotient as float32, one row
    per game type's target; the CH rows run from the lowest elimination line past the highest
    target (what a seat in the game can hold under any target)."""
    assert jax_observe.TARGETS == (3, 5, 8)
    low, table = jax_observe.ch_quotients()
    assert low == -8 and table.dtype == np.float32 and table.shape[0] == 3 and table.shape[1] > 16
    for row, target in enumerate(jax_observe.TARGETS):
        assert all(table[row, i] == np.float32((low + i) / target) for i in range(table.shape[1]))
        assert jax_observe.target_tenths()[row] == np.float32(target / 10.0)
