"""The Pillars JAX twin plays exactly the Python rules, for every seat (issue 29).

- Whole games (``tests/jax_twins.py``): every registered Pillars id, dealt by the twin and given
  to the Python rules (the deck, the first player), every coin and every reshuffle's order (and
  a campaign's new deals) preset to what the twin drew; at every step the observation of EVERY
  seat, ``state.observation``, the mask, the seat to act, every seat's reward, terminated,
  truncated and the outcome are compared. ``make test`` plays ``GAMES_PER_ID`` games of each
  id (in one batch: ``jax_helpers.PLAN`` says which play random, which the heuristic, which the
  heuristic at one seat against random play) and as many of each of two variant configs no id
  registers
  (``VARIANT``: every flag the ids leave at its default, a short ``length_limit`` and one pack,
  so that games are truncated and the resource pile runs dry; ``END_DRAW``: the other
  ``resource_empty``, three seats, no Jokers, coins for battles). The campaign plays series of
  at most 3 games there (``campaign_max_games=3``, a flag, its least). ``pytest -m soak`` plays
  ``SOAK_GAMES_PER_ID`` games of every other id and of both variant configs, and
  ``SOAK_CAMPAIGNS`` whole campaigns as registered (at least ``SOAK_GAMES_PER_ID`` games).
- Scripted positions built in Python (``helpers.build_state``), converted with the twin's
  ``from_python`` and stepped on both sides (``jax_helpers.Line``): a steal blocked by a 2, a
  trade in which several seats table, battles answered no, won, lost, tied to a coin, the
  empire rule, the fourth pillar's win (after the discard), a pillar that empties the hand, a
  skip and the skipped turns, reshuffles, the campaign's series end, the length limit. Where a
  draw decides, the position is stepped in ``BATCH`` copies, each with its own key, until both
  sides have come out (``jax_helpers.both_ways``), each copy compared with a Python copy given
  that draw.
- No leak: a seat's view is unchanged when everything it cannot see is redrawn (the other
  hands beyond the public tracker, the resource pile, the piles under their tops, sealed offers,
  the attacker's pending throw), and the view of a seat whose own secret changed does change.
- The harness fails on a planted difference: a leak in the view of a seat not to act, a view
  not turned for each seat, a wrong reward of a seat not to act, a coin or a reshuffle handed
  over wrong or on one side only, a leak of the resource pile.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import empire_envs.jax as empire_jax  # noqa: E402
from empire_envs.core.rng import PresetDraws  # noqa: E402
from empire_envs.games.pillars import jax_rules, observe  # noqa: E402
from empire_envs.games.pillars.campaign import CampaignConfig, CampaignState  # noqa: E402
from empire_envs.games.pillars.state import (  # noqa: E402
    ANSWER_NO,
    BUILD,
    CARD_KINDS,
    DISCARD,
    MAIN,
    ONGOING,
    OVER,
    RPS_ATTACKER,
    RPS_DEFENDER,
    SKIP_TARGET,
    TRADE_OFFER,
    TRADE_PICK,
    TRUNCATED,
    TURN_SKIPPED,
    WON,
)
from tests.jax_twins import (  # noqa: E402
    LockstepReport,
    Mismatch,
    play_lockstep,
    random_policy,
    views_of_the_seat_to_act,
)

from .helpers import build_state, counts, kind  # noqa: E402
from .jax_helpers import (  # noqa: E402
    BATCH,
    CAMPAIGN,
    PILLARS,
    DrawCount,
    Line,
    both_ways,
    counting,
    hide,
    host_rows,
    mixed_policy,
    pillars_twin,
    private_changes,
    stacked,
)

PILLARS_IDS = [
    f"empire_envs/{name}"
    for name in (
        "Pillars-v0",
        "Pillars3p-v0",
        "Pillars5p-v0",
        "Pillars6p-v0",
        "PillarsRPSRandom-v0",
        "PillarsExactCard-v0",
        "Pillars2p-v0",
    )
]
RPS_RANDOM, EXACT_CARD, FIVE_SEATS = PILLARS_IDS[4], PILLARS_IDS[5], PILLARS_IDS[2]
GAMES_PER_ID = BATCH
SOAK_GAMES_PER_ID, SOAK_BATCH = 625, 125
#: whole campaigns as registered in the soak (about eight games each, so some 650 games)
SOAK_CAMPAIGNS, SOAK_CAMPAIGN_BATCH = 80, 40
#: the campaign of ``make test``: ``CAMPAIGNS`` series of at most three games (the registered 30
#: take tens of thousands of decisions each); the soak plays it as registered. Their first games
#: and the next ones they deal make at least ``GAMES_PER_ID`` games (the test checks it).
SHORT_CAMPAIGN = {"campaign_max_games": 3}
CAMPAIGNS = 3

#: a variant config no id registers: every flag the ids leave at its default (the first
#: round's pillars, an optional main action, no refill of an empty pile, two naturals per pillar,
#: a compulsory skip, zero-sum rewards, shaping, no tracker in the view), one pack of 56 cards so
#: that the pile runs dry, a coin after two ties, and 12 rounds so that games are truncated;
#: played whole and used by the scripted positions (one config: one compile)
VARIANT = {
    "first_round_pillars": True,
    "main_action_optional": True,
    "resource_empty": "skip_draw",
    "min_natural_per_pillar": 2,
    "skip_optional": False,
    "length_limit": 12,
    "reward_scheme": "zero_sum",
    "shaping": 0.05,
    "obs_known_cards": False,
    "jokers_per_pack": 4,
    "packs": 1,
    "rps_max_ties": 2,
}
#: the other way an empty pile ends: the game is truncated; three seats, one pack, no Jokers
END_DRAW = {
    "num_players": 3,
    "packs": 1,
    "jokers_per_pack": 0,
    "resource_empty": "end_draw",
    "rps_mode": "random",
    "reward_scheme": "zero_sum",
    "length_limit": 30,
}

FILLER = ["3", "4", "5", "6", "8", "9", "10", "Q"] * 2  # resource pile for the draws (top last)
ROCK, PAPER, SCISSORS = "THROW rock", "THROW paper", "THROW scissors"


def _config(env_id: str = PILLARS, flags: dict | None = None):
    """The Python config of a twin (registered kwargs and ``flags`` applied)."""
    return pillars_twin(env_id, BATCH, flags).config


def _position(n: int = 4, env_id: str = PILLARS, flags: dict | None = None, **kwargs):
    return build_state(n, config=_config(env_id, flags), **kwargs)


def _line(python, env_id: str = PILLARS, flags: dict | None = None) -> Line:
    return Line(python, jax_rules.from_python, env_id, flags)


def _campaign_from_python():
    """The campaign twin's conversion: imported here, so that its absence fails the campaign's
    tests (and only those) by name."""
    from empire_envs.games.pillars import jax_campaign

    return jax_campaign.from_python


# --------------------------------------------------------------------------- whole games


def _play(env_id: str, games: int, seed: int, flags: dict | None = None, batch: int = BATCH):
    """Lockstep games of ``env_id`` with the mixed policy; the harness's report and the draws."""
    twin = pillars_twin(env_id, batch, flags)
    draws = DrawCount()
    game_key = "pillars_campaign" if env_id == CAMPAIGN else "pillars"
    policy = mixed_policy(game_key, twin.num_players)
    started = time.process_time()
    report = play_lockstep(env_id, policy, games, seed=seed, twin=counting(twin, draws))
    print(env_id, flags or "", report, draws, f"{time.process_time() - started:.1f} s CPU")
    assert report.games == games
    return report, draws


def _won(report: LockstepReport) -> int:
    return sum(count for name, count in report.outcomes.items() if "won by seat" in name)


@pytest.mark.parametrize("env_id", PILLARS_IDS)
def test_twin_plays_the_python_rules_step_for_step(env_id):
    seed = 1_000 * PILLARS_IDS.index(env_id)  # other deals for each id
    report, draws = _play(env_id, GAMES_PER_ID, seed)
    assert _won(report) >= 2, report.outcomes
    if env_id == RPS_RANDOM:
        assert draws.coins > 0, "battles are decided by coins"


def test_twin_plays_the_campaign_step_for_step():
    """The campaign twin must be registered: without it this test fails (no skip)."""
    assert CAMPAIGN in empire_jax.twin_ids(), "PillarsCampaign-v0 has no JAX twin yet"
    report, draws = _play(CAMPAIGN, CAMPAIGNS, seed=7_000, flags=SHORT_CAMPAIGN)
    assert draws.deals > 0, "a campaign deals its next games from the twin's key"
    assert CAMPAIGNS + draws.deals >= GAMES_PER_ID, draws


@pytest.mark.parametrize("flags", [VARIANT, END_DRAW], ids=["variant", "end_draw"])
def test_twin_plays_a_variant_config_step_for_step(flags):
    report, draws = _play(PILLARS, BATCH, seed=100, flags=flags)
    assert report.outcomes["truncated"] > 0, report.outcomes
    if flags is VARIANT:  # a coin after two ties
        assert draws.coins > 0, draws


@pytest.mark.soak
@pytest.mark.parametrize("env_id", PILLARS_IDS)
def test_twin_plays_the_python_rules_step_for_step_soak(env_id):
    seed = 100_000 * (1 + PILLARS_IDS.index(env_id))
    report, draws = _play(env_id, SOAK_GAMES_PER_ID, seed, batch=SOAK_BATCH)
    assert _won(report) > SOAK_GAMES_PER_ID // 2 and draws.reshuffles > 0, (report.outcomes, draws)
    assert draws.coins > 0, "a coin after rps_max_ties ties, or every battle's coin"


@pytest.mark.soak
def test_twin_plays_the_registered_campaign_step_for_step_soak():
    """Whole campaigns as registered (up to 30 games each): at least ``SOAK_GAMES_PER_ID``
    games in all (each campaign's first game, and one more per new deal)."""
    report, draws = _play(CAMPAIGN, SOAK_CAMPAIGNS, seed=900_000, batch=SOAK_CAMPAIGN_BATCH)
    assert _won(report) > 0 and SOAK_CAMPAIGNS + draws.deals >= SOAK_GAMES_PER_ID, (report.outcomes, draws)


@pytest.mark.soak
@pytest.mark.parametrize("flags", [VARIANT, END_DRAW], ids=["variant", "end_draw"])
def test_twin_plays_a_variant_config_step_for_step_soak(flags):
    report, _ = _play(PILLARS, SOAK_GAMES_PER_ID, seed=800_000, flags=flags, batch=SOAK_BATCH)
    assert report.outcomes["truncated"] > 0


# --------------------------------------------------------------------------- scripted positions


def _hands(**seats):
    """Hands by seat (``s0=[...]``...)."""
    return {int(name[1:]): items for name, items in seats.items()}


def test_scripted_steal_blocked_by_a_two():
    """Seat 1's pile has a 2 on top: no steal; seat 2's has the 2 under a 7: the steal is legal,
    and once it is made the 2 on top blocks the next seat's steal from it too."""
    python = _position(
        hands=_hands(s0=["3", "4", "5"], s1=["6", "8"], s2=["9"], s3=["10"]),
        piles={1: ["7", "2"], 2: ["2", "7"]},
        deck=FILLER,
    )
    line = _line(python)
    steals = {name for name in line.legal_names() if name.startswith("STEAL")}
    assert steals == {"STEAL +2"}
    assert not line.twin_mask()[line.index("STEAL +1")] and line.twin_mask()[line.index("STEAL +2")]
    line.play("STEAL +2")
    assert line.python.hands[0][kind("7")] == 1 and line.python.piles[2] == [kind("2")]
    line.play("END_BUILD")
    line.play("DISCARD 3")
    assert line.python.current == 1 and line.python.phase == MAIN
    assert "STEAL +1" not in line.legal_names(), "seat 2's pile is topped by the 2 now"


def test_scripted_trade_in_which_several_seats_table():
    """Five seats, seat 3 empty-handed: seats 1, 2 and 4 offer in turn, each offer sealed from
    the others' views (every seat's view is compared at every step), all revealed at the pick."""
    python = _position(
        5,
        FIVE_SEATS,
        hands=_hands(s0=["5", "5", "9"], s1=["7", "J"], s2=["8", "8"], s4=["10", "Q", "K"]),
        deck=FILLER,
    )
    line = _line(python, FIVE_SEATS)
    line.play("TRADE 5")
    assert line.python.phase == TRADE_OFFER and line.python.trade_queue == [1, 2, 4]
    offers_at = observe.LAYOUT["trade offers"]
    for offer, seat in (("OFFER 7", 1), ("OFFER 8", 2), ("OFFER Q", 4)):
        assert line.python.trade_queue[0] == seat
        line.play(offer)
        for viewer in range(5):
            rows = observe.observe(line.python, viewer)[offers_at].reshape(6, -1)
            shown = {(o + viewer) % 5 for o in range(5) if rows[o, 1:].any()}
            if line.python.phase == TRADE_OFFER:  # sealed: each seat sees its own offer only
                assert shown == ({viewer} & {1, 2, 4}) - set(line.python.trade_queue), (viewer, shown)
            else:
                assert shown == {1, 2, 4}
    assert line.python.phase == TRADE_PICK and line.python.trade_revealed
    line.play("PICK +2")
    assert line.python.hands[0][kind("8")] == 1 and line.python.hands[2][kind("5")] == 1
    assert line.python.phase == BUILD


def test_scripted_battle_answered_no():
    python = _position(hands=_hands(s0=["3", "4"], s1=["8", "9"], s2=["7"], s3=["5"]), deck=FILLER)
    line = _line(python)
    line.play("BATTLE +1 for K")
    assert line.python.battle_answer == ANSWER_NO and line.python.phase == BUILD and line.report.coins == 0


@pytest.mark.parametrize(
    "attacker, defender, attacker_wins", [(ROCK, SCISSORS, True), (ROCK, PAPER, False), (PAPER, SCISSORS, False)]
)
def test_scripted_battle_won_and_lost(attacker, defender, attacker_wins):
    """The attacker's throw is sealed from every other view until the defender has thrown."""
    python = _position(hands=_hands(s0=["3"], s1=["7", "7", "9"], s2=["4"], s3=["5"]), deck=FILLER)
    line = _line(python)
    line.play("BATTLE +1 for 7")
    assert line.python.phase == RPS_ATTACKER
    line.play(attacker)
    assert line.python.phase == RPS_DEFENDER and line.python.pending_throw >= 0
    line.play(defender)
    assert line.python.hands[0][kind("7")] == (1 if attacker_wins else 0)
    assert line.python.phase == BUILD and line.report.coins == 0


def _attacker_took_it(python) -> bool:
    return python.hands[python.battle_attacker][python.battle_kind] > 0


def test_scripted_ties_then_a_coin_both_ways():
    """Four ties ask again; the fifth (``rps_max_ties=5``) goes to a coin, which comes out both
    ways over the copies."""
    python = _position(hands=_hands(s0=["3"], s1=["7", "9"], s2=["4"], s3=["5"]), deck=FILLER)
    line = _line(python)
    line.play("BATTLE +1 for 7")
    for _ in range(4):
        line.play(PAPER)
        line.play(PAPER)
        assert line.python.phase == RPS_ATTACKER
    line.play(ROCK)
    branches = both_ways(line, ROCK, _attacker_took_it)
    for branch in branches:
        assert branch.report.coins == BATCH and branch.python.battle_ties == 5
        assert all(python.phase == BUILD for python in branch.pythons)


def test_scripted_a_coin_decides_every_battle_with_rps_random():
    python = _position(4, RPS_RANDOM, hands=_hands(s0=["3"], s1=["7", "9"], s2=["4"], s3=["5"]), deck=FILLER)
    line = _line(python, RPS_RANDOM)
    for branch in both_ways(line, "BATTLE +1 for 7", _attacker_took_it):
        assert branch.report.coins == BATCH
    line.play("BATTLE +2 for 7")  # answered no: no coin
    assert line.report.coins == 0 and line.python.battle_answer == ANSWER_NO


def test_scripted_exact_card_battles():
    """``battle_demand="card"``: the defender holds the 7 of spades, not the 7 of hearts."""
    seven_spades, seven_hearts = CARD_KINDS.labels.index("7S"), CARD_KINDS.labels.index("7H")
    python = _position(
        env_id=EXACT_CARD,
        hands={0: [0, 1], 1: [seven_spades, 20], 2: [30], 3: [40]},
        deck=[5, 6, 7, 8, 9, 10],
    )
    line = _line(python, EXACT_CARD)
    line.play("BATTLE +1 for 7H")
    assert line.python.battle_answer == ANSWER_NO
    line.play("END_BUILD")
    line.play("DISCARD AC")
    python = _position(env_id=EXACT_CARD, hands={0: [0, 1], 1: [seven_spades, seven_hearts - 1]}, deck=[5, 6, 7])
    line = _line(python, EXACT_CARD)
    line.play("BATTLE +1 for 7S")
    line.play(ROCK)
    line.play(SCISSORS)
    assert line.python.hands[0][seven_spades] == 1


def test_scripted_empire_rule_masks_the_other_empires():
    """A Thief (a pillar of 4s) holding four 5s, four 9s and a Joker may lay 5s (with or without
    the Joker), never the 9s (Merchant); the second pillar unlocks the Thief's bonus steal."""
    python = _position(
        hands=_hands(s0=["5"] * 4 + ["9"] * 4 + ["Joker", "3"], s1=["6"]),
        piles={1: ["8"]},
        pillars={0: [kind("4") - 1]},
        phase=BUILD,
        deck=FILLER,
    )
    line = _line(python)
    pillars = {name for name in line.legal_names() if name.startswith("PILLAR")}
    assert pillars == {"PILLAR 5 (0 jokers)", "PILLAR 5 (1 joker)"}
    assert not line.twin_mask()[line.index("PILLAR 9 (0 jokers)")]
    assert "STEAL +1" not in line.legal_names()
    line.play("PILLAR 5 (1 joker)")
    assert line.python.hands[0][kind("5")] == 1 and line.python.pillar_jokers[0] == 1
    assert "STEAL +1" in line.legal_names(), "two Thief pillars: the bonus steal"
    line.play("STEAL +1")
    assert line.python.bonus_used


def test_scripted_fourth_pillar_wins_after_the_discard():
    """The fourth pillar wins only once the turn's discard is made: +1 to the winner and -1 to
    every other seat (compared for every seat)."""
    line = _line(_fourth_pillar_position())
    line.play("PILLAR A (0 jokers)")
    assert line.python.outcome == ONGOING and line.python.pillar_count(0) == 4
    line.play("END_BUILD")
    rewards = line.play("DISCARD 5")
    assert line.python.outcome == WON and line.python.winner == 0 and all(line.finished)
    assert (rewards == np.array([1.0, -1.0, -1.0, -1.0], dtype=np.float32)).all()
    _assert_current_player_kept(line)


def _assert_current_player_kept(line: Line) -> None:
    """Once a game is over ``current_player`` keeps the seat the Python state last named (the
    protocol, ``core.jax_game``): the winner, or the seat whose turn a truncation cut off."""
    assert np.asarray(line.state.current_player).tolist() == [python.current for python in line.pythons]


def _fourth_pillar_position(flags: dict | None = None):
    """Seat 0, a Warlord with J, Q and K laid, holds four Aces and a 5 in its build phase."""
    return _position(
        flags=flags,
        hands=_hands(s0=["A"] * 4 + ["5"], s1=["3"], s2=["4"], s3=["6"]),
        pillars={0: [kind(label) - 1 for label in ("J", "Q", "K")]},
        phase=BUILD,
        deck=FILLER,
    )


def test_scripted_fourth_pillar_with_zero_sum_rewards_and_shaping():
    line = _line(_fourth_pillar_position(VARIANT), flags=VARIANT)
    rewards = line.play("PILLAR A (0 jokers)")
    assert np.allclose(rewards[0], [0.05, 0.0, 0.0, 0.0])
    line.play("END_BUILD")
    rewards = line.play("DISCARD 5")
    assert np.allclose(rewards[0], [1.0, -1 / 3, -1 / 3, -1 / 3])


def test_scripted_a_pillar_that_empties_the_hand_ends_the_turn_without_a_win():
    """A Merchant with 7, 8 and 9 laid lays its fourth pillar with its last four cards: the turn
    ends at once (no discard, so no win) and seat 1's begins."""
    python = _position(
        hands=_hands(s0=["10"] * 4, s1=["3"], s2=["4"], s3=["6"]),
        pillars={0: [kind(label) - 1 for label in ("7", "8", "9")]},
        phase=BUILD,
        deck=FILLER,
    )
    line = _line(python)
    line.play("PILLAR 10 (0 jokers)")
    assert line.python.outcome == ONGOING and line.python.pillar_count(0) == 4
    assert line.python.current == 1 and line.python.phase == MAIN and line.python.hand_sizes[0] == 0


def test_scripted_skip_and_the_skipped_turn():
    python = _position(hands=_hands(s0=["2", "5"], s1=["3"], s2=["4"], s3=["6"]), phase=DISCARD, deck=FILLER)
    line = _line(python)
    line.play("DISCARD 2")
    assert line.python.phase == SKIP_TARGET
    assert line.legal_names() == {"SKIP +1", "SKIP +2", "SKIP +3", "NO_SKIP"}
    line.play("SKIP +1")
    python = line.python
    assert python.current == 2 and python.turn_log[1].status == TURN_SKIPPED and not python.pending_skip[1]


def test_scripted_every_other_seat_skipped_brings_the_turn_back():
    """Every other seat has a pending skip: the discarded 2 names no one, the three turns are
    skipped and seat 0 plays again."""
    python = _position(
        hands=_hands(s0=["2", "5"], s1=["3"], s2=["4"], s3=["6"]),
        phase=DISCARD,
        pending_skip=(1, 2, 3),
        deck=FILLER,
    )
    line = _line(python)
    turn = line.python.turn
    line.play("DISCARD 2")
    assert line.python.current == 0 and line.python.turn == turn + 4 and line.python.phase == MAIN
    assert not any(line.python.pending_skip)


def test_scripted_compulsory_skip():
    """``skip_optional=False``: NO_SKIP only when no seat may be skipped."""
    python = _position(
        flags=VARIANT,
        hands=_hands(s0=["2", "5"], s1=["3"], s2=["4"], s3=["6"]),
        phase=DISCARD,
        pending_skip=(1, 3),
        deck=FILLER,
    )
    line = _line(python, flags=VARIANT)
    line.play("DISCARD 2")
    assert line.legal_names() == {"SKIP +2"}
    line.play("SKIP +2")


def test_scripted_reshuffle_of_an_empty_pile():
    """Seat 0 discards a King on its 9 and seat 1 draws from an empty pile: the piles under
    their tops (the 9 the King just covered, 3 and 4 of seat 1, 6 of seat 2) are shuffled into a
    new pile from each copy's key, and the Python copy is handed that order."""
    python = _position(
        hands=_hands(s0=["K", "5"], s1=["J"], s2=["Q"], s3=["A"]),
        piles={0: ["9"], 1: ["3", "4", "5"], 2: ["6", "7"], 3: ["8"]},
        phase=DISCARD,
        deck=[],
    )
    line = _line(python)
    line.play("DISCARD K")
    assert np.asarray(line.state.shuffled).tolist() == [4] * BATCH
    assert line.python.current == 1 and len(line.python.deck) == 3
    orders = {(tuple(python.hands[1]), tuple(python.deck)) for python in line.pythons}
    assert len(orders) > 1, "each copy's key shuffles the pile its own way"
    assert line.python.piles == [[kind("K")], [kind("5")], [kind("7")], [kind("8")]]


def test_scripted_reshuffle_in_the_middle_of_the_first_pillars_draw():
    """The first pillar draws six cards from a pile of two: the piles are shuffled in between."""
    python = _position(
        hands=_hands(s0=["9"] * 4 + ["3"], s1=["J"], s2=["Q"], s3=["A"]),
        piles={1: ["3", "4", "5", "6"], 2: ["6", "7", "8", "10"], 3: ["8"]},
        phase=BUILD,
        deck=["J", "Q"],
    )
    line = _line(python)
    line.play("PILLAR 9 (0 jokers)")
    assert line.python.hand_sizes[0] == 1 + 6 and len(line.python.deck) == 6 - 4
    assert np.asarray(line.state.shuffled).tolist() == [6] * BATCH


def test_scripted_skip_draw_and_end_draw_of_an_empty_pile():
    python = _position(flags=VARIANT, hands=_hands(s0=["K", "5"], s1=["J"], s2=["Q"], s3=["A"]), phase=DISCARD, deck=[])
    python.piles[1], python.pile_counts[1] = [kind("3"), kind("4")], counts(["3", "4"])
    line = _line(python, flags=VARIANT)
    line.play("DISCARD K")
    assert line.python.current == 1 and line.python.hand_sizes[1] == 1, "skip_draw: no card, no reshuffle"
    python = build_state(
        3, config=_config(PILLARS, END_DRAW), hands=_hands(s0=["K", "5"], s1=["J"], s2=["Q"]), phase=DISCARD
    )
    line = _line(python, flags=END_DRAW)
    rewards = line.play("DISCARD K")
    assert line.python.outcome == TRUNCATED and all(line.finished) and not rewards.any()
    assert bool(np.asarray(line.state.truncated).all()) and not bool(np.asarray(line.state.terminated).any())


def test_scripted_length_limit_truncates():
    """``length_limit=12``: the turn after the 48th is never begun: the game is truncated."""
    python = _position(
        flags=VARIANT,
        hands=_hands(s0=["3"], s1=["4"], s2=["6"], s3=["7", "8"]),
        phase=DISCARD,
        current=3,
        round_=12,
        deck=FILLER,
    )
    line = _line(python, flags=VARIANT)
    rewards = line.play("DISCARD 7")
    assert line.python.outcome == TRUNCATED and all(line.finished) and not rewards.any()
    assert bool(np.asarray(line.state.truncated).all()) and not bool(np.asarray(line.state.terminated).any())
    _assert_current_player_kept(line)


# --------------------------------------------------------------------------- the campaign


def _campaign(empires_won: list[int], games_played: int) -> CampaignState:
    """A campaign in which seat 0 (empires won: ``empires_won``, Thief, Merchant, Warlord) is
    about to win a game as a Warlord (``_fourth_pillar_position``)."""
    config = _config(CAMPAIGN)
    assert isinstance(config, CampaignConfig)
    game = build_state(
        4,
        config=config,
        hands=_hands(s0=["A"] * 4 + ["5"], s1=["3"], s2=["4"], s3=["6"]),
        pillars={0: [kind(label) - 1 for label in ("J", "Q", "K")]},
        phase=BUILD,
        deck=FILLER,
    )
    state = CampaignState(config, game)
    state.empires_won[0] = list(empires_won)
    state.games_played = games_played
    return state


def _win_the_game(line: Line) -> np.ndarray:
    line.play("PILLAR A (0 jokers)")
    line.play("END_BUILD")
    return line.play("DISCARD 5")


def test_scripted_campaign_won_with_the_third_empire():
    line = Line(_campaign([1, 1, 0], 4), _campaign_from_python(), CAMPAIGN)
    rewards = _win_the_game(line)
    assert line.python.outcome == WON and line.python.winner == 0 and all(line.finished)
    assert line.python.empires_won[0] == [1, 1, 1] and line.python.games_played == 5
    assert (rewards == np.array([1.0, -1.0, -1.0, -1.0], dtype=np.float32)).all()


def test_scripted_campaign_game_won_deals_the_next_game():
    """A game won with an empire the seat had: the series goes on, the next game dealt from each
    copy's key (the Python copy is handed the deal and the first player), nothing paid."""
    line = Line(_campaign([0, 0, 1], 2), _campaign_from_python(), CAMPAIGN)
    rewards = _win_the_game(line)
    assert line.python.outcome == ONGOING and not any(line.finished) and not rewards.any()
    assert line.python.games_played == 3 and line.python.empires_won[0] == [0, 0, 1]
    assert line.python.game.phase == DISCARD and sum(line.python.game.hand_sizes) == 41
    deals = {tuple(python.game.hands[0]) for python in line.pythons}
    assert len(deals) > 1, "each copy's key deals its own game"


def test_scripted_campaign_truncated_after_its_last_game():
    line = Line(_campaign([1, 0, 0], 29), _campaign_from_python(), CAMPAIGN)
    rewards = _win_the_game(line)
    assert line.python.outcome == TRUNCATED and all(line.finished) and not rewards.any()
    assert bool(np.asarray(line.state.truncated).all())


# --------------------------------------------------------------------------- no leak


def _states_of_random_play(twin, seed: int, steps: int) -> list:
    """Twin states of random masked play (host rows): every row every ``steps // 8`` steps, and
    every row with a sealed offer or a pending throw."""
    rng = np.random.default_rng(seed)
    state = twin.init(jax.random.split(jax.random.PRNGKey(seed), BATCH))
    chosen = []
    for number in range(steps):
        rows = host_rows(state)
        for row in rows:
            sealed = int(row.phase) == TRADE_OFFER and (row.offers >= 0).any()
            if (number % (steps // 8) == 0 or sealed or int(row.phase) == RPS_DEFENDER) and int(row.phase) != OVER:
                chosen.append(row)
        mask = np.asarray(state.legal_action_mask)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int32)
        keys = jax.random.split(jax.random.fold_in(jax.random.PRNGKey(seed), number), BATCH)
        state = twin.step(state, jnp.asarray(actions), keys)
    return chosen


def check_no_leak(twin, rows: list, seed: int, observe_seats=None) -> dict:
    """For each state and each observer, redraw what the observer cannot see (``hide``): the
    observer's view must not change, and exactly the views of the seats whose own secrets
    changed must (raising ``Mismatch``). Counts of what was checked."""
    observe_seats = observe_seats or twin.observe_seats
    rng = np.random.default_rng(seed)
    n = twin.num_players
    pairs = [(row, hide(row, observer, rng), observer) for row in rows for observer in range(n)]
    checked = {"views kept": 0, "views changed": 0, "sealed offers": 0, "pending throws": 0}
    for first in range(0, len(pairs) - BATCH + 1, BATCH):
        chunk = pairs[first : first + BATCH]
        before = np.asarray(observe_seats(stacked([pair[0] for pair in chunk])))
        after = np.asarray(observe_seats(stacked([pair[1] for pair in chunk])))
        for index, (row, hidden, observer) in enumerate(chunk):
            changed = private_changes(row, hidden)
            assert observer not in changed
            for seat in range(n):
                same = np.array_equal(before[index, seat], after[index, seat])
                if seat in changed and same:
                    raise Mismatch(f"seat {seat}'s own secret changed and its view did not (observer {observer})")
                if seat not in changed and not same:
                    raise Mismatch(
                        f"seat {seat}'s view changed when only what it cannot see was redrawn "
                        f"(observer {observer}, phase {int(row.phase)}): entries "
                        f"{np.flatnonzero(before[index, seat] != after[index, seat])[:8].tolist()}"
                    )
                checked["views changed" if seat in changed else "views kept"] += 1
            phase = int(row.phase)
            checked["sealed offers"] += phase == TRADE_OFFER and bool((hidden.offers != row.offers).any())
            checked["pending throws"] += phase == RPS_DEFENDER and int(hidden.pending_throw) != int(row.pending_throw)
    return checked


@pytest.mark.parametrize("env_id", [PILLARS, PILLARS_IDS[3], EXACT_CARD])
def test_no_view_shows_what_its_seat_cannot_see(env_id):
    twin = pillars_twin(env_id)
    rows = _states_of_random_play(twin, seed=5, steps=160)
    checked = check_no_leak(twin, rows, seed=6)
    print(env_id, len(rows), "states", checked)
    assert checked["views changed"] > 100 and checked["views kept"] > 100
    assert checked["sealed offers"] > 0 and checked["pending throws"] > 0


@pytest.mark.parametrize("leak", ["resource pile", "next hand", "sealed offer"])
def test_the_no_leak_check_catches_a_leak(leak):
    """Views that read the resource pile's top card, the next seat's hand or a sealed offer
    (added to one entry): the check fails."""
    twin = pillars_twin()
    rows = _states_of_random_play(twin, seed=5, steps=160)
    if leak == "sealed offer":
        rows = [row for row in rows if int(row.phase) == TRADE_OFFER and (row.offers >= 0).any()]
        assert rows, "no sealed offer in the sample"
        rows = (rows * BATCH)[: max(BATCH, len(rows))]

    def planted(state):
        views = twin.observe_seats(state)
        if leak == "resource pile":
            secret = jnp.take_along_axis(state.deck, (state.deck_size[:, None] - 1).astype(jnp.int32), axis=1)[:, 0]
            return views.at[:, :, 0].add(secret.astype(jnp.float32)[:, None])
        if leak == "next hand":
            return views.at[:, :, 0].add(jnp.roll(state.hands, -1, axis=1)[:, :, 3].astype(jnp.float32))
        return views.at[:, :, 0].add(state.offers.sum(axis=1).astype(jnp.float32)[:, None])

    with pytest.raises(Mismatch, match="view changed when only what it cannot see"):
        check_no_leak(twin, rows, seed=6, observe_seats=planted)


# --------------------------------------------------------------------------- planted differences


@pytest.fixture(scope="module")
def twin():
    return pillars_twin()


def test_the_harness_catches_a_leak_in_the_view_of_a_seat_not_to_act(twin):
    """One entry of seat 2's view differs while seat 2 is not to act: caught at once."""

    def planted(state):
        views = twin.observe_seats(state)
        changed = views.at[:, 2, -1].add(1.0)
        return jnp.where((state.current_player != 2)[:, None, None], changed, views)

    with pytest.raises(Mismatch, match="observation of seat 2"):
        play_lockstep(PILLARS, random_policy, 2, seed=1, twin=dataclasses.replace(twin, observe_seats=planted))


def test_the_harness_catches_a_view_not_turned_for_the_seats_not_to_act(twin):
    """Every seat shown the view of the seat to act: caught."""
    planted = views_of_the_seat_to_act(twin.observe_seats)
    with pytest.raises(Mismatch, match=r"observation of seat \d"):
        play_lockstep(PILLARS, random_policy, 2, seed=2, twin=dataclasses.replace(twin, observe_seats=planted))


def test_the_harness_catches_a_wrong_reward_of_a_seat_not_to_act(twin):
    """The fourth pillar's win: the seats not to act must receive -1; a twin that forgets it is
    caught, naming the seat."""

    def planted(state, actions, keys):
        after = twin.step(state, actions, keys)
        mover = state.current_player[:, None] == jnp.arange(4)[None, :]
        return after.replace(rewards=jnp.where(mover, after.rewards, 0.0))

    line = _line(_fourth_pillar_position())
    line.twin = dataclasses.replace(line.twin, step=planted)
    line.play("PILLAR A (0 jokers)")
    line.play("END_BUILD")
    with pytest.raises(Mismatch, match="seat 1: reward differs"):
        line.play("DISCARD 5")


def _coin_line() -> Line:
    python = _position(4, RPS_RANDOM, hands=_hands(s0=["3"], s1=["7", "9"]), deck=FILLER)
    return _line(python, RPS_RANDOM)


def test_the_harness_catches_a_coin_the_python_rules_were_not_given():
    line = _coin_line()
    line.twin = dataclasses.replace(line.twin, python_draws=lambda before, after: PresetDraws())
    with pytest.raises(Mismatch, match="flipped a coin"):
        line.play("BATTLE +1 for 7")


def test_the_harness_catches_a_coin_the_python_rules_did_not_flip():
    """A battle answered no flips nothing; a twin that says it flipped a coin is caught."""
    line = _coin_line()
    line.twin = dataclasses.replace(line.twin, python_draws=lambda before, after: PresetDraws(coins=[True]))
    with pytest.raises(Mismatch, match="the Python rules did not"):
        line.play("BATTLE +1 for K")


def test_the_harness_catches_a_coin_read_the_other_way():
    line = _coin_line()
    honest = line.twin.python_draws

    def flipped(before, after):
        return PresetDraws(coins=[not coin for coin in honest(before, after)._coins])

    line.twin = dataclasses.replace(line.twin, python_draws=flipped)
    with pytest.raises(Mismatch):
        line.play("BATTLE +1 for 7")


def test_the_harness_catches_a_reshuffle_handed_over_in_another_order():
    """The reversed order of the twin's reshuffle: the drawn card (or the pile's) differs."""
    python = _position(
        hands=_hands(s0=["K", "5"], s1=["J"], s2=["Q"], s3=["A"]),
        piles={1: ["3", "4", "5"], 2: ["6", "7"], 3: ["8"]},
        phase=DISCARD,
        deck=[],
    )
    line = _line(python)
    honest = line.twin.python_draws

    def reversed_order(before, after):
        draws = honest(before, after)
        return PresetDraws(permutations=[order[::-1] for order in draws._permutations])

    line.twin = dataclasses.replace(line.twin, python_draws=reversed_order)
    with pytest.raises(Mismatch, match="observation of seat"):
        line.play("DISCARD K")


def test_the_harness_catches_a_reshuffle_on_one_side_only():
    python = _position(
        hands=_hands(s0=["K", "5"], s1=["J"], s2=["Q"], s3=["A"]),
        piles={1: ["3", "4", "5"]},
        phase=DISCARD,
        deck=[],
    )
    line = _line(python)
    line.twin = dataclasses.replace(line.twin, python_draws=lambda before, after: PresetDraws())
    with pytest.raises(Mismatch, match="shuffled"):
        line.play("DISCARD K")


# --------------------------------------------------------------------------- the env


def test_twin_ids_list_every_pillars_id():
    assert set(PILLARS_IDS) | {CAMPAIGN} <= set(empire_jax.twin_ids())


def test_an_illegal_action_ends_the_game_with_the_penalty(twin):
    """As the env does for every game of several seats: the seat that played an illegal action
    receives -1, each other seat 1/(n-1); the game is over (``terminated``)."""
    state = twin.init(jax.random.split(jax.random.PRNGKey(4), BATCH))
    mask = np.asarray(state.legal_action_mask)
    illegal = np.array([np.flatnonzero(~row)[0] for row in mask], dtype=np.int32)
    after = twin.step(state, jnp.asarray(illegal), jax.random.split(jax.random.PRNGKey(5), BATCH))
    mover = np.asarray(state.current_player)
    rewards = np.asarray(after.rewards)
    assert np.asarray(after.terminated).all() and not np.asarray(after.truncated).any()
    assert np.allclose(rewards[np.arange(BATCH), mover], -1.0)
    assert np.allclose(rewards.sum(axis=1), 0.0, atol=1e-6)
    assert {twin.env.outcome(jax.tree_util.tree_map(lambda leaf: leaf[0], after))} == {"illegal action"}
    again = twin.step(after, jnp.asarray(illegal), jax.random.split(jax.random.PRNGKey(6), BATCH))
    assert not np.asarray(again.rewards).any(), "a finished game pays nothing more"
    for name in ("hands", "deck", "piles", "phase", "outcome", "observation"):
        assert np.array_equal(np.asarray(getattr(again, name)), np.asarray(getattr(after, name))), name
