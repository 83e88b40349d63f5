"""The env docstring of Empire Solitaire: Gymnasium's sections, with the action and observation tables
and sizes filled from the code (``core.docstrings.env_docstring``)."""

from __future__ import annotations

from ...core.docstrings import env_docstring
from . import actions, observe

_TEMPLATE = """Empire Solitaire: capture cards on a 5x3 grid until one card remains.

## Description

Fifteen cards are dealt face up in 3 rows of 5; three more form a face-down stock; the other 34
leave the game unseen. A card captures another that shares its rank or suit: orthogonally it
reaches the first occupied cell in a direction (skipping empty cells), diagonally only the
adjacent cell. The captured card leaves the game and the capturing card takes its cell. After the
first capture the player may reveal the top stock card and must then place it on an empty cell.
Won with the stock empty and one card left; lost when no legal action remains. The rules, with
every ruling the project adopted, are in ``docs/rules/solitaire.md``.

## Action Space

``Discrete({num_actions})``. Only the actions of ``info["action_mask"]`` (also
``env.action_masks()`` on the env itself, ``env.get_wrapper_attr("action_masks")()`` on what
``gym.make`` returns) are legal; an illegal one ends the episode with reward
``illegal_action_penalty`` and ``info["illegal_action"] = True`` (or raises
``IllegalActionError`` with ``illegal_action="raise"``).

{action_table}

## Observation Space

``Box(0, 1, ({obs_size},), float32)``: the tableau, the revealed card, the stock size and the
cards captured so far; the stock's identity and order stay hidden.

{observation_table}

## Rewards

+1 for a win, -1 for a loss, 0 otherwise. With ``shaping`` above 0 each capture also pays that
much (the registered Shaped id pays 0.02; at most 17 captures, so at most 0.34 a game).

## Episode End

Terminated on a win or a loss (``info["outcome"]`` is ``"won"`` or ``"lost"``). An episode lasts
at most 23 steps (17 captures, 3 reveals, 3 placements) and is never truncated. An illegal action
terminates with ``"illegal action"``. The last step's ``info["is_success"]`` is True for a win
(the key SB3 logs as its success rate).

## Arguments

{{arguments}}
(every default as the code has it; ``SolitaireConfig`` documents each flag).
``render_mode``: ``"ansi"``, ``"rgb_array"`` (a 340x480 picture) or ``"human"`` (that picture
in a pygame window, drawn by ``reset`` and ``step``; ``pip install 'empire-envs[human]'``).
``reset(seed=..., options={{"deck": [15 tableau cards row by row, then 3 stock cards top first]}})``
plays an explicit deal; a deal with no capture at all is over before any decision, so reset
refuses it with ``ValueError`` (a random deal like that, which did not occur in 20,000 of ours,
is dealt again from the same seeded RNG).

Registered variant: ``EmpireSolitaireShaped-v0`` (``shaping=0.02``).

## Version History

- v0: initial release.
"""

ENV_DOC = env_docstring(_TEMPLATE, actions, observe)
