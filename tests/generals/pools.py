"""Random legal card pools for the Generals twin's lockstep tests (issue 30).

``random_pool_file(seed, folder)`` writes a card pool that the loader accepts (``cards.load_pool``
checks it when a config is made): every card of the default pool keeps its ref, id, type,
faction, era and rarity (so the shipped decks stay legal decks of it), and every number and
every word of the card's type in the loader's vocabulary (``cards.CARD_KEYS``) is drawn again:
costs, strength and life, keywords, the unit bonuses and on-play/on-kill effects, abilities,
every static count and granted keyword of Kingdom, Strategy and Capitol cards, tactic effects
(the main tactics ``draw`` and ``gain_ch``, which no shipped card has, included) with their side
and amount, resource values. Numbers stay small (a game must still end), within the loader's
limits.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from empire_envs.games.generals.cards import (
    ABILITY_EFFECTS,
    BATTLE_EFFECTS,
    KEYWORDS,
    MAIN_EFFECTS,
    SIDES,
    STATIC_COUNTS,
    load_pool,
    pool_as_dict,
)

#: the keys every card keeps from the default pool (what decks and deck rules read)
KEPT = ("ref", "id", "name", "type", "faction", "era", "rarity", "text", "tags")
UNIT_EXTRAS = ("field_str", "camp_life", "attack_str", "block_life", "on_play_ch", "on_play_draw", "on_kill_ch")


def _some(rng: np.random.Generator, chance: float, low: int, high: int) -> int | None:
    """A number in ``low..high`` with probability ``chance``, else None (the key left out)."""
    return int(rng.integers(low, high + 1)) if rng.random() < chance else None


def random_card(card: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """``card`` (a default pool card as ``pool_as_dict`` writes it) with its numbers and words drawn."""
    kind = card["type"]
    new: dict[str, Any] = {key: card[key] for key in KEPT if key in card}
    extras: dict[str, int | None] = {}
    if kind == "resource":
        new["value"] = int(rng.integers(1, 4))
        if rng.random() < 0.2:
            new["continuous"] = True
        return new
    new["cost"] = int(rng.integers(0, 7))
    if kind in ("general", "soldier"):
        new["strength"] = int(rng.integers(0, 7))
        new["life"] = int(rng.integers(1, 7))
        words = [word for word in KEYWORDS if rng.random() < 0.2]
        if "pull" in words and "no_pull" in words:  # the loader refuses a unit with both
            words.remove(str(rng.choice(["pull", "no_pull"])))
        if words:
            new["keywords"] = words
        extras = {key: _some(rng, 0.15, 1, 2) for key in UNIT_EXTRAS}
        if kind == "general":
            extras["aura_str"] = _some(rng, 0.3, 1, 2)
        if rng.random() < 0.3:
            new["ability"] = {
                "cost": int(rng.integers(0, 3)),
                "effect": str(rng.choice(ABILITY_EFFECTS)),
                "amount": int(rng.integers(1, 3)),
            }
    elif kind in ("kingdom", "strategy", "capitol"):
        extras = {key: _some(rng, 0.2, 1, 2) for key in STATIC_COUNTS}
        extras["on_play_ch"] = _some(rng, 0.2, 1, 2)
        for flag in ("grant_raider", "grant_no_pull"):
            if rng.random() < 0.1:
                new[flag] = True
    elif kind == "tactics":
        timing = card["timing"]
        new["timing"] = timing
        effect = str(rng.choice(BATTLE_EFFECTS if timing == "battle" else MAIN_EFFECTS))
        new["effect"] = effect
        if timing == "battle":
            new["side"] = str(rng.choice(SIDES))
        if effect in ("pump_str", "pump_life", "draw", "gain_ch"):
            new["amount"] = int(rng.integers(1, 4))
    new.update({key: value for key, value in extras.items() if value is not None})
    return new


def random_pool_data(seed: int) -> dict[str, Any]:
    """A whole pool (``pool_as_dict``'s layout) drawn from the default pool's cards."""
    rng = np.random.default_rng(seed)
    data = pool_as_dict(load_pool())
    data["pool"] = f"generated-{seed}"
    data["card"] = [random_card(card, rng) for card in data["card"]]
    return data


def random_pool_file(seed: int, folder: Path) -> Path:
    """``random_pool_data(seed)`` written as a JSON pool file in ``folder``; returns its path."""
    path = Path(folder) / f"generated_pool_{seed}.json"
    path.write_text(json.dumps(random_pool_data(seed), indent=1))
    return path
