"""Pillars facts that the Python rules and the JAX twin (``jax_rules``) both read: the one place
each is written. This module imports nothing of the game, so ``state`` can read it too.
"""

from __future__ import annotations

#: seats a Pillars table can hold (the observation's seat blocks are this many wide)
MAX_SEATS = 6

ONGOING_NAME = "ongoing"
TRUNCATED_NAME = "truncated"


def won_name(seat: int) -> str:
    """The result when ``seat`` has won the game."""
    return f"won by seat {seat}"


#: the results a game can end with, as ``rules.outcome_name`` names them: ongoing, a win of each
#: of the six seats, truncated; the twin's ``state.outcome`` indexes this tuple (the env adds
#: ``"illegal action"`` after it)
OUTCOME_NAMES = (ONGOING_NAME, *(won_name(seat) for seat in range(MAX_SEATS)), TRUNCATED_NAME)


def campaign_won_name(seat: int) -> str:
    """The result of a campaign that ``seat`` has won (``campaign.outcome_name``)."""
    return f"campaign won by seat {seat}"


#: the results a campaign can end with, as ``campaign.outcome_name`` names them: ongoing, a win
#: of each of the six seats, truncated; the campaign twin's ``state.outcome`` indexes this tuple
#: (the env adds ``"illegal action"`` after it)
CAMPAIGN_OUTCOME_NAMES = (ONGOING_NAME, *(campaign_won_name(seat) for seat in range(MAX_SEATS)), TRUNCATED_NAME)

#: cards a new player's hand is dealt (ruling 4)
HAND_SIZE = 10
#: cards the first pillar draws at once (ruling 36)
FIRST_PILLAR_DRAW = 6
