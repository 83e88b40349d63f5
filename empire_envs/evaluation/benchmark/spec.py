"""What a benchmark is asked to run: env variants written ``SPEC[@key=value,...]``, their table
labels, and the seeds and episode counts (seed ``k`` plays episodes ``k * SEED_STRIDE + i``).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...registry import NAMESPACE
from ..evaluate import episode_deal_and_seat, parse_env_kwarg

#: seed k plays episodes seed_base(k) + i; episodes per seed may not exceed it (no shared deals)
SEED_STRIDE = 1_000_000

#: the prefix dropped from env labels
_PACKAGE_PREFIX = f"{NAMESPACE}/"


class BenchmarkError(ValueError):
    """Input the benchmark cannot run (an unknown env, an agent no env has, bad numbers)."""


@dataclass(frozen=True)
class EnvVariant:
    """One column group of the benchmark: an env spec, its settings and its table label."""

    spec: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""

    @classmethod
    def parse(cls, text: str) -> EnvVariant:
        """The variant written as ``SPEC[@key=value,...]``, labelled by that text."""
        spec, kwargs = parse_env_spec(text)
        return cls(spec, kwargs, env_label(text))


def env_label(text: str) -> str:
    """The table label of an env spec text: the text with the ``empire_envs/`` prefix dropped."""
    text = text.strip()
    return text[len(_PACKAGE_PREFIX) :] if text.startswith(_PACKAGE_PREFIX) else text


def _split_settings(text: str) -> list[str]:
    """Split ``a=1,b=(1,2),c='x,y'`` at the commas outside brackets and quotes."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    start = 0
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def parse_env_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``SPEC[@key=value,key=value]`` -> ``(spec, kwargs)``.

    Values are read as Python literals as ``evaluate.parse_env_kwarg`` does (``200``, ``True``,
    ``(0, 1)``; a bare word stays a string); commas inside brackets or quotes do not split.
    Raises ``BenchmarkError`` (a ``ValueError``) for an empty spec, a setting without ``=``,
    an empty settings part or a key given twice.
    """
    spec, at, settings = text.strip().partition("@")
    spec = spec.strip()
    if not spec:
        raise BenchmarkError(f"env spec {text!r} names no env (expected SPEC[@key=value,...])")
    kwargs: dict[str, Any] = {}
    if not at:
        return spec, kwargs
    if not settings.strip():
        raise BenchmarkError(f"env spec {text!r} has an '@' but no key=value settings after it")
    for part in _split_settings(settings):
        try:
            key, value = parse_env_kwarg(part)
        except argparse.ArgumentTypeError as error:
            raise BenchmarkError(f"env spec {text!r}: {error}") from None
        if not key.isidentifier():
            raise BenchmarkError(f"env spec {text!r}: {key!r} is not a keyword name")
        if key in kwargs:
            raise BenchmarkError(f"env spec {text!r} sets {key!r} twice")
        kwargs[key] = value
    return spec, kwargs


def as_variant(env: str | EnvVariant) -> EnvVariant:
    """``env`` as an ``EnvVariant`` (a spec text is parsed)."""
    return env if isinstance(env, EnvVariant) else EnvVariant.parse(env)


def safe_label(label: str) -> str:
    """``label`` as a file-name part: runs of characters other than ``[A-Za-z0-9._-]`` become ``_``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_") or "env"


def check_counts(seeds: Sequence[int], episodes: int) -> None:
    """``BenchmarkError`` unless ``seeds`` are distinct and non-negative and ``episodes`` per seed
    lies in ``1..SEED_STRIDE`` (so that no two seeds share a deal)."""
    if episodes < 1:
        raise BenchmarkError(f"episodes must be at least 1, got {episodes}")
    if episodes > SEED_STRIDE:
        raise BenchmarkError(
            f"episodes per seed may be at most {SEED_STRIDE} (seeds would share deals), got {episodes}"
        )
    if not seeds:
        raise BenchmarkError("no seed given")
    if any(seed < 0 for seed in seeds):
        raise BenchmarkError(f"seeds must be non-negative, got {list(seeds)}")
    if len(set(seeds)) != len(seeds):
        raise BenchmarkError(f"a seed is given twice: {list(seeds)}")


def seed_base(seed: int) -> int:
    """The first episode seed of benchmark seed ``seed``."""
    return seed * SEED_STRIDE


def split_episodes(
    first_seed: int, episodes: int, parts: int, players: int = 1, seat_rotation: str = "deal"
) -> list[tuple[int, int]]:
    """``evaluate_agent(..., episodes, seed=first_seed)`` as up to ``parts`` calls that play the
    same episodes: ``(seed, count)`` pairs.

    Each part but the last holds ``size`` episodes, ``episodes / parts`` rounded up to a multiple
    of ``players``, so every part starts on the first seat; the part starting at episode ``e``
    starts on that episode's deal (``evaluate.episode_deal_and_seat(e, first_seed, players,
    seat_rotation)``, ``seat_rotation`` as the calls', ``evaluate_agent``'s default ``"deal"``).
    Played one after the other or side by side, the parts play every episode of the one call on
    the same deal from the same seat. One part when ``parts`` is 1 or ``episodes <= players``.
    """
    if episodes < 1 or parts < 1 or players < 1:
        raise BenchmarkError(f"need episodes, parts and players >= 1, got {episodes}, {parts}, {players}")
    if parts == 1 or episodes <= players:
        return [(first_seed, episodes)]
    size = -(-episodes // parts)
    size = -(-size // players) * players
    return [
        (episode_deal_and_seat(start, first_seed, players, seat_rotation)[0], min(size, episodes - start))
        for start in range(0, episodes, size)
    ]
