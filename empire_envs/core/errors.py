"""Errors shared by every game."""


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state.

    Raised by the rules; the environments turn it into a documented penalty unless asked to raise.
    """
