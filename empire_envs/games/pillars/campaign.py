"""The Emperor Overlord campaign: Pillars games back to back until one player has won a game
with each of the three empires (rulings section 49, ``docs/rules/pillars.md``).

It is a game of its own over ``CampaignState`` (the current Pillars game plus the campaign's
record), so the generic AEC adapter and the search agents use it like any other game. Rewards:
+1 to the player who completes the set and -1 to the others (``-1/(n-1)`` when zero-sum); the
games in between pay nothing but ``shaping``. After ``campaign_max_games`` games without a
champion the campaign is truncated with 0 for all.

The observation is the Pillars observation of the current game followed by the campaign block:

=========  ==================  ================================================================
index      field               meaning
=========  ==================  ================================================================
0-2095     game                the current game's observation (``observe.py``'s tables), its
                               event block included (empty again at each new game)
2096-2113  empires won         per seat offset 0..5: 1 for each of Thief, Merchant, Warlord
                               that seat has won a game with
2114       games played        games finished so far in this campaign
=========  ==================  ================================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.docstrings import rst_tables
from ...core.errors import IllegalActionError
from ...core.game import Game
from ...core.state import CLONE, LISTS, SHARED, VALUE, DeclaredState
from . import actions, observe, render, rules
from .actions import announce_action, layout_for
from .config import PillarsConfig
from .state import (
    EMPIRE_NAMES,
    NO_EMPIRE,
    ONGOING,
    TRUNCATED,
    WON,
    KindSet,
    PillarsState,
    full_deck_counts,
    kinds_for,
)
from .tables import ONGOING_NAME, TRUNCATED_NAME, campaign_won_name

NUM_EMPIRES = len(EMPIRE_NAMES) - 1  # Thief, Merchant, Warlord (NO_EMPIRE aside)


@dataclass(frozen=True)
class CampaignConfig(PillarsConfig):
    """Every Pillars flag (they apply to each game of the series) and the campaign's length.

    Attributes:
        campaign_max_games: the campaign is truncated once this many games have been played
            without a player having won with all three empires.
    """

    campaign_max_games: int = 30

    def __post_init__(self) -> None:
        super().__post_init__()
        value = self.campaign_max_games
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"campaign_max_games must be an int, got {value!r}")
        if value < 3:
            raise ValueError(f"campaign_max_games must be at least 3 (one game per empire), got {value}")


class CampaignState(DeclaredState):
    """The current game, each seat's empires won (``empires_won[seat][empire - 1]``), the games
    finished, and the campaign's own outcome and winner."""

    #: every field and how ``clone()`` copies it (``core.state``)
    FIELDS = {
        "config": SHARED,
        "game": CLONE,
        "empires_won": LISTS,
        "games_played": VALUE,
        "outcome": VALUE,
        "winner": VALUE,
    }
    __slots__ = tuple(FIELDS)

    def __init__(self, config: CampaignConfig, game: PillarsState) -> None:
        self.config = config
        self.game = game
        self.empires_won = [[0] * NUM_EMPIRES for _ in range(config.num_players)]
        self.games_played = 0
        self.outcome = ONGOING
        self.winner = -1

    @property
    def n(self) -> int:
        return self.game.n

    @property
    def kinds(self) -> KindSet:
        return self.game.kinds

    def acting_player(self) -> int:
        return acting_player(self)


def acting_player(state: CampaignState) -> int:
    """The seat to act in the current game; -1 once the campaign is over."""
    return -1 if state.outcome else rules.acting_player(state.game)


def new_campaign(config: CampaignConfig, rng: np.random.Generator, deck=None, first_player=None) -> CampaignState:
    """A campaign whose first game is dealt with ``rules.new_game`` (its options stack it)."""
    return CampaignState(config, rules.new_game(config, rng, deck=deck, first_player=first_player))


def apply_action(state: CampaignState, action: int, rng: np.random.Generator) -> list[float]:
    if state.outcome:
        raise IllegalActionError("the campaign is over")
    game = state.game
    rewards = rules.apply_action(game, action, rng)
    if not rules.is_terminal(game):
        return rewards
    if game.outcome == WON:  # a game's own win pays nothing here; only the series counts
        for seat, value in enumerate(rules.final_rewards(game)):
            rewards[seat] -= value
        state.empires_won[game.winner][game.empire[game.winner] - 1] = 1
    state.games_played += 1
    if game.outcome == WON and all(state.empires_won[game.winner]):
        state.outcome = WON
        state.winner = game.winner
        for seat, value in enumerate(returns(state)):
            rewards[seat] += value
    elif state.games_played >= state.config.campaign_max_games:
        state.outcome = TRUNCATED
    else:
        state.game = rules.new_game(state.config, rng)
    return rewards


def returns(state: CampaignState) -> list[float]:
    """The campaign's own result, scored like one game's (``rules.win_rewards``)."""
    return rules.win_rewards(state.n, state.winner if state.outcome == WON else -1, state.config)


def legal_actions(state: CampaignState) -> list[int]:
    return [] if state.outcome else rules.legal_actions(state.game)


def legal_mask(state: CampaignState) -> np.ndarray:
    if state.outcome:
        return np.zeros(layout_for(state.kinds).size, dtype=np.int8)
    return rules.legal_mask(state.game)


def observe_campaign(state: CampaignState, player: int) -> np.ndarray:
    inner = observe.observe(state.game, player)
    extra = np.zeros(observe.MAX_SEATS * NUM_EMPIRES + 1, dtype=np.float32)
    for offset in range(state.n):
        seat = (player + offset) % state.n
        extra[offset * NUM_EMPIRES : (offset + 1) * NUM_EMPIRES] = state.empires_won[seat]
    extra[-1] = state.games_played
    return np.concatenate([inner, extra])


def observation_size(config: CampaignConfig) -> int:
    return observe.observation_size(kinds_for(config)) + observe.MAX_SEATS * NUM_EMPIRES + 1


def determinize(state: CampaignState, player: int, rng: np.random.Generator) -> CampaignState:
    copy = state.clone()
    copy.game = rules.determinize(state.game, player, rng)
    return copy


def outcome_name(state: CampaignState) -> str:
    if state.outcome == WON:
        return campaign_won_name(state.winner)
    return TRUNCATED_NAME if state.outcome == TRUNCATED else ONGOING_NAME


def to_text(state: CampaignState, viewer: int | None = None) -> str:
    record = "; ".join(
        f"seat {seat}: "
        + (",".join(name for name, won in zip(EMPIRE_NAMES[NO_EMPIRE + 1 :], row, strict=True) if won) or "-")
        for seat, row in enumerate(state.empires_won)
    )
    header = f"Campaign: {state.games_played} game(s) played; empires won: {record}"
    if state.outcome:
        header += f"; {outcome_name(state)}"
    return header + "\n" + render.to_text(state.game, viewer)


def heuristic_values(state: CampaignState) -> list[float]:
    if state.outcome:
        return returns(state)
    # Empires already won dominate; the current game's progress breaks ties.
    game_values = rules.heuristic_values(state.game)
    scores = [sum(row) + 0.5 * value for row, value in zip(state.empires_won, game_values, strict=True)]
    values = []
    for seat in range(state.n):
        best_other = max(scores[s] for s in range(state.n) if s != seat)
        values.append(max(-1.0, min(1.0, (scores[seat] - best_other) / 3.0)))
    return values


_DOC = """Pillars' Emperor Overlord campaign: Pillars games until one player has won with all
three empires.

## Description

A series of Pillars games (``empire_envs.envs.PillarsEnv`` describes one game)
among the same seats. A player who wins a game is credited with that game's empire (Thief,
Merchant or Warlord); the first to hold all three wins the campaign. See
``docs/rules/pillars.md``.

## Action Space

``Discrete({num_actions})``: the Pillars action table, for the current game.

{action_table}

## Observation Space

``Dict({{"observation": Box(0, high, ({obs_size},), float32), "action_mask": Box(0, 1,
(n_actions,), int8)}})``: the current game's Pillars observation, then the campaign block.

{campaign_table}

## Rewards

+1 to the campaign's winner, -1 to every other seat (``reward_scheme="zero_sum"``:
``-1/(n-1)``); 0 for everyone when truncated. Single games pay nothing but ``shaping``.

## Episode End

Terminated when a seat completes the three empires (``"campaign won by seat i"``); truncated
after ``campaign_max_games`` games without a champion.

## Arguments

{{arguments}}
(every default as the code has it): every flag of the Pillars env applies to each game of the
series, and ``campaign_max_games`` bounds the series (``CampaignConfig`` documents it).
Registered id: ``PillarsCampaign-v0`` (4 players).

## Version History

- v0: initial release.
"""


ENV_DOC = _DOC.format(
    num_actions=actions.NUM_ACTIONS,
    obs_size=observation_size(CampaignConfig()),
    action_table=rst_tables(actions.__doc__ or ""),
    campaign_table=rst_tables(__doc__ or ""),
)


CAMPAIGN_GAME = Game(
    name="Pillars campaign",
    config_class=CampaignConfig,
    state_class=CampaignState,
    num_players=lambda config: config.num_players,
    num_actions=lambda config: layout_for(kinds_for(config)).size,
    observation_size=observation_size,
    observation_bounds=lambda config: (0.0, max(observe.observation_high(config), float(config.campaign_max_games))),
    max_game_length=lambda config: config.campaign_max_games * rules.max_game_length(config),
    utility_range=rules.utility_range,
    new_game=new_campaign,
    apply_action=apply_action,
    acting_player=acting_player,
    legal_actions=legal_actions,
    legal_mask=legal_mask,
    observe=observe_campaign,
    is_terminal=lambda state: bool(state.outcome),
    is_truncated=lambda state: state.outcome == TRUNCATED,
    outcome=outcome_name,
    returns=returns,
    determinize=determinize,
    action_name=lambda state_or_config, index: layout_for(
        getattr(state_or_config, "kinds", None) or kinds_for(state_or_config)
    ).name(index),
    to_text=to_text,
    to_rgb=lambda state: render.to_rgb(state.game),
    reset_options=("deck", "first_player"),
    # the first game's deal: every card of the packs, in kind order, and seat 0 first
    example_reset_options=lambda config: {
        "deck": [kind for kind, count in enumerate(full_deck_counts(config)) for _ in range(count)],
        "first_player": 0,
    },
    heuristic_values=heuristic_values,
    announce_action=announce_action,
    env_doc=ENV_DOC,
)
