"""Explicit random number generators: every random draw in a game goes through one of these."""

from __future__ import annotations

import numpy as np


def as_generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    """A ``numpy.random.Generator`` from a Generator (returned as is), an int seed, or None."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
        raise TypeError(f"rng must be a numpy Generator, an int seed or None, got {rng!r}")
    return np.random.default_rng(int(rng))


def shuffled(cards: list[int], rng: np.random.Generator) -> list[int]:
    """A new list with ``cards`` in an order drawn from ``rng``."""
    return [cards[i] for i in rng.permutation(len(cards))]
