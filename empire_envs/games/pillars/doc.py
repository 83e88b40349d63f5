"""The env docstring of Pillars: Gymnasium's sections, with the action and observation tables
and sizes filled from the code (``core.docstrings.env_docstring``)."""

from __future__ import annotations

from ...core.docstrings import env_docstring
from . import actions, observe

_TEMPLATE = """Pillars, "Empire: The Card Game": steal, trade and battle your way to four pillars.

## Description

3 to 6 seats share 2 packs (3-4 players) or 3 packs (5-6), each 52 cards and 2 Jokers; suits do
not matter, so cards are 14 kinds. Each seat starts with 10 cards. On its turn a seat draws one
card, then (from round 2) steals the top of another seat's discard pile (never a 2), trades
(tables a card, every other seat offers one, it takes one offer) or battles (demands a kind from a
seat; if it has one, rock-paper-scissors decides). Then it may lay pillars (four cards of one rank
3..A, Jokers wild) inside one empire (Thief 3-6, Merchant 7-10, Warlord J-A) and use its bonus
action once it has two, and ends the turn with a discard; a discarded 2 may skip another seat's
next turn. Four pillars and a discard win. The full rules, with every ruling the project
adopted, are in ``docs/rules/pillars.md``.

## Action Space

``Discrete({num_actions})`` for every agent (504 with ``battle_demand="card"``). Only the
actions of ``observation["action_mask"]`` are legal; the mask is all zeros for agents not to act.
Seat offsets count clockwise from the acting agent; offsets beyond ``num_players - 1`` are always
masked. In ``env()``, an illegal action ends the game with -1 for its agent (PettingZoo's
``TerminateIllegalWrapper``); ``raw_env`` raises ``IllegalActionError`` and keeps the state.

{action_table}

## Observation Space

``Dict({{"observation": Box(0, high, ({obs_size},), float32), "action_mask": Box(0, 1,
(n_actions,), int8)}})`` per agent: raw counts from the agent's own seat (``high`` bounds every
count). Hidden: other hands beyond their sizes and the public known-cards lower bound, the
resource pile's order, other responders' trade offers until all are in, and the attacker's
throw until the defender has thrown. The event block keeps every seat's latest turn (who stole,
traded or battled with whom, the demand, the answer, the revealed offers and throws, the outcome,
the skip given), so each agent sees every public event since its own last decision, new ones
flagged (ruling 50; ``docs/rules/pillars.md`` section 4 states the bound).

{observation_table}

## Rewards

When a seat wins: +1 to it, -1 to every other seat (``reward_scheme="zero_sum"``: ``-1/(n-1)``).
A truncated game gives 0 to all. ``shaping=c`` pays ``c`` (at most 0.1) to a seat each
time it lays a pillar.

## Episode End

Terminated when a seat holding four pillars discards: ``infos[agent]["outcome"]`` is ``"won"``
or ``"lost"`` for each agent and ``infos[agent]["result"]`` is ``"won by seat i"``. Truncated
after ``length_limit`` rounds (skipped turns count) or, with ``resource_empty="end_draw"``,
when a draw finds the resource pile empty (``"truncated"``).

## Arguments

{{arguments}}
(every default as the code has it; ``PillarsConfig`` documents each flag). ``PillarsEnv``
(``raw_env``, no wrappers) and ``empire_envs.envs.pillars_env`` take the same keywords.
``render_mode``: ``"ansi"`` (text, every hand shown), ``"rgb_array"`` or ``"human"`` (the
``rgb_array`` picture in a pygame window, drawn by ``reset`` and ``step``). ``reset(seed=...,
options={{"deck": [...], "first_player": 0}})`` stacks the deck (kinds, top card first) and fixes
the first seat.

Registered ids: ``Pillars-v0`` (4 players), ``Pillars3p-v0``, ``Pillars5p-v0``,
``Pillars6p-v0``, ``Pillars2p-v0`` (unofficial), ``PillarsRPSRandom-v0`` (``rps_mode="random"``),
``PillarsExactCard-v0`` (``battle_demand="card"``) and ``PillarsCampaign-v0`` (the Emperor
Overlord series), all under the ``empire_envs/`` namespace of PettingZoo's registry.

## Version History

- v0: initial release.
"""

ENV_DOC = env_docstring(_TEMPLATE, actions, observe)
