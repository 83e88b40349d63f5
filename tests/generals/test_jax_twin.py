"""The Generals twin plays exactly the Python rules, whole games (issue 30).

Every registered Generals id is played through ``tests.jax_twins`` with the registered twin
(``empire_envs.jax.make``): the twin deals (the Python rules get the same decks, shuffles and
first player, ``jax_rules.python_deal_draws``), then at every step every seat's observation,
``state.observation``, the mask, the seat to act, every seat's reward, terminated, truncated and
the outcome (the winner and the victory) are compared.

The games mix three policies (by game index): the Generals heuristic at every seat, uniformly
random masked play, and a bold random play that prefers acting to passing (``_bold``: it ends
games by victory far more often than uniform play, whose games run long and are truncated).
Together the ids reach both victories and truncation (checked).

``make test`` plays ``GAMES_PER_ID`` games of every id (301 in all) and a generated card pool.
The ids share compiled programs (``_twin``): the configs that differ only in game type,
Slaughterhouse and length limit have one step and one view (``jax_rules.program_config``), so
the seven ids compile three steps (2, 3 and 4 seats, some 30 s each with its tracing) and seven
deals. The four shipped decks in every ordered pairing (mirrors allowed) with the flags that
change the rules of a 2-seat game, and 3 seats with placement rewards, are soak tests with the
rest: ``pytest -m soak`` also plays ``SOAK_GAMES_PER_ID`` games of every id (20,006 in all), and 50
generated card pools (``tests.generals.pools``: every number and word of each card drawn again
within the loader's vocabulary; every other pool with four decks generated for it, the rest with
the shipped decks), 8 games each; ``make test`` plays the first, on generated decks.

The step and the every-seat view are compiled at XLA's backend optimisation level 2 here
(``STEP_OPTIONS``): a Generals game is hundreds of steps, and at the suite's level 0 the step
runs about eight times slower (94 ms against 11 ms per batched step of 43 games), which costs
more than the 15 s of compile it saves; level 3 compiles some 5 s longer for no faster a step.
The view of every seat is read at every step as well: at level 2 the 43 games of Generals4p-v0
spend 2.9 CPU s in it instead of 17.3 s, for some 4 s more of compile once per program.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import empire_envs  # noqa: E402
import empire_envs.jax as empire_jax  # noqa: E402
from empire_envs.agents.base import make_agent  # noqa: E402
from empire_envs.games.generals import jax_rules, jax_state  # noqa: E402
from empire_envs.games.generals.actions import Kind  # noqa: E402
from empire_envs.games.generals.jax_state import deck_ids  # noqa: E402
from tests.generals.helpers import DECLINING  # noqa: E402
from tests.generals.pools import random_deck_files, random_pool_file  # noqa: E402
from tests.jax_twins import (  # noqa: E402
    LockstepReport,
    Twin,
    agent_policy,
    compile_twin,
    play_lockstep,
    random_policy,
)

GENERALS_IDS = [item.env_id for item in empire_envs.ENTRIES if item.game == "generals"]
#: 43 games of each of the seven ids: 301 in all
GAMES_PER_ID = 43
#: the soak's games per id: 2,858 (20,006 in all), some 4 CPU hours; ``GENERALS_SOAK_GAMES``
#: sets fewer for a shorter run (the 20,000-game check then skips)
SOAK_GAMES_PER_ID = int(os.environ.get("GENERALS_SOAK_GAMES", "2858"))
SOAK_BATCH = 128
STEP_OPTIONS = {"xla_backend_optimization_level": 2}
#: the flags that change a 2-seat game's rules, on random decks with mirrors (every pairing)
PAIRINGS_FLAGS = {
    "allow_mirror": True,
    "max_generals": 3,
    "shaping": 0.05,
    "deckout_loses": True,
    "draw_mode": "both",
    "attack_transfer": True,
}
#: 3 seats paid by place, playing on for second place
PLACEMENT_FLAGS = {"num_players": 3, "reward_scheme": "placement", "play_for_second": True, "shaping": 0.05}
#: the actions that decline to act: a pass of the turn and the declines of the fights (the first
#: actions of every table, whatever the pool)
PASSIVE = np.array(sorted(DECLINING | {Kind.PASS}))
#: generated card pools (``tests.generals.pools``): ``make test`` plays the first, the soak all
POOL_SEEDS = range(50)
POOL_GAMES = 8
REPORTS: dict[str, LockstepReport] = {}
#: the compiled twins by (step, view, batch, step options): ``_twin``'s programs
PROGRAMS: dict[tuple, Twin] = {}
SOAK_REPORTS: dict[str, LockstepReport] = {}


@functools.cache
def _twin(env_id: str, batch: int, flags: tuple = (), step_options: tuple | None = tuple(STEP_OPTIONS.items())):
    """The registered twin of ``env_id`` with ``flags``, its step and views compiled once for
    every config of one ``jax_rules.program_config``: those configs' twins have the very same
    step and view functions (the game type, Slaughterhouse and length limit are read from the
    state their own deal fills), so the program compiled for the first serves the others, and a
    twin that read one of them from the config would fail the lockstep of the others."""
    env = empire_jax.make(env_id, **dict(flags))
    key = (env.rules.step, env.rules.observe, batch, step_options)
    if key not in PROGRAMS:
        PROGRAMS[key] = compile_twin(env, batch, None if step_options is None else dict(step_options))
    shared = PROGRAMS[key]
    assert (env.num_actions, env.num_players, env.illegal_action_penalty, env.max_episode_steps) == (
        shared.env.num_actions,
        shared.env.num_players,
        shared.env.illegal_action_penalty,
        shared.env.max_episode_steps,
    )
    if shared.env is env:
        return shared
    init = compile_twin(env, batch).init
    return dataclasses.replace(
        shared, env=env, init=init, python_draws=env.rules.python_draws, reshuffle_orders=env.rules.reshuffle_orders
    )


def _play_generated_pool(seed: int, folder) -> LockstepReport:
    """``POOL_GAMES`` games on the generated pool ``seed``: with the shipped decks for an odd
    seed, with four decks generated for the pool for an even one, drawn at random (the step at
    the suite's optimisation level: a few games do not repay level 2's compile)."""
    pool = random_pool_file(seed, folder)
    flags: tuple = (("card_pool", str(pool)),)
    if seed % 2 == 0:
        flags += (("deck_files", tuple(str(path) for path in random_deck_files(pool, seed, folder))),)
    twin = _twin("Generals-v0", POOL_GAMES, flags, None)
    report = play_lockstep("empire_envs/Generals-v0", _mixed(), POOL_GAMES, seed=seed, twin=twin)
    assert report.games == POOL_GAMES
    return report


def _bold(state, mask, seat, index, rng) -> int:
    """Random play that acts (plays, attacks, blocks, activates) nine times in ten when it can."""
    legal = np.flatnonzero(mask)
    acting = np.setdiff1d(legal, PASSIVE)
    if len(acting) and rng.random() < 0.9:
        return int(rng.choice(acting))
    return int(rng.choice(legal))


def _mixed():
    """Game ``i``: the heuristic at every seat when ``i % 8 == 7``, uniform random play when
    ``i % 4 == 2``, else ``_bold``."""
    heuristic = agent_policy(lambda: make_agent("heuristic", "generals"))

    def act(state, mask, seat, index, rng):
        chosen = heuristic if index % 8 == 7 else random_policy if index % 4 == 2 else _bold
        return chosen(state, mask, seat, index, rng)

    return act


def _keys_for_every_pairing(flags: dict, repeats: int = 1) -> np.ndarray:
    """Deal keys, ``repeats`` for each ordered pairing of the shipped decks (mirrors included):
    found by drawing the twin's own deck choice (``jax_rules.deal_orders``) for candidate keys."""
    config = empire_jax.make("empire_envs/Generals-v0", **flags).rules.config
    count = len(deck_ids(config))
    candidates = np.asarray(jax.random.split(jax.random.PRNGKey(2026), 4_096), np.uint32)
    choices = np.asarray(jax.jit(jax.vmap(lambda key: jax_rules.deal_orders(config, key)["choice"]))(candidates))
    chosen = []
    for pairing in itertools.product(range(count), repeat=2):
        rows = np.flatnonzero((choices == np.asarray(pairing)).all(axis=1))[:repeats]
        assert len(rows) == repeats, f"no {repeats} deals of pairing {pairing} among the candidates"
        chosen.extend(candidates[rows])
    return np.asarray(chosen, np.uint32)


@pytest.mark.parametrize("env_id", GENERALS_IDS)
def test_twin_plays_every_id_step_for_step(env_id):
    report = play_lockstep(env_id, _mixed(), GAMES_PER_ID, seed=11, twin=_twin(env_id, GAMES_PER_ID))
    print(env_id, report)
    assert report.games == GAMES_PER_ID and report.steps > GAMES_PER_ID * 20
    REPORTS[env_id] = report


@pytest.mark.soak
def test_twin_plays_every_pairing_of_the_shipped_decks_with_the_rule_flags():
    """Each ordered pairing of the four shipped decks (16, mirrors included) once, with
    ``max_generals``, shaping, deck-outs that lose, ``draw_mode="both"`` and attack transfer."""
    keys = _keys_for_every_pairing(PAIRINGS_FLAGS)
    flags = tuple(sorted(PAIRINGS_FLAGS.items()))
    report = play_lockstep(
        "empire_envs/Generals-v0", _mixed(), len(keys), seed=5, twin=_twin("Generals-v0", len(keys), flags), keys=keys
    )
    print(report)
    assert report.games == len(keys) == 16
    REPORTS["pairings"] = report


@pytest.mark.soak
def test_twin_plays_three_seats_paid_by_place():
    flags = tuple(sorted(PLACEMENT_FLAGS.items()))
    report = play_lockstep("empire_envs/Generals-v0", _mixed(), 8, seed=3, twin=_twin("Generals-v0", 8, flags))
    print(report)
    assert report.games == 8
    REPORTS["placement"] = report


def test_twin_plays_a_generated_card_pool(tmp_path):
    REPORTS["generated pool"] = _play_generated_pool(POOL_SEEDS[0], tmp_path)


def test_make_test_plays_300_games_and_30_of_every_id():
    if not set(GENERALS_IDS) <= set(REPORTS):
        pytest.skip("needs the lockstep games of this module (run the whole module)")
    games = [REPORTS[env_id].games for env_id in GENERALS_IDS]
    assert len(games) == 7 and min(games) >= 30 and sum(games) >= 300, games


def test_the_ids_of_one_seat_count_share_one_step_and_view():
    """What lets ``make test`` afford every id: the twins of the 2-seat ids (and of the two 4-seat
    ids) hold the very same step and view functions, and each id's state carries its own game
    type, Slaughterhouse and length limit, which those read instead of the config."""
    rules = {env_id: empire_jax.make(env_id).rules for env_id in GENERALS_IDS}
    groups: dict[tuple, list[str]] = {}
    for env_id, twin in rules.items():
        groups.setdefault((twin.step, twin.observe), []).append(env_id.rpartition("/")[2])
    assert sorted(groups.values()) == [
        ["Generals-v0", "GeneralsQuick-v0", "GeneralsEpic-v0", "GeneralsSlaughter-v0"],
        ["Generals3p-v0"],
        ["Generals4p-v0", "Generals4pSlaughter-v0"],
    ]
    carried = {
        env_id: tuple(
            getattr(jax_state._host_blank(twin.config), name).item()
            for name in ("ch_target", "slaughterhouse", "elimination_line", "length_limit")
        )
        for env_id, twin in rules.items()
    }
    assert carried == {
        "empire_envs/Generals-v0": (5, False, -5, 60),
        "empire_envs/GeneralsQuick-v0": (3, False, -3, 60),
        "empire_envs/GeneralsEpic-v0": (8, False, -8, 100),
        "empire_envs/GeneralsSlaughter-v0": (5, True, 0, 60),
        "empire_envs/Generals3p-v0": (5, False, -5, 60),
        "empire_envs/Generals4p-v0": (5, False, -5, 60),
        "empire_envs/Generals4pSlaughter-v0": (5, True, 0, 60),
    }


def test_the_games_reach_both_victories_and_truncation():
    if not set(GENERALS_IDS) <= set(REPORTS):
        pytest.skip("needs the lockstep games of this module (run the whole module)")
    names = set().union(*(report.outcomes for report in REPORTS.values()))
    assert any("chancellor victory" in name for name in names), names
    assert any("warlord victory" in name for name in names), names
    assert "truncated" in names, names


@pytest.mark.soak
@pytest.mark.parametrize("env_id", GENERALS_IDS)
def test_twin_plays_every_id_step_for_step_soak(env_id):
    batch = min(SOAK_BATCH, SOAK_GAMES_PER_ID)
    report = play_lockstep(env_id, _mixed(), SOAK_GAMES_PER_ID, seed=1_000, twin=_twin(env_id, batch))
    print(env_id, report)
    assert report.games == SOAK_GAMES_PER_ID
    SOAK_REPORTS[env_id] = report


@pytest.mark.soak
def test_the_soak_plays_2000_games_of_every_id_and_20000_in_all():
    if not set(GENERALS_IDS) <= set(SOAK_REPORTS) or SOAK_GAMES_PER_ID < 2_858:
        pytest.skip("needs every id's soak games at the full count (run the module with -m soak, no -n)")
    assert min(report.games for report in SOAK_REPORTS.values()) >= 2_000
    assert sum(report.games for report in SOAK_REPORTS.values()) >= 20_000
    names = set().union(*(report.outcomes for report in SOAK_REPORTS.values()))
    assert {"truncated"} < names and any("chancellor" in name for name in names), names


@pytest.mark.soak
def test_twin_plays_every_pairing_with_the_rule_flags_soak():
    keys = _keys_for_every_pairing(PAIRINGS_FLAGS, repeats=16)
    flags = tuple(sorted(PAIRINGS_FLAGS.items()))
    report = play_lockstep(
        "empire_envs/Generals-v0", _mixed(), len(keys), seed=50, twin=_twin("Generals-v0", 128, flags), keys=keys
    )
    print(report)
    assert report.games == 256


@pytest.mark.soak
@pytest.mark.parametrize("decks", [("rome", "egypt"), ("mongols", "mongols")])
def test_twin_plays_fixed_decks_soak(decks):
    """``decks=`` names the decks (no draw for them): the deal's other draws still match."""
    flags = (("allow_mirror", True), ("decks", decks))
    report = play_lockstep("empire_envs/Generals-v0", _mixed(), 64, seed=70, twin=_twin("Generals-v0", 64, flags))
    assert report.games == 64


@pytest.mark.soak
def test_twin_plays_fifty_generated_card_pools_soak(tmp_path):
    reports = [_play_generated_pool(seed, tmp_path) for seed in POOL_SEEDS]
    print(sum(reports, LockstepReport()))
    assert len(reports) >= 50
