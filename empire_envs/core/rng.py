"""Explicit random number generators: every random draw in a game goes through one of these."""

from __future__ import annotations

from typing import Any

import numpy as np


class PresetOrders:
    """Stands in for a generator where a game reshuffles, handing out card orders fixed in
    advance: the differential tests drive every mid-game shuffle of the Python rules with the
    order the JAX twin drew, so both play the same cards. ``shuffled`` asks it for the next
    order (``arrange``); any other use is an error, so a shuffle one side made and the other did
    not cannot go unnoticed."""

    def __init__(self, orders: list[list[int]] | None = None) -> None:
        self._orders = [list(order) for order in orders or []]

    def arrange(self, cards: list[int]) -> list[int]:
        if not self._orders:
            raise AssertionError(f"the rules shuffled {len(cards)} cards, and no preset order was given")
        order = self._orders.pop(0)
        if sorted(order) != sorted(cards):
            raise AssertionError(f"the preset order {order} is not an order of the cards {cards}")
        return order

    @property
    def unused(self) -> int:
        """Preset orders no shuffle has asked for yet."""
        return len(self._orders)


class PresetDraws:
    """Stands in for a generator where a game flips coins or draws small numbers, answering
    from values fixed in advance: the differential tests make the Python rules draw exactly what
    the JAX twin drew in a step. ``random()`` hands out the next coin (``True``, heads, as a
    number below one half; ``False`` as one above), ``integers(bound)`` the next preset integer
    (checked to lie below ``bound``; ``integers(bound, size=m)`` the next ``m`` as an array),
    ``permutation(size)`` the next preset permutation (checked to be one of ``range(size)``),
    ``shuffle(values)`` puts a list in the order of the next preset permutation, in place
    (``values[i]`` becomes the old ``values[order[i]]``). Any other use, or a draw with nothing
    preset, is an error, so a draw one side made and the other did not cannot go unnoticed."""

    def __init__(
        self,
        coins: list[bool] | None = None,
        integers: list[int] | None = None,
        permutations: list[list[int]] | None = None,
    ) -> None:
        self._coins = list(coins or [])
        self._integers = list(integers or [])
        self._permutations = [list(p) for p in permutations or []]

    def random(self) -> float:
        if not self._coins:
            raise AssertionError("the rules flipped a coin, and no preset coin was given")
        return 0.25 if self._coins.pop(0) else 0.75

    def integers(self, bound: int, size: int | None = None) -> Any:
        if size is not None:
            return np.array([self.integers(bound) for _ in range(size)], dtype=np.int64)
        if not self._integers:
            raise AssertionError(f"the rules drew an integer below {bound}, and no preset one was given")
        value = self._integers.pop(0)
        if not 0 <= value < bound:
            raise AssertionError(f"the preset integer {value} is not below {bound}")
        return value

    def shuffle(self, values: list[Any]) -> None:
        order = self.permutation(len(values))
        values[:] = [values[index] for index in order]

    def permutation(self, size: int) -> np.ndarray:
        if not self._permutations:
            raise AssertionError(f"the rules shuffled {size} items, and no preset permutation was given")
        order = self._permutations.pop(0)
        if sorted(order) != list(range(size)):
            raise AssertionError(f"the preset permutation {order} is not a permutation of range({size})")
        return np.array(order, dtype=np.int64)

    @property
    def unused(self) -> int:
        """Preset coins, integers and permutations no draw has asked for yet."""
        return len(self._coins) + len(self._integers) + len(self._permutations)


def as_generator(rng: np.random.Generator | PresetOrders | int | None) -> np.random.Generator:
    """A ``numpy.random.Generator`` from a Generator (returned as is), an int seed, or None; a
    ``PresetOrders`` is passed through as well (it only serves ``shuffled``)."""
    if isinstance(rng, (np.random.Generator, PresetOrders)):
        return rng  # type: ignore[return-value]  # PresetOrders serves shuffled() only
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
        raise TypeError(f"rng must be a numpy Generator, an int seed or None, got {rng!r}")
    return np.random.default_rng(int(rng))


def shuffled(cards: list[int], rng: np.random.Generator | PresetOrders) -> list[int]:
    """A new list with ``cards`` in an order drawn from ``rng`` (or preset by a ``PresetOrders``)."""
    if isinstance(rng, PresetOrders):
        return rng.arrange(cards)
    return [cards[i] for i in rng.permutation(len(cards))]
