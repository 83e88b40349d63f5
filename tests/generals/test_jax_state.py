"""The Generals twin's state (``jax_state``) against the Python ``GeneralsState``.

- Round trip: ``to_python(host_state(s)) == s`` (the state's own equality, and every field of
  the same type: ``array("H")`` counts, enums, ``Unit`` slots, frozensets) at sampled points of
  random legal games of every registered Generals id and of two configs no id registers
  (``max_generals=3`` for REPLACE_GENERAL, 4 seats with ``reward_scheme="placement"`` whose
  rewards a float32 cannot hold); every point of a special phase (BLOCK, TACTIC, TARGET_PLAYER,
  TARGET_KIND, DISCARD_HAND, REPLACE_GENERAL), of a battle or with an ability used is taken,
  and the end. There the pgx
  fields are the Python seat to act, mask and observation, every leaf has the blank state's
  dtype and shape, and converting back again gives the same twin state. The games reach every
  such case (a test fails if one never occurred), and two-step battles.
- Shared places after a Chancellor victory (``rules.scoring``): the rules' exact doubles come back.
- The device path (``from_python``) jits and stacks; the fresh state is the blank state.
- Refusals: a pile longer than the twin's ``P`` or ``S`` (and a full one passes), a foreign deck,
  an empire not its deck's, a final reward not its place's, a third battle step, a victory name,
  a decision limit past int32; a Python field with no twin field fails when the codec is built.
- The docstring's field table lists every field of ``State`` in order, with its dtype and shape.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from array import array

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402

from empire_envs.core.jax_game import PGX_FIELDS  # noqa: E402
from empire_envs.core.state import SHARED, VALUE, DeclaredState  # noqa: E402
from empire_envs.games.generals import jax_state, observe, rules  # noqa: E402
from empire_envs.games.generals.config import GeneralsConfig  # noqa: E402
from empire_envs.games.generals.jax_state import host_state, to_python  # noqa: E402
from empire_envs.games.generals.rules import scoring  # noqa: E402
from empire_envs.games.generals.state import Battle, GeneralsState, Phase, PlayerState  # noqa: E402
from empire_envs.registry import game_entry  # noqa: E402

from ..doc_tables import rest_tables  # noqa: E402

#: every registered Generals id and its config kwargs
REGISTERED = {variant.name: dict(variant.kwargs) for variant in game_entry("generals").variants}
EXPECTED_IDS = {
    "Generals-v0",
    "GeneralsQuick-v0",
    "GeneralsEpic-v0",
    "GeneralsSlaughter-v0",
    "Generals3p-v0",
    "Generals4p-v0",
    "Generals4pSlaughter-v0",
}
#: configs no id registers: REPLACE_GENERAL needs max_generals > 1; placement rewards of 4 seats
#: are thirds, which no float32 holds
EXTRA = {
    "max_generals=3": {"max_generals": 3},
    "4p placement": {"num_players": 4, "reward_scheme": "placement", "game_type": "quick"},
}
CONFIGS = {**REGISTERED, **EXTRA}
GAMES = 2
#: phases every point of which is converted (of the others, every SAMPLE_EVERY-th point)
SPECIAL = {Phase.BLOCK, Phase.TACTIC, Phase.TARGET_PLAYER, Phase.TARGET_KIND, Phase.DISCARD_HAND, Phase.REPLACE_GENERAL}
SAMPLE_EVERY = 10


@functools.cache
def _config(name: str) -> GeneralsConfig:
    return GeneralsConfig(**CONFIGS[name])


@functools.cache
def _played(name: str) -> tuple[GeneralsState, ...]:
    """Snapshots of ``GAMES`` random legal games of a config: sampled points, every point of a
    special phase, of a battle or with an ability used, each game's end."""
    config = _config(name)
    points = []
    for seed in range(GAMES):
        rng = np.random.default_rng(seed)
        state = rules.new_game(config, rng)
        step = 0
        while state.phase != Phase.OVER:
            used = any(u is not None and u.ability_used for player in state.players for u in player.units)
            if step % SAMPLE_EVERY == 0 or state.phase in SPECIAL or state.battle is not None or used:
                points.append(state.clone())
            legal = rules.legal_actions(state)
            rules.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
            step += 1
        points.append(state)
    return tuple(points)


def _assert_same(back, python, where: str = "state") -> None:
    """Equal, and of the same type all the way down (``==`` alone takes 1 for True, a list for
    an array, an int for an enum)."""
    assert type(back) is type(python), f"{where}: {type(back).__name__} != {type(python).__name__}"
    if isinstance(python, DeclaredState):
        for name, kind in type(python).FIELDS.items():
            if kind == SHARED:
                assert getattr(back, name) == getattr(python, name), f"{where}.{name}"
            else:
                _assert_same(getattr(back, name), getattr(python, name), f"{where}.{name}")
    elif isinstance(python, (list, tuple)):
        assert len(back) == len(python), f"{where}: {back!r} != {python!r}"
        for index, (a, b) in enumerate(zip(back, python, strict=True)):
            _assert_same(a, b, f"{where}[{index}]")
    elif isinstance(python, array):
        assert back.typecode == python.typecode and back == python, f"{where}: {back!r} != {python!r}"
    else:
        assert back == python, f"{where}: {back!r} != {python!r}"


def _leaves_equal(a: jax_state.State, b: jax_state.State) -> bool:
    return all(
        np.array_equal(np.asarray(x), np.asarray(y))
        for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True)
    )


def _check_point(python: GeneralsState) -> None:
    config = python.config
    host = host_state(python)
    blank = jax_state._host_blank(config)
    for field in dataclasses.fields(jax_state.State):
        value, like = getattr(host, field.name), getattr(blank, field.name)
        assert (value.dtype, value.shape) == (like.dtype, like.shape), field.name
    back = to_python(host, config)
    assert back == python
    _assert_same(back, python)
    over = python.phase == Phase.OVER
    seat = python.current if over else python.acting_player()
    assert int(host.current_player) == seat
    assert np.array_equal(host.legal_action_mask, rules.legal_mask(python).astype(bool))
    assert not over or not host.legal_action_mask.any()
    assert np.array_equal(host.observation, observe.observe(python, seat))
    assert bool(host.terminated) == (python.outcome == rules.WON)
    assert bool(host.truncated) == (python.outcome == rules.TRUNCATED)
    assert not host.rewards.any() and int(host.step_count) == 0
    assert _leaves_equal(host_state(back), host)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_round_trip_at_sampled_points_of_random_games(name):
    for python in _played(name):
        _check_point(python)


def test_the_sampled_games_reach_every_case():
    assert set(REGISTERED) >= EXPECTED_IDS
    seen: set[str] = set()
    for name in CONFIGS:
        for python in _played(name):
            seen.add(Phase(python.phase).name)
            battle = python.battle
            if battle is not None:
                seen.add("battle")
                seen |= {f"battle step {len(battle.outcomes)}"} | ({"redirected"} if battle.redirected else set())
                seen |= {"blocker"} if battle.blocker >= 0 else set()
                seen |= {"tactic played"} if max(battle.tactics) >= 0 else set()
            if python.last_battle:
                seen.add(f"last battle of {len(python.last_battle[2])} steps")
            if python.banned:
                seen.add("banned")
            for player in python.players:
                seen |= {"banned at harvest"} if player.banned_at_harvest else set()
                seen |= {"ability used"} if any(u is not None and u.ability_used for u in player.units) else set()
                seen |= {"out"} if not player.alive else set()
                seen |= {"inexact reward"} if player.final_reward != float(np.float32(player.final_reward)) else set()
            if python.phase == Phase.OVER:
                seen.add(f"over: {python.outcome.name} {python.victory}")
    wanted = {phase.name for phase in Phase} | {
        "battle",
        "battle step 0",
        "battle step 1",
        "redirected",
        "blocker",
        "tactic played",
        "last battle of 1 steps",
        "last battle of 2 steps",
        "banned",
        "banned at harvest",
        "ability used",
        "out",
        "inexact reward",
        "over: WON warlord",
        "over: WON chancellor",
        "over: TRUNCATED ",
    }
    assert wanted <= seen, sorted(wanted - seen)


@pytest.mark.parametrize("players, eliminated", [(4, [1]), (4, []), (3, []), (4, [1, 2])])
@pytest.mark.parametrize("scheme", ["placement", "win_loss"])
def test_shared_places_after_a_chancellor_victory_come_back_exact(players, eliminated, scheme):
    """The seats still in share the places left open (``scoring._chancellor_victory``), some
    seats eliminated first: their mean reward is a double no float32 holds, and one float32 can
    stand for two such doubles (-1/3 as place 3 of 4, and as places 2-4 shared)."""
    config = GeneralsConfig(num_players=players, reward_scheme=scheme)
    rng = np.random.default_rng(7)
    python = rules.new_game(config, rng)
    for _ in range(40):
        legal = rules.legal_actions(python)
        rules.apply_action(python, legal[int(rng.integers(len(legal)))], rng)
    assert all(player.alive for player in python.players)
    earned = scoring.no_rewards(python)
    for seat in eliminated:
        scoring.eliminate(python, seat)
    python.players[0].ch = config.target - 1
    scoring.change_ch(python, 0, 1, earned)
    assert python.phase == Phase.OVER and python.victory == "chancellor"
    places = [player.place for player in python.players]
    sharers = [seat for seat in range(players) if seat != 0 and seat not in eliminated]
    assert places[0] == 1 and len({places[seat] for seat in sharers}) == 1
    _check_point(python)
    table = jax_state.final_reward_table(config)
    host = host_state(python)
    assert host.final_reward.tolist() == [np.float32(table[p, places.count(p)]) for p in places]


def test_the_device_state_jits_and_stacks():
    config = _config("Generals3p-v0")
    points = _played("Generals3p-v0")[::25][:3]
    states = [jax_state.from_python(python) for python in points]
    assert all(isinstance(leaf, jax.Array) for leaf in jax.tree_util.tree_leaves(states[0]))
    same = jax.jit(lambda state: state.replace(step_count=state.step_count + 1))(states[0])
    assert int(same.step_count) == 1 and to_python(same, config) == points[0]
    # stacked and sliced on the host (op-by-op on the device compiles each leaf's shape)
    batch = jax.device_put(jax.tree_util.tree_map(lambda *leaves: np.stack([np.asarray(x) for x in leaves]), *states))
    totals = jax.vmap(lambda state: state.hand.sum(dtype=jnp.int32))(batch)
    for index, python in enumerate(points):
        one = jax.tree_util.tree_map(lambda leaf, i=index: np.asarray(leaf)[i], batch)
        assert to_python(one, config) == python
        assert int(totals[index]) == sum(sum(player.hand) for player in python.players)


def test_the_blank_state_is_the_twin_of_a_fresh_state():
    """``_host_blank`` (the dtypes' one place) holds what a fresh ``GeneralsState`` converts to;
    the fresh state's decision limit ("none", 1 << 62) is the twin's -1 and comes back."""
    for settings in ({}, {"num_players": 4, "max_generals": 2}):
        config = GeneralsConfig(**settings)
        fresh = GeneralsState(config, config.pool, rules.tables_for(config.pool))
        host, blank = host_state(fresh), jax_state._host_blank(config)
        for field in dataclasses.fields(jax_state.State):
            if field.name not in PGX_FIELDS:
                assert np.array_equal(getattr(host, field.name), getattr(blank, field.name)), field.name
        assert int(host.decision_limit) == jax_state.NO_LIMIT
        _assert_same(to_python(host, config), fresh)


def _midgame(name: str = "Generals-v0") -> GeneralsState:
    python = next(p for p in _played(name) if p.phase == Phase.KINGDOM and p.round > 2)
    return python.clone()


def test_a_pile_longer_than_the_twin_holds_is_refused():
    config = _config("Generals-v0")
    sizes = jax_state.sizes(config)
    for attribute, pile, size in (("playing_deck", "Playing Deck", "P"), ("supply_pile", "Supply Pile", "S")):
        python = _midgame()
        player = python.players[1]
        setattr(player, attribute, [0] * sizes[size])  # a full pile fits
        assert to_python(host_state(python), config) == python
        setattr(player, attribute, [0] * (sizes[size] + 1))
        expected = f"seat 1's {pile} holds {sizes[size] + 1} cards, more than the twin's {size} = {sizes[size]}"
        with pytest.raises(ValueError, match=re.escape(expected)):
            host_state(python)


def _refused(change, match: str) -> None:
    python = _midgame()
    change(python)
    with pytest.raises(ValueError, match=match):
        host_state(python)


def test_values_the_twin_cannot_hold_are_refused():
    _refused(lambda s: setattr(s.players[0], "deck_id", "atlantis"), "deck 'atlantis' is none of the config's decks")
    _refused(lambda s: setattr(s.players[0], "empire", "atlantis"), "empire 'atlantis' is not its deck's")
    _refused(lambda s: setattr(s.players[0], "final_reward", 0.5), "final_reward 0.5 is not the rules' reward")
    _refused(lambda s: setattr(s, "victory", "diplomat"), "victory 'diplomat' is none of")
    _refused(lambda s: setattr(s, "decision_limit", 2**31), "decision_limit 2147483648 does not fit")
    three = ((rules.BF, 1), (rules.WC, 1), (rules.WC, 3))
    _refused(lambda s: setattr(s, "last_battle", (0, 1, three)), "last_battle holds 3 outcome steps")

    def battle_of_three_steps(python: GeneralsState) -> None:
        python.battle = Battle(0, 0, 1, rules.WC)
        python.battle.outcomes = list(three)

    _refused(battle_of_three_steps, "the battle holds 3 outcome steps; a battle has at most 2")


@pytest.mark.parametrize("cls", [PlayerState, Battle, GeneralsState])
def test_a_python_field_without_a_twin_field_fails_when_the_codec_is_built(cls, monkeypatch):
    monkeypatch.setattr(cls, "FIELDS", {**cls.FIELDS, "morale": VALUE})
    with pytest.raises(TypeError, match="morale"):
        jax_state._build_codec(_config("Generals-v0"))


@pytest.mark.parametrize("name", ["Generals-v0", "Generals4p-v0"])
def test_the_field_table_lists_every_field_with_its_dtype_and_shape(name):
    config = _config(name)
    symbols = jax_state.sizes(config)
    blank = jax_state._host_blank(config)
    (rows,) = rest_tables(jax_state.__doc__)
    documented = [(cells[0].strip("`"), cells[1]) for cells in rows]
    assert [field for field, _ in documented] == [field.name for field in dataclasses.fields(jax_state.State)]
    for field, spec in documented:
        match = re.fullmatch(r"([a-z]+\d*)(?:\[(.*)\])?", spec)
        assert match, (field, spec)
        shape = tuple(symbols[d] if d in symbols else int(d) for d in (match[2] or "").replace(" ", "").split(",") if d)
        value = getattr(blank, field)
        assert (str(value.dtype), value.shape) == (match[1], shape), field
