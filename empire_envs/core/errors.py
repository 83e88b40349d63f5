"""Errors shared by every game."""

from gymnasium.error import ResetNeeded as _GymnasiumResetNeeded

#: the outcome an env reports for a game ended by an illegal action (``illegal_action="penalize"``
#: in the Python envs, every illegal action in the compiled JAX step)
ILLEGAL_ACTION_OUTCOME = "illegal action"


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state.

    Raised by the rules; the environments turn it into a documented penalty unless asked to raise.
    """


class ResetNeeded(_GymnasiumResetNeeded, AssertionError):
    """A call that needs a game in progress (``step``, ``observe``, ``legal_actions``, ``render``,
    ``action_masks``) made before the first ``reset()``.

    A subclass of ``gymnasium.error.ResetNeeded``, which is what to catch: it covers the raw and
    wrapped envs of every game, including the check that ``gymnasium.make``'s own order-enforcing
    wrapper makes with the base class. It is also an ``AssertionError``, the class PettingZoo's
    order-enforcing wrapper raises for the same mistake, so code written against PettingZoo's
    wrappers keeps working with ours.
    """


class ResetNeededAttributeError(ResetNeeded, AttributeError):
    """An attribute that only a game in progress has (``agent_selection``, ``rewards``,
    ``terminations``, ``truncations``, ``infos``; through PettingZoo's wrappers also ``agents``
    and ``num_agents``) read before the first ``reset()``.

    A ``ResetNeeded`` like every other call made too early, and also an ``AttributeError``: what
    PettingZoo's order-enforcing wrapper raises for these, and what ``hasattr`` and ``getattr``
    with a default expect of an attribute that is not there yet.
    """


class ActionOutOfSpaceError(ValueError, AssertionError):
    """An action outside the action space, given to a PettingZoo env through its ``env()``
    factory: the message names the action, the agent and the space.

    A ``ValueError``, as the bare env raises for the same action, and also an ``AssertionError``,
    the class of PettingZoo's ``AssertOutOfBoundsWrapper`` check that this replaces.
    """


class ActionTypeError(TypeError, ValueError):
    """An action of the wrong type or dtype: a bool, a float, a string, an object array. It is
    a ``TypeError``, as the Python env raises for one, and a ``ValueError`` too, which is what
    ``JaxVectorEnv.step`` raised for these before, so code that catches either keeps working
    (numpy's ``AxisError`` is a ``ValueError`` and an ``IndexError`` for the same reason)."""
