"""The env docstring of Toy Nim (Gymnasium's sections; ``{arguments}`` is filled by
``empire_envs.envs`` with the real call and every config default read from the code)."""

from __future__ import annotations

from empire_envs.core.docstrings import rst_tables

from . import actions, observe

ENV_DOC = f"""Toy Nim: take cards from a face-down pile, keep the best, take the last one.

## Description

The example game of ``docs/adding_a_game.md``: two seats, one face-down pile. A turn takes 1 to
``max_take`` cards; a hand above ``hand_limit`` cards discards face up down to it. At the end
each seat scores its hand (A = 1 ... K = 13) plus ``last_card_bonus`` for the last card taken.

## Action Space

``Discrete(max_take + 52)``; ``observe(agent)["action_mask"]`` gives the legal ones.

{rst_tables(actions.__doc__ or "")}

## Observation Space

``Box(0, 1, ({observe.OBSERVATION_SIZE},), float32)`` per agent, in a Dict with its int8 mask.

{rst_tables(observe.__doc__ or "")}

## Rewards

+1 for the higher score and -1 for the other at the end; 0 each on equal scores.

## Episode End

Terminated when the pile is empty and the last discards are done; never truncated.

## Arguments

{{arguments}}

## Version History

- v0: initial release.
"""
