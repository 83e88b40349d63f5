"""The env docstring of Empire solo: Gymnasium's sections, with the action and observation tables
and sizes filled from the code (``core.docstrings.env_docstring``)."""

from __future__ import annotations

from ...core.docstrings import env_docstring
from . import actions, observe

_TEMPLATE = """Empire solo: recruit soldiers, fight the face cards, stack toward three bases.

## Description

One player, one shuffled 52-card deck, six territories (keeps 0-2 may hold stacks, outposts
3-5 hold one card). Each turn the player may merge units, then draws a card and reacts to it:
soldiers (A-10) are recruited or stacked; black J/Q/K/A promote a battalion into a native or turn
a base builder into a base; face cards must be fought (Jack: any unit wins; Queen: one unit
against each revealed enemy until one wins; King: two enemies a round, fought as SUM or SPLIT).
Three bases win; needing a unit and having none loses. The full rules, with every ruling the
project adopted, are in ``docs/rules/solo.md``.

## Action Space

``Discrete({num_actions})``. Only the actions of ``info["action_mask"]`` (also
``env.action_masks()`` on the env itself, ``env.get_wrapper_attr("action_masks")()`` on what
``gym.make`` returns) are legal; an illegal one ends the episode with reward
``illegal_action_penalty`` and ``info["illegal_action"] = True`` (or raises
``IllegalActionError`` with ``illegal_action="raise"``). The organize phase is offered only when
a merge is possible; otherwise the turn's card is drawn at once.

{action_table}

## Observation Space

``Box(0, 1, ({obs_size},), float32)``: everything the player could know (not the deck's order).

{observation_table}

## Rewards

+1 when the third base is founded, -1 when a unit must be sent and none is left, 0 otherwise.
With ``shaping=1.0`` forming a super soldier, battalion, native, base builder or base pays
``shaping_values`` (default 0.01, 0.02, 0.04, 0.06, 0.10; another ``shaping`` scales them), at
most ``shaping_cap`` (0.5) in all.

## Episode End

Terminated on a win or a loss (``info["outcome"]`` is ``"won"`` or ``"lost"``). Truncated when a
card must be drawn after ``length_limit`` draws (``"truncated"``), or if deck and discard are both
empty. An illegal action terminates with ``"illegal action"``. The last step's
``info["is_success"]`` is True for a win (the key SB3 logs as its success rate).

## Arguments

{{arguments}}
(every default as the code has it; ``SoloConfig`` documents each flag).
``render_mode``: ``"ansi"`` (text), ``"rgb_array"`` (a 420x720 picture) or ``"human"`` (that
picture in a pygame window, drawn by ``reset`` and ``step``; ``pip install 'empire-envs[human]'``).
``reset(seed=..., options={{"deck": ["QS", "7H", ...]}})`` stacks the deck, top card first
(a full order or only the top cards; the rest follow in seeded random order).

Registered variants: ``EmpireSoloShaped-v0`` (``shaping=1.0``) and
``EmpireSoloMergeInBattle-v0`` (``merge_in_battle=True``).

## Version History

- v0: initial release.
"""

ENV_DOC = env_docstring(_TEMPLATE, actions, observe)
