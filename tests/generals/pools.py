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

``random_deck_files(pool_path, seed, folder)`` writes decks of such a pool that ``check_deck``
accepts (the config checks them when it is made): a Playing Deck of 25 to 45 cards and a Supply
Pile of 6 to 20, each card in its own pile, copies within the rarity caps, at most one ultra
rare per deck, only cards the standard predestination admits, and an empire drawn from the
known four or a new one (the view's "any other empire" slot).
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
    KNOWN_EMPIRES,
    MAIN_EFFECTS,
    PLAYING_DECK_SIZE,
    RARITY_CAPS,
    SIDES,
    STATIC_COUNTS,
    CardPool,
    card_allowed,
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


def _random_pile(kinds: list, size: int, rng: np.random.Generator, ultra_allowed: bool) -> tuple[dict[str, int], bool]:
    """``{card id: copies}`` of ``size`` cards drawn from ``kinds`` (fewer if the caps run out)
    within the rarity caps, with at most one ultra rare when ``ultra_allowed``; and whether it
    took one."""
    pile: dict[str, int] = {}
    took_ultra = False
    for _ in range(size * 10):
        if sum(pile.values()) == size:
            break
        kind = kinds[int(rng.integers(len(kinds)))]
        if kind.is_ultra_rare:
            if took_ultra or not ultra_allowed:
                continue
            took_ultra = True
        elif pile.get(kind.id, 0) >= RARITY_CAPS.get(kind.rarity, size):
            continue
        pile[kind.id] = pile.get(kind.id, 0) + 1
    return pile, took_ultra


def random_deck_data(pool: CardPool, rng: np.random.Generator, deck_id: str) -> dict[str, Any]:
    """One legal deck of ``pool`` (a deck file's layout)."""
    allowed = [kind for kind in pool.kinds if card_allowed(kind) is None]
    playing_kinds = [kind for kind in allowed if not kind.in_supply]
    supply_kinds = [kind for kind in allowed if kind.in_supply]
    low = PLAYING_DECK_SIZE[0]
    playing, took_ultra = _random_pile(playing_kinds, int(rng.integers(low, low + 21)), rng, True)
    supply, _ = _random_pile(supply_kinds, int(rng.integers(6, 21)), rng, not took_ultra)
    empire = str(rng.choice([*KNOWN_EMPIRES, "atlantis"]))
    return {"id": deck_id, "name": f"Generated {deck_id}", "empire": empire, "playing": playing, "supply": supply}


def random_deck_files(pool_path: Path, seed: int, folder: Path, count: int = 4) -> list[Path]:
    """``count`` decks of the pool file at ``pool_path`` (``random_deck_data``), written as JSON
    deck files in ``folder``; their paths."""
    pool = load_pool(pool_path)
    rng = np.random.default_rng([seed, 1])
    paths = []
    for number in range(count):
        path = Path(folder) / f"generated_deck_{seed}_{number}.json"
        path.write_text(json.dumps(random_deck_data(pool, rng, f"gen{seed}_{number}"), indent=1))
        paths.append(path)
    return paths
