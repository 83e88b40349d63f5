"""``render_mode="human"``: the ``rgb_array`` picture in a pygame window, for every registered id
(headless here: SDL's dummy video driver), PettingZoo's ``render_test`` and ``api_test`` with it,
the error without pygame; and ``play`` naming the opponents' moves with only what the human's
seat may see (hand-built positions and scripted moves)."""

from __future__ import annotations

import importlib
import io
import pickle
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.error import DependencyNotInstalled

import empire_envs
from empire_envs.adapters.human_view import INSTALL_HINT
from empire_envs.agents.base import Agent
from empire_envs.cli.common import resolve_entry
from empire_envs.cli.match import Match, new_match
from empire_envs.cli.play import PlaySession, move_name
from empire_envs.games.generals.actions import Kind as GeneralsKind
from empire_envs.games.generals.actions import layout_for as generals_layout
from empire_envs.games.map_duel.actions import layout_for as map_duel_layout
from empire_envs.games.map_duel.state import Phase as DuelPhase
from empire_envs.games.pillars.actions import RANK_LAYOUT
from empire_envs.games.pillars.state import MAIN, RPS_ATTACKER, RPS_DEFENDER, THROW_NAMES, TRADE_OFFER
from empire_envs.registry import ENTRIES

from .map_duel import helpers as duel
from .pillars.helpers import build_state, kind

ROOT = Path(__file__).resolve().parents[1]
PZ_ENTRIES = [e for e in ENTRIES if e.api == "pettingzoo"]
ONE_PER_GAME = list({e.game: e for e in reversed(PZ_ENTRIES)}.values())  # each game's first id
all_ids = pytest.mark.parametrize("env_id", [e.env_id for e in ENTRIES])
pz_ids = pytest.mark.parametrize("env_id", [e.env_id for e in PZ_ENTRIES])
#: importing ``pettingzoo.test`` loads its classic games through PettingZoo's deprecated path
pytestmark = pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")


@pytest.fixture(autouse=True)
def _headless_display(monkeypatch):
    """The windows of these tests live in memory (SDL's dummy video driver), display or not."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def pygame_module() -> Any:
    import pygame

    return pygame


def window_picture() -> np.ndarray:
    """What the window shows, as a ``height x width x 3`` array."""
    pygame = pygame_module()
    return np.transpose(pygame.surfarray.array3d(pygame.display.get_surface()), (1, 0, 2))


def game_picture(env) -> np.ndarray:
    raw = env.unwrapped
    return raw.game.to_rgb(raw.game_state if hasattr(raw, "game_state") else raw.state)


# ---------------------------------------------------------------------- the window


@all_ids
def test_human_mode_shows_the_rgb_array_picture_and_closes_twice(env_id: str) -> None:
    env = empire_envs.make(env_id, render_mode="human")
    assert "human" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    rng = np.random.default_rng(0)
    pygame = pygame_module()
    if hasattr(env, "possible_agents"):
        assert env.reset(seed=1) is None
        assert np.array_equal(window_picture(), game_picture(env))  # reset() drew it
        for _ in env.agent_iter(12):
            observation, _, terminated, truncated, _ = env.last()
            mask = observation["action_mask"]
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(mask))))
            # step() drew the new position by itself: no render() call in between
            assert np.array_equal(window_picture(), game_picture(env))
    else:
        _, info = env.reset(seed=1)
        assert np.array_equal(window_picture(), game_picture(env))  # reset() drew it
        for _ in range(12):
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            assert np.array_equal(window_picture(), game_picture(env))
            if terminated or truncated:
                break
    frame = game_picture(env)
    assert env.render() is None
    assert pygame.display.get_surface().get_size() == (frame.shape[1], frame.shape[0])
    assert np.array_equal(window_picture(), frame) and frame.std() > 0
    env.close()
    assert not pygame.display.get_init()
    env.close()  # a second close is fine


def test_the_window_is_paced_by_render_fps(monkeypatch) -> None:
    """On a real display each frame waits for a ``pygame.time.Clock`` at ``metadata["render_fps"]``
    (reset and step each draw one frame); nobody watches the dummy display, so it is not paced."""
    ticks: list[float] = []

    class Clock:
        def tick(self, fps: float) -> int:
            ticks.append(fps)
            return 0

    pygame = pygame_module()
    monkeypatch.setattr(pygame.time, "Clock", Clock)
    env = gymnasium.make("empire_envs/EmpireSolo-v0", render_mode="human")
    _, info = env.reset(seed=0)
    assert ticks == []  # the dummy driver
    monkeypatch.setattr(pygame.display, "get_driver", lambda: "x11")
    _, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert ticks == [env.metadata["render_fps"]] * 2 == [4, 4]
    env.close()
    aec = empire_envs.make("empire_envs/MapDuel-v0", render_mode="human")
    aec.reset(seed=0)
    assert ticks[-1] == aec.metadata["render_fps"] == 2
    aec.close()


def test_a_pickled_human_env_comes_back_without_a_window() -> None:
    env = gymnasium.make("empire_envs/EmpireSolitaire-v0", render_mode="human").unwrapped
    env.reset(seed=3)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.render_mode == "human" and not copy._view.is_open
    assert copy.render() is None and copy._view.is_open  # it opens its own at the first frame
    assert np.array_equal(window_picture(), env.game.to_rgb(env.state))
    copy.close()
    env.close()


def test_closing_one_env_leaves_another_one_able_to_draw() -> None:
    """pygame has one display: an env drawing after another env closed it opens it again."""
    first = empire_envs.make("empire_envs/Pillars-v0", render_mode="human")
    second = empire_envs.make("empire_envs/Generals-v0", render_mode="human")
    first.reset(seed=0)
    second.reset(seed=0)
    first.close()  # the window is second's now: first leaves it alone
    assert pygame_module().display.get_init()
    second.close()
    first.render()
    assert np.array_equal(window_picture(), game_picture(first))
    first.close()


# ---------------------------------------------------------------------- PettingZoo's tests


@pz_ids
def test_pettingzoo_render_test(env_id: str) -> None:
    render_test = importlib.import_module("pettingzoo.test.render_test").render_test
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        render_test(lambda render_mode=None: empire_envs.make(env_id, render_mode=render_mode))


@pytest.mark.parametrize("env_id", [e.env_id for e in ONE_PER_GAME])
def test_pettingzoo_api_test_in_human_mode(env_id: str, monkeypatch) -> None:
    api_test = importlib.import_module("pettingzoo.test.api_test")
    env = empire_envs.make(env_id, render_mode="human")
    name = str(env.unwrapped)  # on api_test's lists of Dict-observation envs, as its classic games
    monkeypatch.setattr(api_test, "env_obs_dicts", [*api_test.env_obs_dicts, name])
    monkeypatch.setattr(api_test, "env_obs_space", [*api_test.env_obs_space, name])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test.api_test(env, num_cycles=100, verbose_progress=False)
    env.close()


# ---------------------------------------------------------------------- without pygame


def run_fresh(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_pygame_human_mode_names_the_extra_and_the_other_modes_work() -> None:
    result = run_fresh("""
        import sys
        sys.modules["pygame"] = None  # an import of pygame now fails
        import gymnasium
        import empire_envs
        from gymnasium.error import DependencyNotInstalled
        for env_id in ("empire_envs/EmpireSolo-v0", "empire_envs/Pillars-v0"):
            try:
                empire_envs.make(env_id, render_mode="human")
            except DependencyNotInstalled as error:
                print("refused:", error)
            env = empire_envs.make(env_id, render_mode="rgb_array")
            env.reset(seed=0)
            print("picture", env.render().shape)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('refused: render_mode="human"') == 2, result.stdout
    assert result.stdout.count(INSTALL_HINT) == 2 and INSTALL_HINT == "pip install 'empire-envs[human]'"
    assert result.stdout.count("picture (") == 2


def test_dependency_error_is_raised_when_the_env_is_made(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(DependencyNotInstalled, match=r"pip install 'empire-envs\[human\]'"):
        gymnasium.make("empire_envs/EmpireSolo-v0", render_mode="human")


def test_other_render_modes_never_import_pygame() -> None:
    ids = [e.env_id for e in ENTRIES if e.api == "gymnasium"] + ["empire_envs/Pillars-v0"]
    result = run_fresh(f"""
        import sys
        import empire_envs
        for env_id in {ids!r}:
            for mode in (None, "ansi", "rgb_array"):
                env = empire_envs.make(env_id, render_mode=mode)
                env.reset(seed=0)
                if mode:
                    env.render()
                env.close()
        print("pygame imported:", "pygame" in sys.modules)
    """)
    assert result.returncode == 0, result.stderr
    assert "pygame imported: False" in result.stdout


# ---------------------------------------------------------------------- play names the opponents' moves


class Scripted(Agent):
    """Plays the given actions in order (each checked legal)."""

    def __init__(self, actions: list[int]) -> None:
        self.actions = list(actions)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        action = self.actions.pop(0)
        assert action_mask[action], action
        return action


def at_position(env_id: str, state: Any) -> Match:
    """A match of ``env_id`` moved to the hand-built ``state``."""
    match = new_match(resolve_entry(env_id), 0, "ansi")
    raw = match.env.unwrapped
    raw.game_state = state
    raw.agent_selection = raw.possible_agents[raw.game.acting_player(state)]
    match._advance()  # the deciding seat's observation and mask, from the new state
    return match


def play_lines(match: Match, scripts: dict[int, list[int]], human_moves: list[int], reveal: bool) -> list[str]:
    """The opponents' lines of a session at ``match``: the seats of ``scripts`` play their
    actions, the human (seat 0) plays ``human_moves`` (actions, picked by list number), then the
    input ends."""
    replies: list[int] = list(human_moves)
    out = io.StringIO()

    def read(prompt: str) -> str:
        if not replies:
            raise EOFError
        return str(match.legal_actions().index(replies.pop(0)))

    session = PlaySession(match, 0, dict.fromkeys(range(1, match.players), "random"), reveal=reveal, read=read, out=out)
    session.agents = {seat: Scripted(actions) for seat, actions in scripts.items()}
    assert session.run() == 0
    text = out.getvalue()
    assert not any(line.endswith(" moved") for line in text.splitlines()) and "Result: abandoned" in text
    return [line for line in text.splitlines() if line.startswith("player_")]


FILLER = ["3", "4", "5", "6", "8", "9", "10", "Q"] * 3
L = RANK_LAYOUT
ROCK, SCISSORS = THROW_NAMES.index("rock"), THROW_NAMES.index("scissors")


def battle_against_you() -> Any:
    """Pillars, 4 seats, round 2: seat 1 to act in MAIN; the human (seat 0) holds a 7."""
    return build_state(4, hands={0: ["7", "9"], 1: ["3"], 2: ["4"], 3: ["6"]}, deck=FILLER, current=1, phase=MAIN)


@pytest.mark.parametrize("reveal", [False, True])
def test_play_names_a_battle_and_seals_the_attackers_throw(reveal: bool) -> None:
    match = at_position("empire_envs/Pillars-v0", battle_against_you())
    lines = play_lines(match, {1: [L.battle_index(3, kind("7")), L.throw_index(ROCK)]}, [], reveal)
    throw = "THROW rock" if reveal else "THROW (sealed)"
    assert lines == [
        "player_1 (random): BATTLE +3 for 7 (+3 is you)",  # the demand is public, seat 0 is +3 from 1
        f"player_1 (random): {throw}",
    ]
    assert match.state.phase == RPS_DEFENDER and match.seat == 0


def test_play_names_the_defenders_throw_which_reveals_both() -> None:
    state = build_state(4, hands={0: ["3"], 1: ["7", "9"], 2: ["4"], 3: ["6"]}, deck=FILLER, current=0, phase=MAIN)
    match = at_position("empire_envs/Pillars-v0", state)
    lines = play_lines(
        match, {1: [L.throw_index(SCISSORS)]}, [L.battle_index(1, kind("7")), L.throw_index(ROCK)], reveal=False
    )
    assert lines == ["player_1 (random): THROW scissors"]
    assert match.state.hands[0][kind("7")] == 1  # rock beat scissors: the throws were what was named


@pytest.mark.parametrize("reveal", [False, True])
def test_play_names_a_trade_and_seals_the_offers(reveal: bool) -> None:
    state = build_state(4, hands={0: ["7"], 1: ["5", "3"], 2: ["K", "6"], 3: ["9"]}, deck=FILLER, current=1, phase=MAIN)
    match = at_position("empire_envs/Pillars-v0", state)
    scripts = {1: [L.trade_index(kind("5"))], 2: [L.offer_index(kind("K"))], 3: [L.offer_index(kind("9"))]}
    lines = play_lines(match, scripts, [], reveal)
    offers = ["OFFER K", "OFFER 9"] if reveal else ["OFFER (sealed)"] * 2
    assert lines == [
        "player_1 (random): TRADE 5",  # the tabled card is face up
        f"player_2 (random): {offers[0]}",
        f"player_3 (random): {offers[1]}",
    ]
    assert match.state.phase == TRADE_OFFER and match.seat == 0


def test_move_names_in_the_campaign_follow_its_current_game() -> None:
    match = new_match(resolve_entry("empire_envs/PillarsCampaign-v0"), 0, "ansi")
    match.state.game.phase = RPS_ATTACKER  # only the phase is read to name a throw
    assert move_name(match, 1, L.throw_index(ROCK), 0) == "THROW (sealed)"
    assert move_name(match, 1, L.throw_index(ROCK), 0, reveal=True) == "THROW rock"
    assert move_name(match, 2, L.steal_index(2), 0) == "STEAL +2 (+2 is you)"
    assert move_name(match, 2, L.steal_index(1), 0) == "STEAL +1 (+1 is player_3)"


def test_play_announces_the_first_starting_face_face_down_only() -> None:
    """Map Duel's setup is the same for every deal: the first placer (player_0) lays its starting
    face face down; the human on seat 1 is told ``FACE (face down)`` and then its cell."""
    for reveal in (False, True):
        match = new_match(resolve_entry("empire_envs/MapDuel-v0"), 7, "ansi")
        out = io.StringIO()
        # the human's 17 setup cards, its starting face and its cell, then the end of input
        session = PlaySession(match, 1, {0: "random"}, reveal=reveal, out=out, read=Replies(["0"] * 19))
        assert session.run() == 0
        lines = [line for line in out.getvalue().splitlines() if line.startswith("player_0 (random): ")]
        faces = [line for line in lines if ": FACE" in line]
        first_face = faces[0].split(": ", 1)[1]
        if reveal:
            assert first_face != "FACE (face down)" and first_face.startswith("FACE ")
        else:
            assert first_face == "FACE (face down)"
        assert not any(line.endswith(" moved") for line in out.getvalue().splitlines())
        assert match.state.phase not in (DuelPhase.SETUP_PLACE, DuelPhase.SETUP_FACE, DuelPhase.SETUP_FACE_CELL)


class Replies:
    """A ``read`` function: the replies in order, then the end of input."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)

    def __call__(self, prompt: str) -> str:
        if not self.replies:
            raise EOFError
        return self.replies.pop(0)


@pytest.mark.parametrize("viewer", [0, 1])
def test_map_duel_opponent_cells_are_named_in_the_viewers_frame(viewer: int) -> None:
    """Each seat names cells in its own frame; an opponent's placement is told in the viewer's
    (for player_0 the board text's rows and columns), checked by playing it."""
    match = new_match(resolve_entry("empire_envs/MapDuel-v0"), 3, "ansi")
    if match.seat == viewer:
        match.step(match.legal_actions()[0])
    mover, state = match.seat, match.state
    B, drawn = state.B, state.drawn
    action = match.legal_actions()[-1]
    name = move_name(match, mover, action, viewer)
    row, col = (int(part) for part in name.removeprefix("CELL (").removesuffix(")").split(", "))
    match.step(action)
    absolute = row * B + col if viewer == 0 else B * B - 1 - (row * B + col)
    assert match.state.board[absolute] == drawn, name


def test_map_duel_opponent_directions_are_turned_to_the_viewers_frame() -> None:
    """player_1's forward is south, towards player_0: player_0 is told "back" (its own back)."""
    state = duel.step2_state(board={(5, 6): "KC", (6, 6): "7D", (9, 6): "QH", (10, 6): "5H"}, current=1)
    match = at_position("empire_envs/MapDuel-v0", state)
    lay = map_duel_layout(state.B)
    king = duel.fidx("KC")
    assert duel.direction(1, (5, 6), (6, 6)) == duel.FORWARD
    consume = lay.consume_index(king, duel.FORWARD)
    assert match.action_name(consume) == "CONSUME KC forward"  # in the mover's frame
    assert move_name(match, 1, consume, viewer=1) == "CONSUME KC forward"
    assert move_name(match, 1, consume, viewer=0) == "CONSUME KC back"
    assert move_name(match, 1, lay.build_index(king, duel.RIGHT), viewer=0) == "BUILD KC left"
    assert move_name(match, 1, lay.move_index(duel.LEFT), viewer=0) == "MOVE right"
    assert move_name(match, 1, lay.confront_index(king, duel.fidx("QH")), viewer=0) == "CONFRONT KC -> QH"


def test_generals_moves_are_named_in_full_with_their_targets() -> None:
    match = new_match(resolve_entry("empire_envs/Generals3p-v0"), 0, "ansi")
    config = match.state.config
    lay = generals_layout(config.pool.size, config.offsets)
    attack = lay.index(GeneralsKind.ATTACK, 2, 1, 0)
    assert move_name(match, 2, attack, 0) == "ATTACK u2 -> +1 BF (+1 is you)"
    assert move_name(match, 1, attack, 0) == "ATTACK u2 -> +1 BF (+1 is player_2)"
    target = lay.index(GeneralsKind.TARGET_PLAYER, 2)
    assert move_name(match, 1, target, 0) == "TARGET_PLAYER +2 (+2 is you)"
    for action in match.legal_actions():  # declaring, drawing, playing: named as the game names them
        assert move_name(match, match.seat, action, 0) == match.action_name(action)
