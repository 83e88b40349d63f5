"""A new game is one package and one registration: Toy Nim (``tests/toy_game/``) proves it.

The toy game is built file for file as ``docs/adding_a_game.md`` describes and added with the
registration block that page shows (``register_game(GameEntry(...))`` and ``register_agents``;
the tests run the page's own block), nothing else. Each test then runs in a fresh
interpreter (Gymnasium's and PettingZoo's registries are global, so a game registered here must
not leak into the other tests) and shows that what iterates the registry knows the game: the env
classes and factories, ``empire_envs.make`` and ``pettingzoo.make``, PettingZoo's own
``api_test`` and ``seed_test``, the agents named for its key, ISMCTS finding the rules from a
state, and the registry-wide protocol checks of ``tests/test_game_protocol.py``. The first test
shows the other half: the package names the toy game nowhere, so no other list had to change.
The last tests keep the page true: its golden-recording block works and keeps the recorded games,
and it names the files every game package has and every field of the protocol.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pettingzoo

from empire_envs.core.cards import parse_cards
from empire_envs.core.game import Game
from empire_envs.registry import all_entries, all_games

from .toy_game import GAME
from .toy_game import actions as A
from .toy_game.config import ToyNimConfig

ROOT = Path(__file__).resolve().parent.parent
TOY_ID = "empire_envs/ToyNim-v0"

PAGE = ROOT / "docs" / "adding_a_game.md"


def python_blocks(markdown: str) -> list[str]:
    """The code of every ```python block of a Markdown page (indented ones too, dedented)."""
    blocks, current, fence = [], None, ""
    for line in markdown.splitlines():
        stripped = line.strip()
        if current is None and stripped == "```python":
            current, fence = [], line[: len(line) - len(line.lstrip())]
        elif current is not None and stripped == "```":
            blocks.append(textwrap.dedent("\n".join(current)))
            current = None
        elif current is not None:
            current.append(line[len(fence) :] if line.startswith(fence) else line)
    return blocks


def page_block(containing: str) -> str:
    (block,) = [block for block in python_blocks(PAGE.read_text(encoding="utf-8")) if containing in block]
    return block


#: the whole registration of the toy game, as the how-to page writes it
REGISTER = page_block("register_game(GameEntry(")


#: as pytest's settings (pyproject.toml): package code must never call a deprecated API
WARNINGS_AS_ERRORS = """
import warnings

warnings.filterwarnings("error", category=DeprecationWarning, module="empire_envs")
"""


def run_with_toy_game(body: str) -> str:
    """Run ``body`` in a fresh interpreter after the one registration call; its stdout. Any
    assertion that fails in there fails here with its traceback."""
    code = "\n".join([WARNINGS_AS_ERRORS, REGISTER, textwrap.dedent(body)])
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,  # python -c puts the working directory first on the import path: tests.toy_game imports
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"the toy game's check failed:\n{result.stderr}"
    return result.stdout


def test_the_package_names_the_toy_game_nowhere_and_this_process_never_registered_it():
    names = ("toy_nim", "ToyNim", "toy_game", "Toy Nim")
    mentions = [
        str(path.relative_to(ROOT))
        for folder in ("empire_envs", "tests", "experiments")
        for path in (ROOT / folder).rglob("*.py")
        if "toy_game" not in path.parts
        and path.name != "test_toy_game.py"
        and any(name in path.read_text(encoding="utf-8") for name in names)
    ]
    assert mentions == [], f"a list of games outside the registry entry names the toy game: {mentions}"
    assert "toy_nim" not in {game.key for game in all_games()}
    assert TOY_ID not in {item.env_id for item in all_entries()} and TOY_ID not in pettingzoo.aec_registry


def test_the_registry_builds_its_envs_and_classes():
    run_with_toy_game(
        """
        import pickle

        import pettingzoo
        import empire_envs
        from empire_envs import envs, registry
        from tests.toy_game import GAME

        made = empire_envs.make("empire_envs/ToyNim-v0")
        from_pettingzoo = pettingzoo.make("aec", "empire_envs/ToyNim-v0")
        for env in (made, from_pettingzoo, registry.make_any("ToyNim-v0"), envs.toy_nim_env()):
            assert type(env.unwrapped) is envs.ToyNimEnv and env.unwrapped.game is GAME
            assert env.possible_agents == ["player_0", "player_1"]
            assert env.metadata["name"] == "toy_nim_v0"
        assert envs.env_class("toy_nim") is envs.ToyNimEnv and "ToyNimEnv" in dir(envs)
        assert envs.ToyNimEnv.__module__ == "empire_envs.envs"
        assert "pile_size=12" in envs.ToyNimEnv.__doc__ and "{arguments}" not in envs.ToyNimEnv.__doc__
        short = empire_envs.make("empire_envs/ToyNimShort-v0")
        assert (short.unwrapped.config.pile_size, short.unwrapped.config.max_take) == (6, 2)
        assert short.action_space("player_0").n == 2 + 52
        made.reset(seed=4)
        copy = pickle.loads(pickle.dumps(made.unwrapped))
        assert copy.game_state == made.unwrapped.game_state
        assert registry.game_entry("toy_nim") is registry.find_game("ToyNim-v0")
        assert made.unwrapped.game_key == "toy_nim" and registry.find_game(GAME.name) is None
        """
    )


def test_pettingzoo_api_test_and_seed_test_pass():
    run_with_toy_game(
        """
        import importlib
        import warnings

        import empire_envs
        from pettingzoo.test import api_test, seed_test

        env = empire_envs.make("empire_envs/ToyNim-v0")
        # Dict observations with a mask, as PettingZoo's classic games (tests/test_conformance_aec.py)
        checks = importlib.import_module("pettingzoo.test.api_test")
        checks.env_obs_dicts.append(str(env.unwrapped))
        checks.env_obs_space.append(str(env.unwrapped))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            api_test(env, num_cycles=1000, verbose_progress=False)
            seed_test(lambda: empire_envs.make("empire_envs/ToyNim-v0"), num_cycles=500)
        """
    )


def test_its_agents_come_from_its_registration_and_ismcts_finds_its_rules():
    run_with_toy_game(
        """
        import empire_envs
        from empire_envs.agents.base import agent_names, game_key, make_agent
        from empire_envs.agents.ismcts import ISMCTSAgent, game_of
        from empire_envs.core.agent import RandomAgent
        from tests.toy_game import GAME
        from tests.toy_game.heuristic import GreedyNimAgent

        env = empire_envs.make("empire_envs/ToyNim-v0")
        key = game_key(env, "unknown")
        assert key == "toy_nim" and agent_names(key) == ["random", "heuristic", "ismcts"]
        assert agent_names("empire_envs/ToyNim-v0") == agent_names("ToyNimShort-v0") == agent_names(key)
        assert isinstance(make_agent("random", key, seed=0), RandomAgent)
        heuristic = make_agent("heuristic", key)
        assert isinstance(heuristic, GreedyNimAgent)
        search = make_agent("ismcts", "empire_envs/ToyNim-v0", seed=0, iterations=40)
        assert isinstance(search, ISMCTSAgent)

        env.reset(seed=1)
        assert game_of(env.unwrapped.game_state) is GAME
        players = {"player_0": heuristic, "player_1": search}
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            state = env.unwrapped.game_state
            action = players[agent].act(observation["observation"], observation["action_mask"], state)
            assert observation["action_mask"][action] == 1
            env.step(action)
        final = env.unwrapped.game_state
        assert GAME.is_terminal(final) and sorted(GAME.returns(final)) in ([-1.0, 1.0], [0.0, 0.0])
        """
    )


def test_the_registry_wide_protocol_checks_pass_on_it():
    out = run_with_toy_game(
        """
        from empire_envs.registry import all_entries
        from tests.test_game_protocol import (
            check_env_exposes_game_metadata,
            check_random_games_keep_protocol,
            check_record_declares_env_spaces,
        )

        toy = [item for item in all_entries() if item.game == "toy_nim"]
        for item in toy:
            check_record_declares_env_spaces(item)
            check_random_games_keep_protocol(item, games=5)
            check_env_exposes_game_metadata(item)
        print(len(toy))
        """
    )
    assert out.split() == ["2"]


def test_the_pages_golden_recording_adds_the_new_ids_and_keeps_the_recorded_ones(tmp_path):
    copy = tmp_path / "golden.json"
    copy.write_text((ROOT / "tests" / "golden_trajectories.json").read_text(encoding="utf-8"), encoding="utf-8")
    run_with_toy_game(
        f"""
        import json
        from pathlib import Path

        import tests.golden_trajectories as golden_module

        golden_module.GOLDEN_FILE = Path({str(copy)!r})  # the page's block writes a copy, not the real file
        before = json.loads(golden_module.GOLDEN_FILE.read_text())
        exec(compile({page_block("GOLDEN_FILE.write_text")!r}, "docs/adding_a_game.md", "exec"))
        after = json.loads(golden_module.GOLDEN_FILE.read_text())
        new_ids = {{"empire_envs/ToyNim-v0", "empire_envs/ToyNimShort-v0"}}
        assert set(after) == set(before) | new_ids and not new_ids & set(before)
        assert all(after[env_id] == before[env_id] for env_id in before)
        for env_id in new_ids:
            for policy, seed in golden_module.GAMES:
                recorded = after[env_id][golden_module.game_key(policy, seed)]
                assert recorded == golden_module.trajectory(env_id, policy, seed)
        """
    )


def test_the_page_names_the_files_of_every_game_package_and_every_field_of_the_protocol():
    page = PAGE.read_text(encoding="utf-8")
    files = re.findall(r"^\| `(\w+\.py)` \|", page, flags=re.MULTILINE)
    assert files == [
        "config.py",
        "state.py",
        "actions.py",
        "rules.py",
        "observe.py",
        "render.py",
        "doc.py",
        "__init__.py",
    ]
    packages = [path for path in (ROOT / "empire_envs" / "games").iterdir() if (path / "__init__.py").is_file()]
    assert len(packages) >= 5
    for package in [*packages, ROOT / "tests" / "toy_game"]:
        # a module may grow into a package of topic modules (games/generals/rules/): the page says so
        present = [(package / name).is_file() or (package / name[:-3] / "__init__.py").is_file() for name in files]
        assert all(present), package
    documented = set(re.findall(r"`(\w+)(?:\(|`)", page))
    missing = [field.name for field in dataclasses.fields(Game) if field.name not in documented]
    assert missing == [], f"the page does not explain these Game fields: {missing}"


def test_the_cli_lists_it_and_finds_its_id():
    out = run_with_toy_game(
        """
        from empire_envs.cli import main
        from empire_envs.cli.common import resolve_entry

        assert resolve_entry("ToyNim-v0").game == "toy_nim"  # the namespace left out, as for the package's ids
        main(["list"])
        """
    )
    assert "empire_envs/ToyNim-v0" in out


# The toy game's own tests need no registration: the rules are plain functions over a state.


def test_a_stacked_deal_scripted_to_its_known_result():
    config = ToyNimConfig(pile_size=5, max_take=2, hand_limit=2, last_card_bonus=3)
    state = GAME.new_game(config, np.random.default_rng(0), deck=["KS", "2C", "QH", "3D", "AS"])
    rng = np.random.default_rng(1)
    assert GAME.apply_action(state, A.take(2), rng) == [0.0, 0.0]  # seat 0: KS 2C
    assert GAME.apply_action(state, A.take(2), rng) == [0.0, 0.0]  # seat 1: QH 3D
    assert GAME.acting_player(state) == 0 and GAME.legal_actions(state) == [A.take(1)]
    GAME.apply_action(state, A.take(1), rng)  # seat 0 takes the last card (AS), then holds 3
    assert GAME.legal_actions(state) == sorted(A.discard(card, config) for card in parse_cards(["KS", "2C", "AS"]))
    result = GAME.apply_action(state, A.discard(parse_cards(["2C"])[0], config), rng)  # K + A + bonus 3 = 17 > Q + 3
    assert GAME.is_terminal(state) and result == [1.0, -1.0] and GAME.outcome(state) == "won by seat 0"


def test_determinize_changes_only_what_the_seat_cannot_see():
    state = GAME.new_game(GAME.config_class(), np.random.default_rng(2))
    rng = np.random.default_rng(3)
    for _ in range(5):
        GAME.apply_action(state, GAME.legal_actions(state)[-1], rng)
    for seat in (0, 1):
        world = GAME.determinize(state, seat, np.random.default_rng(seat))
        assert np.array_equal(GAME.observe(world, seat), GAME.observe(state, seat))
        assert world.hands[seat] == state.hands[seat] and world.discards == state.discards
        assert sorted(world.pile + world.hands[1 - seat] + world.unused) == sorted(
            state.pile + state.hands[1 - seat] + state.unused
        )
