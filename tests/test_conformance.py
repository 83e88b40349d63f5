"""Conformance of every registered environment (design, tests layer 5).

Parametrized over ``empire_envs.registry.ENTRIES``: the Gymnasium entries get Gymnasium's
``check_env`` and the adapter contracts (spaces, int8 masks, illegal-action policy, strict action
types, pickling, rendering, docstring); the PettingZoo entries are checked in
``test_conformance_aec.py``. Warnings are errors throughout this module.
"""

from __future__ import annotations

import itertools
import pickle
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

import empire_envs
from empire_envs.core.errors import IllegalActionError
from empire_envs.registry import ENTRIES

pytestmark = pytest.mark.filterwarnings("error")


@pytest.fixture(autouse=True)
def _headless_display(monkeypatch):
    """``render_mode="human"`` (one of the render modes iterated here) opens a pygame window:
    SDL's dummy video driver keeps it in memory, on machines without a display too."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


ROOT = Path(__file__).resolve().parents[1]

GYM_ENTRIES = [e for e in ENTRIES if e.api == "gymnasium"]
assert GYM_ENTRIES, "the registry lists no Gymnasium environment"
assert all(e.api in ("gymnasium", "pettingzoo") for e in ENTRIES)

gym_entries = pytest.mark.parametrize("entry", GYM_ENTRIES, ids=[e.env_id for e in GYM_ENTRIES])


def _is_solo(entry) -> bool:
    return entry.entry_point == "empire_envs.games.solo.env:EmpireSoloEnv"


SOLO_ENTRIES = [e for e in GYM_ENTRIES if _is_solo(e)]
solo_entries = pytest.mark.parametrize("entry", SOLO_ENTRIES, ids=[e.env_id for e in SOLO_ENTRIES])


def pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random legal action of an int8 mask."""
    legal = np.flatnonzero(mask)
    assert legal.size, "no legal action in a live episode"
    return int(legal[rng.integers(legal.size)])


def play_to_end(env, mask, rng, limit=100_000):
    """Random masked steps until the episode ends; the last step's results."""
    for _ in range(limit):
        obs, reward, terminated, truncated, info = env.step(pick(mask, rng))
        if terminated or truncated:
            return obs, reward, terminated, truncated, info
        mask = info["action_mask"]
    raise AssertionError(f"no episode end within {limit} steps")


def first_illegal(env, mask, rng):
    """Walk with legal actions to a state where some action in the space is illegal."""
    for _ in range(1000):
        illegal = np.flatnonzero(mask == 0)
        if illegal.size:
            return int(illegal[0]), mask
        _, _, terminated, truncated, info = env.step(pick(mask, rng))
        assert not (terminated or truncated), "every action was legal for a whole episode"
        mask = info["action_mask"]
    raise AssertionError("every action stayed legal")


def deck_size(env) -> int | None:
    """Cards left in the draw pile (solo games), to notice reshuffles; None for other games."""
    deck = getattr(env.unwrapped.state, "deck", None)
    return None if deck is None else len(deck)


# --------------------------------------------------------------------------- registration


def test_registry_ids_are_unique_and_namespaced():
    ids = [e.env_id for e in ENTRIES]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("empire_envs/") for i in ids)
    assert "empire_envs/EmpireSolo-v0" in ids


@gym_entries
def test_make_after_import(entry):
    env = gymnasium.make(entry.env_id)
    assert entry.env_id in gymnasium.registry
    assert env.spec.id == entry.env_id
    assert dict(env.spec.kwargs) == dict(entry.kwargs)
    for name, value in entry.kwargs.items():
        assert getattr(env.unwrapped.config, name) == value
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    same = empire_envs.make(entry.env_id)
    assert type(same.unwrapped) is type(env.unwrapped)
    assert np.array_equal(same.reset(seed=0)[0], obs)


def _run_fresh(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )


@gym_entries
def test_make_with_module_prefix_in_fresh_process(entry):
    """``gymnasium.make("empire_envs:<id>")`` imports the package itself."""
    result = _run_fresh(f"""
        import sys
        import gymnasium
        assert "empire_envs" not in sys.modules
        env = gymnasium.make({"empire_envs:" + entry.env_id!r})
        obs, info = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        assert "empire_envs" in sys.modules
        print("made", env.spec.id)
    """)
    assert result.returncode == 0, result.stderr
    assert f"made {entry.env_id}" in result.stdout


def test_import_registers_without_importing_games():
    result = _run_fresh("""
        import sys
        import gymnasium
        import empire_envs
        games = sorted(m for m in sys.modules if m.startswith("empire_envs.games"))
        assert not games, games
        assert all(e.env_id in gymnasium.registry for e in empire_envs.ENTRIES if e.api == "gymnasium")
        print("light")
    """)
    assert result.returncode == 0, result.stderr
    assert "light" in result.stdout


# --------------------------------------------------------------------------- Gymnasium checker


@gym_entries
def test_check_env(entry):
    modes = gymnasium.make(entry.env_id).unwrapped.metadata["render_modes"]
    for mode in [None, *modes]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(gymnasium.make(entry.env_id, render_mode=mode).unwrapped)


# --------------------------------------------------------------------------- spaces and masks


@gym_entries
def test_spaces_and_observations(entry):
    env = gymnasium.make(entry.env_id)
    space = env.action_space
    assert isinstance(space, spaces.Discrete) and space.start == 0 and space.n > 1
    box = env.observation_space
    assert isinstance(box, spaces.Box) and box.dtype == np.float32 and len(box.shape) == 1
    assert np.all(np.isfinite(box.low)) and np.all(np.isfinite(box.high))
    assert env.unwrapped.action_space is env.unwrapped.action_space  # cached, not rebuilt
    rng = np.random.default_rng(1)
    for seed in range(10):
        obs, info = env.reset(seed=seed)
        done = False
        while True:
            assert isinstance(obs, np.ndarray) and obs.dtype == np.float32
            assert obs.shape == box.shape and box.contains(obs), "observation outside the space"
            if done:
                break
            obs, reward, terminated, truncated, info = env.step(pick(info["action_mask"], rng))
            assert isinstance(reward, float) and np.isfinite(reward)
            done = terminated or truncated


@gym_entries
def test_action_mask_in_info(entry):
    env = gymnasium.make(entry.env_id)
    n = env.action_space.n
    rng = np.random.default_rng(2)
    for seed in range(10):
        _, info = env.reset(seed=seed)
        previous = None
        while True:
            mask = info["action_mask"]
            assert isinstance(mask, np.ndarray) and mask.dtype == np.int8 and mask.shape == (n,)
            assert set(np.unique(mask).tolist()) <= {0, 1}
            method = env.unwrapped.action_masks()
            assert method.dtype == np.int8 and np.array_equal(mask, method)
            assert method is not mask and not np.shares_memory(method, mask)
            assert env.unwrapped.action_masks() is not method
            if previous is not None:
                assert not np.shares_memory(previous, mask), "info mask reuses an old array"
            # Writing into a mask handed out never changes the environment.
            saved = mask.copy()
            mask[:] = 0
            assert np.array_equal(env.unwrapped.action_masks(), saved)
            mask[:] = saved
            if "outcome" in info:  # the episode has ended
                assert not mask.any() and not method.any()
                break
            assert mask.any()
            previous = mask
            _, _, terminated, truncated, info = env.step(pick(mask, rng))
            assert not info.get("illegal_action", False), "a masked-legal action was refused"
            if terminated or truncated:
                assert "outcome" in info


# --------------------------------------------------------------------------- pickling


@gym_entries
def test_pickle_round_trip_mid_episode(entry):
    rng = np.random.default_rng(3)
    mid_episode = continued_past_reshuffle = 0
    for seed in range(80):
        env = gymnasium.make(entry.env_id)
        if seed % 2:
            env = env.unwrapped  # both the wrapped and the bare env pickle
        _, info = env.reset(seed=seed)
        mask = info["action_mask"]
        for _ in range(int(rng.integers(1, 30))):
            _, _, terminated, truncated, info = env.step(pick(mask, rng))
            if terminated or truncated:
                break
            mask = info["action_mask"]
        if terminated or truncated:
            continue
        mid_episode += 1
        clone = pickle.loads(pickle.dumps(env))
        assert type(clone) is type(env) and clone is not env
        assert np.array_equal(clone.unwrapped.action_masks(), env.unwrapped.action_masks())
        cards = deck_size(env)
        while True:
            action = pick(mask, rng)
            a = env.step(action)
            b = clone.step(action)
            assert np.array_equal(a[0], b[0]), "observations diverge after unpickling"
            assert a[1:4] == b[1:4]
            assert np.array_equal(a[4]["action_mask"], b[4]["action_mask"])
            assert a[4].get("outcome") == b[4].get("outcome")
            if cards is not None:
                now = deck_size(env)
                continued_past_reshuffle += now > cards
                cards = now
            if a[2] or a[3]:
                break
            mask = a[4]["action_mask"]
        with pytest.raises(ResetNeeded):
            clone.step(0)
    assert mid_episode >= 40
    if SOLO_ENTRIES and _is_solo(entry):
        assert continued_past_reshuffle > 0, "no unpickled env reshuffled its deck (RNG state)"


# --------------------------------------------------------------------------- rendering


@gym_entries
def test_every_render_mode(entry):
    modes = gymnasium.make(entry.env_id).unwrapped.metadata["render_modes"]
    assert set(modes) >= {"ansi", "rgb_array"}
    rng = np.random.default_rng(4)
    for mode in modes:
        env = gymnasium.make(entry.env_id, render_mode=mode)
        assert env.render_mode == mode
        _, info = env.reset(seed=5)
        frames = [env.render()]
        for _ in range(5):
            _, _, terminated, truncated, info = env.step(pick(info["action_mask"], rng))
            frames.append(env.render())
            if terminated or truncated:
                break
        else:
            play_to_end(env, info["action_mask"], rng)
            frames.append(env.render())
        for frame in frames:
            if mode == "ansi":
                assert isinstance(frame, str) and frame.strip()
            elif mode == "rgb_array":
                assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
                assert frame.ndim == 3 and frame.shape[2] == 3 and frame.shape[0] > 0
                assert frame.shape[1] > 0 and frame.shape == frames[0].shape
                assert frame.std() > 0, "a blank picture"
            else:  # "human": the picture went to the window
                assert frame is None
        if mode == "ansi":
            assert frames[0] != frames[-1]
        elif mode == "rgb_array":
            assert not np.array_equal(frames[0], frames[-1])
        env.close()


@gym_entries
def test_render_without_mode_warns_and_bad_mode_raises(entry):
    env = gymnasium.make(entry.env_id).unwrapped
    with pytest.raises(ResetNeeded):
        env.render()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None
    with pytest.raises(ValueError, match="render_mode"):
        type(env)(render_mode="no-such-mode")


# --------------------------------------------------------------------------- illegal actions


@gym_entries
def test_illegal_action_ends_episode_with_penalty(entry):
    rng = np.random.default_rng(6)
    for penalty in (None, -5.0):
        kwargs = {} if penalty is None else {"illegal_action_penalty": penalty}
        env = gymnasium.make(entry.env_id, **kwargs)
        expected = -1.0 if penalty is None else penalty  # -1 is the documented default
        assert env.unwrapped.illegal_action_penalty == expected
        for seed in range(5):
            _, info = env.reset(seed=seed)
            action, _ = first_illegal(env, info["action_mask"], rng)
            assert env.action_space.contains(action)
            obs, reward, terminated, truncated, info = env.step(action)
            assert terminated is True and truncated is False
            assert reward == expected
            assert info["illegal_action"] is True
            assert env.observation_space.contains(obs)
            assert info["action_mask"].dtype == np.int8 and not info["action_mask"].any()
            assert not env.unwrapped.action_masks().any()
            with pytest.raises(ResetNeeded):
                env.step(action)
            with pytest.raises(ResetNeeded):
                env.step(pick(np.ones(env.action_space.n, dtype=np.int8), rng))


@gym_entries
def test_illegal_action_raise_mode_leaves_state_unchanged(entry):
    """``illegal_action="raise"``: every illegal action raises, nothing changes, and the episode
    continues exactly like a twin env's that never saw the illegal actions."""
    with pytest.raises(ValueError, match="illegal_action"):
        gymnasium.make(entry.env_id, illegal_action="ignore")
    rng = np.random.default_rng(7)
    for seed in range(5):
        env = gymnasium.make(entry.env_id, illegal_action="raise")
        twin = gymnasium.make(entry.env_id)
        _, info = env.reset(seed=seed)
        _, twin_info = twin.reset(seed=seed)
        mask = info["action_mask"]
        attempts = 0
        while True:
            before = pickle.dumps(env.unwrapped.state)
            state_before = pickle.loads(before)
            for action in np.flatnonzero(mask == 0)[:10]:
                with pytest.raises(IllegalActionError):
                    env.step(int(action))
                attempts += 1
                assert env.unwrapped.state == state_before
            assert np.array_equal(env.unwrapped.action_masks(), mask)
            action = pick(mask, rng)
            a, b = env.step(action), twin.step(action)
            assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
            assert np.array_equal(a[4]["action_mask"], b[4]["action_mask"])
            if a[2] or a[3]:
                break
            mask = a[4]["action_mask"]
        assert attempts > 0


# --------------------------------------------------------------------------- strict action types


BAD_TYPES = [
    1.0, 0.0, np.float64(1.0), np.float32(2.0), 1.5, "3", "0", True, False, np.True_,
    np.array([1, 2]), np.array([1]), np.array(1.0), [0], (0,), None, 1 + 0j,
]


@gym_entries
def test_wrong_action_types_and_out_of_space_ints_raise(entry):
    env = gymnasium.make(entry.env_id)
    n = env.action_space.n
    _, info = env.reset(seed=0)
    mask = info["action_mask"]
    state = pickle.loads(pickle.dumps(env.unwrapped.state))
    for bad in BAD_TYPES:
        with pytest.raises(TypeError, match="integer"):
            env.step(bad)
    for bad in (-1, n, n + 7, 2**70, np.int64(-1), np.int64(n), np.uint8(255) if n < 255 else -2):
        with pytest.raises(ValueError, match="outside the action space") as error:
            env.step(bad)
        assert not isinstance(error.value, IllegalActionError)
    # Nothing was coerced or applied, and the episode goes on.
    assert env.unwrapped.state == state
    assert np.array_equal(env.unwrapped.action_masks(), mask)
    legal = int(np.flatnonzero(mask)[0])
    results = []
    for accepted in (legal, np.int64(legal), np.int32(legal), np.array(legal)):
        fresh = gymnasium.make(entry.env_id)
        fresh.reset(seed=0)
        obs, reward, terminated, truncated, info = fresh.step(accepted)
        assert not info.get("illegal_action", False)
        results.append((obs.tobytes(), reward, terminated, truncated))
    assert len(set(results)) == 1


# --------------------------------------------------------------------------- episode order


@gym_entries
def test_step_before_reset_raises(entry):
    bare = gymnasium.make(entry.env_id).unwrapped
    with pytest.raises(ResetNeeded, match="reset"):
        bare.step(0)
    with pytest.raises(ResetNeeded, match="reset"):
        bare.action_masks()
    wrapped = gymnasium.make(entry.env_id)
    with pytest.raises(ResetNeeded):
        wrapped.step(0)


@gym_entries
def test_step_after_episode_end_raises(entry):
    rng = np.random.default_rng(8)
    for wrapped in (True, False):
        env = gymnasium.make(entry.env_id)
        env = env if wrapped else env.unwrapped
        for seed in range(5):
            _, info = env.reset(seed=seed)
            _, _, terminated, truncated, info = play_to_end(env, info["action_mask"], rng)
            assert terminated != truncated
            for action in range(env.action_space.n):
                with pytest.raises(ResetNeeded, match="reset"):
                    env.step(action)
            assert not env.unwrapped.action_masks().any()
        # reset() starts a new episode.
        _, info = env.reset()
        env.step(pick(info["action_mask"], rng))


@gym_entries
def test_unknown_reset_options_and_config_kwargs_raise(entry):
    env = gymnasium.make(entry.env_id)
    with pytest.raises(ValueError, match="no_such_option"):
        env.reset(seed=0, options={"no_such_option": 1})
    env.reset(seed=0, options={})  # still usable
    env.reset(seed=0, options=None)
    with pytest.raises(TypeError, match="no_such_setting"):
        gymnasium.make(entry.env_id, no_such_setting=1)
    with pytest.raises(TypeError, match="no_such_setting"):
        type(env.unwrapped)(no_such_setting=1)


# --------------------------------------------------------------------------- solo: stacked decks


def _solo_modules():
    from empire_envs.core.cards import parse_card, parse_cards
    from empire_envs.games.solo import observe
    from empire_envs.games.solo.state import ORGANIZE, REACT, SOLDIER

    return parse_card, parse_cards, observe, ORGANIZE, REACT, SOLDIER


@solo_entries
def test_stacked_deck_deals_the_expected_board(entry):
    parse_card, parse_cards, observe, ORGANIZE, REACT, SOLDIER = _solo_modules()
    top = ["KS", "2H", "3C", "QD", "4S", "5D", "6H", "7C", "9H", "JC"]
    rest = [c for c in range(52) if c not in parse_cards(top)]
    order = parse_cards(top) + rest[::-1]  # a full order of the 52 cards, top first
    env = gymnasium.make(entry.env_id, render_mode="ansi")
    obs, info = env.reset(seed=0, options={"deck": order})
    state = env.unwrapped.state
    soldiers = parse_cards(["2H", "3C", "4S", "5D", "6H", "7C"])
    assert state.unit_kind == [SOLDIER] * 6
    assert [cards[0] for cards in state.unit_cards] == soldiers
    # The deck is dealt exactly as written; faces met while dealing go to the bottom in order.
    assert state.deck[::-1] == parse_cards(["9H", "JC"]) + rest[::-1] + parse_cards(["KS", "QD"])
    assert state.phase == ORGANIZE and info["action_mask"][0] == 1  # soldiers can merge
    layout = observe.LAYOUT
    for t, card in enumerate(soldiers):
        territory = obs[layout[f"territory {t}"]]
        assert territory[SOLDIER] == 1.0
        assert territory[7] == pytest.approx((card % 13 + 1) / 52)
    deck_field = obs[layout["deck cards"]]
    assert deck_field.sum() == 46 and all(deck_field[c] == 0 for c in soldiers)
    text = env.render()
    for label in ("2H", "3C", "4S", "5D", "6H", "7C"):
        assert label in text
    obs, _, _, _, info = env.step(0)  # DRAW: the next card is 9H
    assert state.phase == REACT and state.drawn == parse_card("9H")
    assert obs[layout["drawn rank"]][8] == 1.0 and obs[layout["drawn suit"]][2] == 1.0
    assert "Drawn: 9H" in env.render()


@solo_entries
def test_partially_stacked_deck_is_seeded_and_validated(entry):
    parse_card, parse_cards, *_ = _solo_modules()
    env = gymnasium.make(entry.env_id)
    top = ["AS", "2S", "3S", "4S", "5S", "6S", "QH", "KH"]
    decks = []
    for options in ({"deck": top}, {"deck": parse_cards(top)}, {"deck": top}):
        env.reset(seed=11, options=options)
        state = env.unwrapped.state
        assert [cards[0] for cards in state.unit_cards] == parse_cards(top[:6])
        assert state.deck[-2:] == parse_cards(["KH", "QH"])  # QH on top, then KH
        decks.append(list(state.deck))
    assert decks[0] == decks[1] == decks[2]
    env.reset(seed=12, options={"deck": top})
    assert env.unwrapped.state.deck != decks[0]  # the unstacked rest follows the seed
    with pytest.raises(ValueError, match="twice"):
        env.reset(seed=0, options={"deck": ["AS", "2S", "AS"]})
    with pytest.raises(ValueError, match="ZZ"):
        env.reset(seed=0, options={"deck": ["AS", "ZZ"]})
    with pytest.raises(TypeError):
        env.reset(seed=0, options={"deck": "AS 2S 3S"})


@solo_entries
def test_truncation_at_length_limit(entry):
    rng = np.random.default_rng(9)
    env = gymnasium.make(entry.env_id, length_limit=3)
    outcomes = set()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        _, reward, terminated, truncated, info = play_to_end(env, info["action_mask"], rng)
        outcomes.add(info["outcome"])
        if truncated:
            assert not terminated and info["outcome"] == "truncated"
            assert env.unwrapped.state.draws == 3
            with pytest.raises(ResetNeeded):
                env.step(0)
    assert "truncated" in outcomes


# --------------------------------------------------------------------------- docstrings


SECTIONS = (
    "Description", "Action Space", "Observation Space", "Rewards", "Episode End",
    "Arguments", "Version History",
)


def _sections(doc: str) -> dict[str, str]:
    parts = re.split(r"^## +(.+?)\s*$", doc, flags=re.MULTILINE)
    return {title: body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def _tables(text: str) -> list[list[tuple[int, int]]]:
    """The index ranges (first column: ``7`` or ``1-15``) of each reST simple table in ``text``."""
    tables, rules, rows = [], 0, []
    for line in text.splitlines():
        if re.fullmatch(r"=+( +=+)+\s*", line):
            rules += 1
            if rules == 3:  # the closing rule of a table
                tables.append(rows)
                rules, rows = 0, []
            continue
        if rules == 2:
            match = re.match(r"(\d+)(?:\s*-\s*(\d+))?\s", line)
            if match:
                first = int(match.group(1))
                rows.append((first, int(match.group(2) or first)))
    return tables


def _assert_contiguous(rows: list[tuple[int, int]], size: int, what: str) -> None:
    assert rows, f"{what}: the table has no index rows"
    assert rows[0][0] == 0, f"{what}: the table starts at {rows[0][0]}, not 0"
    for (_, end), (start, _) in itertools.pairwise(rows):
        assert start == end + 1, f"{what}: rows jump from {end} to {start}"
    assert rows[-1][1] == size - 1, f"{what}: the table ends at {rows[-1][1]}, size is {size}"


@gym_entries
def test_docstring_follows_gymnasium_sections_and_matches_spaces(entry):
    env = gymnasium.make(entry.env_id).unwrapped
    doc = type(env).__doc__ or ""
    sections = _sections(doc)
    missing = [name for name in SECTIONS if name not in sections]
    assert not missing, f"docstring lacks sections {missing}"
    order = [name for name in sections if name in SECTIONS]
    assert order == list(SECTIONS), f"sections out of order: {order}"
    n = env.action_space.n
    size = env.observation_space.shape[0]
    assert f"Discrete({n})" in sections["Action Space"]
    assert f"({size},)" in sections["Observation Space"]
    action_tables = _tables(sections["Action Space"])
    assert action_tables, "no action index table"
    _assert_contiguous(action_tables[0], n, "action table")
    observation_tables = _tables(sections["Observation Space"])
    assert observation_tables, "no observation index table"
    _assert_contiguous(observation_tables[0], size, "observation table")
    widths = {end - start + 1 for start, end in observation_tables[0]}
    for extra in observation_tables[1:]:  # a sub-table details one field (e.g. a territory)
        _assert_contiguous(extra, extra[-1][1] + 1, "observation sub-table")
        assert extra[-1][1] + 1 in widths, "a sub-table whose size matches no field"
    assert "v0" in sections["Version History"]
    short_id = entry.env_id.rsplit("/", 1)[1]
    assert short_id in doc, f"the docstring does not mention the registered id {short_id}"
