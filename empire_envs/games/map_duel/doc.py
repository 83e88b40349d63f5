"""The env docstring of Map Duel: Gymnasium's sections, with the action and observation tables
and sizes filled from the code (``core.docstrings.env_docstring``)."""

from __future__ import annotations

from ...core.docstrings import env_docstring
from . import actions, observe

_TEMPLATE = """Map Duel: two players' face cards fight over a map built from the 36 number cards.

## Description

``player_0`` owns the red face cards (J, Q, K, A of diamonds and hearts), ``player_1`` the black
ones. In the setup the players take turns placing the drawn number cards (2-10) into a map under
a parity and colour rule, then each puts a starting J, Q or K next to it (the first one face
down). Each turn a player may make one step-1 move (swap a face with a neighbouring number card,
swap with its own Ace, sacrifice an own-colour pool card to move a face, or spend
opposite-colour pool cards to place a new face), then each of its faces may consume a
neighbouring number card into its pool, build a pool card onto the map, or confront an enemy
face. A player whose colour is the only one left among the map's number cards wins; a player
with no face on the map loses. The full rules, with every ruling the project adopted, are in
``docs/rules/map_duel.md``.

## Action Space

``Discrete({num_actions})`` (``B * B + FIXED_ACTIONS`` for a ``B x B`` board). Cells and directions are in
the acting agent's own frame. Only the actions of ``observation["action_mask"]`` are legal; in
``env()`` an illegal action ends the game with -1 for its agent; ``raw_env`` raises
``IllegalActionError`` and keeps the state.

{action_table}

## Observation Space

``Dict({{"observation": Box(0, MAX_POOL_VALUE, ({obs_size},), float32), "action_mask": Box(0, 1,
(n_actions,), int8)}})``, egocentric. Hidden: the setup deck's order and, during the setup,
which face the other player laid face down (with ``hidden_pools=True`` also the opponent's pool).

{observation_table}

## Rewards

+1 to the winner, -1 to the loser, 0 for a draw or a truncated game. ``shaping=c`` adds
``c`` times the change of each player's colour share of the map's number cards.

## Episode End

Terminated on a win (``infos[agent]["result"]`` is ``"won by player_0"`` or
``"won by player_1"``) or a draw (no progress for ``no_progress_turns`` turns, or both players
succeeding at once). Truncated after ``length_limit`` turns.

## Arguments

{{arguments}}
(every default as the code has it; ``MapDuelConfig`` documents each flag). ``render_mode``:
``"ansi"`` (text), ``"rgb_array"`` (a picture) or ``"human"`` (that picture in a pygame window,
drawn by ``reset`` and ``step``). ``reset(options={{"deck": [...]}})`` stacks the
36 number ids in draw order (the first goes to the centre).

Registered ids: ``MapDuel-v0``, ``MapDuelRandomFirst-v0``, ``MapDuelHiddenPools-v0``,
``MapDuelKing8-v0`` and ``MapDuelB15-v0`` under the ``empire_envs/`` namespace.

## Version History

- v0: initial release.
"""

#: the template's words that stand for sizes of the code (``env_docstring`` fills the common ones)
_SIZES = {"FIXED_ACTIONS": actions.FIXED_ACTIONS, "MAX_POOL_VALUE": observe.MAX_POOL_VALUE}


def _with_sizes(template: str) -> str:
    for word, value in _SIZES.items():
        template = template.replace(word, str(value))
    return template


ENV_DOC = env_docstring(_with_sizes(_TEMPLATE), actions, observe)
