"""The Generals twin's deal (``jax_rules.make_init``) against ``rules.setup.new_game``.

For every registered Generals id and for configs that change what the deal does (mirror
decks, decks named in the config, a Slaughterhouse's starting health, another opening hand,
four seats), a batch of keys is dealt by the twin, and each deal is given to the Python rules
(``jax_rules.python_deal_draws``: the decks, every pile's shuffle and the first player preset
to what the twin drew from the state's ``deal_key``): the Python state equals the twin's
(``to_python``), every preset draw is used, and the pgx fields equal those ``host_state`` gives
the Python state (the seat to act, its mask and view). Over the batch the draws vary: more than
one first player, more than one deck, piles in more than one order.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from empire_envs.games.generals import jax_rules, jax_state, rules  # noqa: E402
from empire_envs.games.generals.config import GeneralsConfig  # noqa: E402
from empire_envs.registry import game_entry  # noqa: E402

DEALS = 24
CONFIGS = {variant.name: dict(variant.kwargs) for variant in game_entry("generals").variants}
CONFIGS.update(
    {
        "mirror": {"allow_mirror": True},
        "4p mirror": {"num_players": 4, "allow_mirror": True},
        "slaughterhouse": {"slaughterhouse": True},
        "opening 3+2": {"opening_hand": (3, 2)},
    }
)


@functools.cache
def _config(name: str) -> GeneralsConfig:
    if name == "named decks":
        decks = tuple(sorted(GeneralsConfig().available_decks))[:2]
        return GeneralsConfig(decks=decks)
    return GeneralsConfig(**CONFIGS[name])


@pytest.mark.parametrize(
    "name",
    # the whole games of test_jax_twin.py deal Generals-v0 in make test; the soak deals them all
    [
        name if name == "Generals-v0" else pytest.param(name, marks=pytest.mark.soak)
        for name in [*CONFIGS, "named decks"]
    ],
)
def test_the_deal_equals_new_game_given_the_same_draws(name):
    config = _config(name)
    init = jax.jit(jax.vmap(jax_rules.make_init(config)))
    batch = jax.tree_util.tree_map(np.asarray, init(jax.random.split(jax.random.PRNGKey(7), DEALS)))
    draws_of = jax_rules.python_deal_draws(config)
    firsts, decks, orders = set(), set(), set()
    for index in range(DEALS):
        fresh = jax.tree_util.tree_map(lambda leaf, i=index: leaf[i], batch)
        draws = draws_of(fresh)
        python = rules.new_game(config, draws)
        assert draws.unused == 0, f"deal {index}: {draws.unused} preset draws unused"
        assert jax_state.to_python(fresh, config) == python, f"deal {index}"
        expected = jax_state.host_state(python)
        for field in ("current_player", "legal_action_mask", "observation", "terminated", "truncated"):
            np.testing.assert_array_equal(
                getattr(fresh, field), getattr(expected, field), err_msg=f"{field}, deal {index}"
            )
        firsts.add(python.first)
        decks.add(tuple(player.deck_id for player in python.players))
        orders.add(tuple(python.players[0].playing_deck))
    assert len(firsts) > 1 and len(orders) > 1, (firsts, len(orders))
    assert len(decks) > 1 or config.decks != "random", decks
