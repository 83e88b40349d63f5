"""The Emperor Overlord campaign in JAX: the batched twin of ``campaign.py``, proven identical to
it.

A ``CampaignState`` holds the current game (a ``jax_state.State``, stepped by ``jax_rules``)
and the campaign's record. Each rule has one place in both:

==================================  ==================================  ===========================
rule                                Python (``campaign.py``)            here
==================================  ==================================  ===========================
the first game's deal               ``new_campaign``                    ``make_init``
a game's win credits its empire;    ``apply_action``                    ``make_step``
a game's own result pays nothing
the series ends: a seat with all    ``apply_action``, ``returns``       ``make_step``
three empires wins (+1, the
others the scheme's loss), or
``campaign_max_games`` truncate
a finished game deals the next      ``apply_action``                    ``make_step`` (the deal,
(from the key)                      (``rules.new_game``)                ``jax_rules.only_where``)
legal actions, the seat to act      ``legal_mask``, ``acting_player``   ``_settle`` (the game's)
the observation                     ``observe_campaign``                ``observe`` (the game's,
                                                                        ``jax_observe.
                                                                        campaign_block``)
==================================  ==================================  ===========================

The campaign's pgx fields are its own: ``rewards`` (a game's shaping, the campaign's result),
``terminated`` and ``truncated`` (the campaign's end; a game's end inside it is neither),
``outcome`` (an index of ``OUTCOME_NAMES``); ``current_player``, ``legal_action_mask`` and
``observation`` follow the current game (the mask all zero once the campaign is over). The
game's own ``observation`` is kept empty (``float32[0]``): the campaign's holds that view, and a
second copy would double what a step writes. A game ends about once in a few thousand steps, so
a step deals a new one only for the games of a batch that need it (``jax_rules.only_where``).

The Python rules draw a new game's shuffle (``rng.permutation``) and first player
(``rng.integers``) from the step's generator; ``make_python_draws`` hands them the twin's. A
step that ends a game never flips a coin nor reshuffles (a game ends by a winning discard, a
truncation before a turn's draw, or an ``end_draw`` truncation, which never reshuffles), so a
step's draws are either the game's or the new deal's.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ...core.errors import ILLEGAL_ACTION_OUTCOME
from ...core.jax_game import JaxRules, JaxState, fresh_pgx_fields, jax_state
from ...core.rng import PresetDraws
from . import jax_rules
from .actions import layout_for
from .campaign import NUM_EMPIRES, CampaignConfig, CampaignState, observation_size
from .jax_state import WON_BY_0 as GAME_WON_BY_0
from .jax_state import State, arrangement, blank_state, make_codec, python_deck
from .state import ONGOING, TRUNCATED, WON, full_deck_counts, kinds_for
from .tables import CAMPAIGN_OUTCOME_NAMES, TRUNCATED_NAME, campaign_won_name

#: ``state.outcome`` indexes these: the campaign's results (``tables.CAMPAIGN_OUTCOME_NAMES``),
#: then the env's illegal action
OUTCOME_NAMES = (*CAMPAIGN_OUTCOME_NAMES, ILLEGAL_ACTION_OUTCOME)
ONGOING_RESULT = 0
WON_BY_0 = 1  # WON_BY_0 + seat
TRUNCATED_RESULT = CAMPAIGN_OUTCOME_NAMES.index(TRUNCATED_NAME)
assert CAMPAIGN_OUTCOME_NAMES[WON_BY_0] == campaign_won_name(0)


@jax_state
@dataclasses.dataclass(frozen=True)
class Campaign(JaxState):
    """The twin's campaign: the current ``game``, ``empires_won`` (``bool[n, 3]``: seat, empire
    - 1), ``games_played`` (``int32``) and the campaign's ``outcome`` (``int8``, an index of
    ``OUTCOME_NAMES``; Python: ``outcome`` and ``winner``)."""

    game: State
    empires_won: jax.Array
    games_played: jax.Array
    outcome: jax.Array


def blank_campaign(config: CampaignConfig) -> Campaign:
    """A campaign before its first deal (``make_init`` deals into it)."""
    n, kinds = config.num_players, kinds_for(config)
    return Campaign(
        game=_without_view(blank_state(config)),
        empires_won=jnp.zeros((n, NUM_EMPIRES), dtype=jnp.bool_),
        games_played=jnp.int32(0),
        outcome=jnp.int8(ONGOING_RESULT),
        **fresh_pgx_fields(observation_size(config), layout_for(kinds).size, n),
    )


def observe(state: Campaign, seat: jax.Array, config: CampaignConfig) -> jax.Array:
    """``campaign.observe_campaign``: ``seat``'s view of the current game, then the campaign
    block."""
    from . import jax_observe

    return jax_observe.observe_campaign(state.game, state.empires_won, state.games_played, seat, config)


def _settle(state: Campaign, config: CampaignConfig) -> Campaign:
    """The campaign's pgx fields from its game and record: the seat to act and the mask are the
    game's (no action once the campaign is over), the view the game's view of that seat (the
    game's step computed it; the game keeps no copy) and the campaign block."""
    from . import jax_observe

    over = state.outcome != ONGOING_RESULT
    seat = state.game.current_player
    block = jax_observe.campaign_block(state.empires_won, state.games_played, seat, config.num_players)
    return state.replace(
        game=_without_view(state.game),
        current_player=seat,
        legal_action_mask=state.game.legal_action_mask & ~over,
        terminated=over & (state.outcome != TRUNCATED_RESULT),
        truncated=state.outcome == TRUNCATED_RESULT,
        observation=jnp.concatenate([state.game.observation, block]),
    )


def _without_view(game: State) -> State:
    return game.replace(observation=jnp.zeros(0, dtype=jnp.float32))


def make_init(config: CampaignConfig):
    """The twin of ``campaign.new_campaign``: the first game dealt as ``jax_rules`` deals one."""
    deal = jax_rules.make_init(config)
    template = blank_campaign(config)

    def init(key: jax.Array) -> Campaign:
        return _settle(template.replace(game=deal(key)), config)

    return init


def make_step(config: CampaignConfig):
    """The twin of ``campaign.apply_action`` for one config (its flags are static)."""
    n = config.num_players
    seats = np.arange(n)
    game_step = jax_rules.make_step(config)
    deal = jax_rules.only_where(jax_rules.make_init(config))
    loss = -1.0 if config.reward_scheme == "win_loss" else -1.0 / (n - 1)

    def step(state: Campaign, action: jax.Array, key: jax.Array) -> Campaign:
        """One legal action of the seat to act in the current game (``adapters.jax_env``
        handles illegal actions and a finished campaign)."""
        # one key for both: the game's step and a deal draw from distinct streams of it
        # (``jax_rules._random_words``), and JAX's split would cost a threefry of the batch
        game = game_step(state.game, action, key)
        ended = game.terminated | game.truncated
        winner = game.outcome.astype(jnp.int32) - GAME_WON_BY_0
        won = (winner >= 0) & (winner < n)
        at_winner = seats == winner
        result = jnp.where(at_winner, 1.0, loss).astype(jnp.float32)
        # a game's own win pays nothing here (its shaping does): only the series counts
        rewards = game.rewards - won * result
        empire = jnp.where(at_winner, game.empire.astype(jnp.int32), 0).sum()
        empires_won = state.empires_won | (won & at_winner[:, None] & (np.arange(NUM_EMPIRES) == empire - 1))
        played = state.games_played + ended
        champion = won & (at_winner & empires_won.all(axis=1)).any()
        truncating = ended & ~champion & (played >= config.campaign_max_games)
        dealing = ended & ~champion & ~truncating
        fresh = deal(dealing, key)
        game = jax.tree_util.tree_map(lambda new, old: jnp.where(dealing, new, old), fresh, game)
        outcome = jnp.where(champion, WON_BY_0 + winner, jnp.where(truncating, TRUNCATED_RESULT, state.outcome))
        state = state.replace(
            game=game,
            empires_won=empires_won,
            games_played=played.astype(state.games_played.dtype),
            outcome=outcome.astype(state.outcome.dtype),
            rewards=rewards + champion * result,
            step_count=state.step_count + 1,
        )
        return _settle(state, config)

    return step


# --------------------------------------------------------------------------- to and from Python


def _python_result(outcome: int, n: int) -> tuple[int, int]:
    if WON_BY_0 <= outcome < WON_BY_0 + n:
        return WON, outcome - WON_BY_0
    return (ONGOING, -1) if outcome == ONGOING_RESULT else (TRUNCATED, -1)


def make_to_python(config: CampaignConfig):
    """``to_python(state)``: the Python ``CampaignState`` of one (unbatched) campaign."""
    game_codec = make_codec(config)

    def to_python(state: Campaign) -> CampaignState:
        host = jax.tree_util.tree_map(lambda leaf: np.asarray(jax.device_get(leaf)), state)
        python = CampaignState(config, game_codec.to_python(host.game, config))
        python.empires_won = host.empires_won.astype(np.int64).tolist()
        python.games_played = int(host.games_played)
        python.outcome, python.winner = _python_result(int(host.outcome), config.num_players)
        return python

    return to_python


def from_python(python: CampaignState) -> Campaign:
    """The twin campaign of a Python ``CampaignState`` (scripted positions), settled as ``step``
    leaves one (rewards zero)."""
    config = python.config
    if python.outcome == WON:
        outcome = WON_BY_0 + python.winner
    else:
        outcome = TRUNCATED_RESULT if python.outcome == TRUNCATED else ONGOING_RESULT
    state = blank_campaign(config).replace(
        game=jax_rules.from_python(python.game),
        empires_won=jnp.asarray(np.array(python.empires_won, dtype=bool)),
        games_played=jnp.int32(python.games_played),
        outcome=jnp.int8(outcome),
    )
    return _settler(config)(state)


@cache
def _settler(config: CampaignConfig):
    return jax.jit(lambda state: _settle(state, config))


def make_python_draws(config: CampaignConfig):
    """``JaxRules.python_draws`` of a campaign: the draws of its game's step, or, when the step
    dealt a new game, that deal's shuffle (a permutation of the cards in kind order) and first
    player; of the first deal (``before`` None) its first player."""
    game_draws = jax_rules.make_python_draws(config)
    cards = [kind for kind, count in enumerate(full_deck_counts(config)) for _ in range(count)]

    def python_draws(before: Any, after: Any) -> PresetDraws:
        if before is None:
            return game_draws(None, after.game)
        if int(after.games_played) > int(before.games_played) and int(after.outcome) == ONGOING_RESULT:
            order = python_deck(after.game)
            return PresetDraws(permutations=[arrangement(cards, order)], integers=[int(after.game.turn_player)])
        return game_draws(before.game, after.game)

    return python_draws


def rules_for(config: CampaignConfig) -> JaxRules:
    """The campaign twin of one config, as ``core.jax_game.JaxRules``."""
    from .campaign import CAMPAIGN_GAME

    return JaxRules(
        name="Pillars campaign",
        game=CAMPAIGN_GAME,
        config=config,
        num_actions=layout_for(kinds_for(config)).size,
        observation_size=observation_size(config),
        init=make_init(config),
        step=make_step(config),
        observe=lambda state, seat: observe(state, seat, config),
        outcome_names=OUTCOME_NAMES,
        to_python=make_to_python(config),
        python_deck=lambda state: python_deck(state.game),
        reshuffle_orders=lambda before, after: [],
        num_players=config.num_players,
        python_draws=make_python_draws(config),
    )
