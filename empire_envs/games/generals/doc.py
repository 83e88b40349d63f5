"""The env docstring of Empires and Generals: Gymnasium's sections, with the action and observation tables
and sizes filled from the code (``core.docstrings.env_docstring``)."""

from __future__ import annotations

from ...core.docstrings import env_docstring
from . import actions, observe

_TEMPLATE = """Empires and Generals: 2-4 empires build an economy, raise Generals and Soldiers, and
fight for cultural health (CH). Every card is data: the project's own 50-card pool and four
prebuilt decks ship with the package, and a user's own pool and decks load from TOML files.

## Description

Each seat plays one deck (Rome, Mongols, Egypt or Franks by default) with its own Playing Deck
and Supply Pile. A turn: declare play or pass; draw (choosing the pile); harvest (resources go
to the Supply Line and are spent automatically and optimally when something is paid for); the
Kingdom phase (Kingdom, Strategy, Capitol cards and main tactics); the Army phase (units to the
Warcamp or, when allowed, the Battlefield; abilities); the Attack phase (moves, then at most one
attack by one unit on an opponent's Battlefield, or its Warcamp for a raider); the defender
blocks, both sides may answer with one battle tactic, and one of the fourteen outcomes (seven per
zone) follows; then the hand limit. A player reaching the target CH wins (Chancellor victory,
not in a Slaughterhouse); a player falling to the elimination line leaves the game, and the last
one left wins (Warlord victory). The full rules, with every ruling the project adopted, are in
``docs/rules/generals.md``.

## Action Space

``Discrete({num_actions})`` for the default pool and 4 seats (``7 + 4K + 4U + 2U(P - 1) +
P - 1`` for ``K`` card kinds, ``U = 10`` unit slots, ``P = max_seats``). Only the actions of
``observation["action_mask"]`` are legal; a decision with exactly one legal action is taken by
the env itself. In ``env()`` an illegal action ends the game with -1 for its agent; ``raw_env``
raises ``IllegalActionError`` and keeps the state.

{action_table}

## Observation Space

``Dict({{"observation": Box(-1, 100, ({obs_size},), float32), "action_mask": Box(0, 1,
(n_actions,), int8)}})`` for the default pool and 4 seats; card files whose numbers can pass 100
raise the upper bound to what their decks can reach (computed when the env is made). Hidden:
other players' hands (their sizes show), the order of every pile, and other players' pile
contents.

{observation_table}

## Rewards

``reward_scheme="win_loss"``: +1 to the winner and -1 to every other player (an eliminated
player gets its -1 when it is eliminated); 0 to the players still in a truncated game.
``"placement"``: by finishing order, from +1 for first to -1 for last. ``shaping=c`` adds
``c`` per CH point gained and ``-c`` per point lost.

## Episode End

Terminated for everyone by a Chancellor victory (unless ``play_for_second=True``) or when one
player is left (``infos[agent]["result"]`` says which victory). An eliminated agent is
terminated alone (reward -1), takes its ``None`` step and leaves ``agents``; the others play on.
Truncated after ``length_limit`` rounds.

## Arguments

{{arguments}}
(every default as the code has it; ``GeneralsConfig`` documents each flag; ``render_mode``:
``"ansi"``, ``"rgb_array"`` or ``"human"``, the ``rgb_array`` picture in a pygame window drawn by
``reset`` and ``step``). ``card_pool`` and ``deck_files`` take text or ``pathlib.Path`` paths; the
files are read and checked once, when the env is made, and every refusal names the argument.
``reset(options={{"decks": [...], "first_player": seat}})`` fixes the decks and the first player
of one game (checked before use: a list of deck ids, an integer seat).

Registered ids: ``Generals-v0``, ``GeneralsQuick-v0``, ``GeneralsEpic-v0``,
``GeneralsSlaughter-v0``, ``Generals3p-v0``, ``Generals4p-v0`` and ``Generals4pSlaughter-v0``
under the ``empire_envs/`` namespace.

## Version History

- v0: initial release.
"""

ENV_DOC = env_docstring(_TEMPLATE, actions, observe)
