"""Environment speed: decisions per second under a random masked policy, peers in the same run.

Usage (from the repository root)::

    python experiments/bench_speed.py [--seconds 5] [--repeat 1] [--only solo,peers] [--json PATH]

Every masked loop picks its action the same way: ``random.Random(seed).choice`` over the legal
indices (``np.flatnonzero(mask)`` where the API gives a mask, the legal list where it gives a
list). A measurement runs for ``--seconds`` of wall time after a short warm-up; resets are
inside the timed loop (they are part of the cost of running episodes) but only decisions
(``step`` calls) are counted. Only the first reset of a measurement is seeded, as in a training
loop (re-seeding costs a new generator each episode, which would dominate Blackjack's 1-2
step episodes); the raw-rules loops likewise use one generator throughout.

Benchmarks live in ``BENCHMARKS``, a list of named functions ``fn(seconds, seed) -> dict``;
``bench_gym_masked``, ``bench_aec_masked`` and ``bench_raw_rules`` are generic, so a new
environment is one more line in that list (and a ratio, if wanted, one more line in ``RATIOS``).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import empire_envs  # noqa: F401  (registers the ids)
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import empire_envs  # noqa: F401

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling reporting module
import numpy as np
from reporting import emit_json, text_log  # noqa: E402

#: how many steps between two looks at the clock (an episode end always looks)
_CLOCK_EVERY = 256


class Skipped(Exception):
    """A benchmark that cannot run here (a missing optional dependency); the reason is shown."""


def _rate(steps: int, episodes: int, elapsed: float) -> dict[str, Any]:
    return {
        "steps": steps,
        "episodes": episodes,
        "seconds": elapsed,
        "steps_per_second": steps / elapsed if elapsed > 0 else float("nan"),
        "steps_per_episode": steps / episodes if episodes else float("nan"),
    }


# --------------------------------------------------------------------------- generic loops


def bench_gym_masked(env_id: str, **make_kwargs: Any) -> Callable[[float, int], dict[str, Any]]:
    """A Gymnasium env with ``info["action_mask"]``, through ``gymnasium.make``."""

    def run(seconds: float, seed: int) -> dict[str, Any]:
        import gymnasium

        env = gymnasium.make(env_id, **make_kwargs)
        choice = random.Random(seed).choice
        flatnonzero = np.flatnonzero
        perf = time.perf_counter
        steps = episodes = 0
        start = perf()
        deadline = start + seconds
        try:
            while True:
                _, info = env.reset(seed=None if episodes else seed)
                while True:
                    action = choice(flatnonzero(info["action_mask"]))
                    _, _, terminated, truncated, info = env.step(action)
                    steps += 1
                    if terminated or truncated:
                        break
                    if steps % _CLOCK_EVERY == 0 and perf() >= deadline:
                        break
                episodes += terminated or truncated
                if perf() >= deadline:
                    break
        finally:
            env.close()
        return _rate(steps, episodes, perf() - start)

    return run


def bench_gym_sampled(env_id: str, **make_kwargs: Any) -> Callable[[float, int], dict[str, Any]]:
    """A Gymnasium env without masks: ``action_space.sample()`` (seeded)."""

    def run(seconds: float, seed: int) -> dict[str, Any]:
        import gymnasium

        env = gymnasium.make(env_id, **make_kwargs)
        env.action_space.seed(seed)
        sample = env.action_space.sample
        perf = time.perf_counter
        steps = episodes = 0
        start = perf()
        deadline = start + seconds
        try:
            while True:
                env.reset(seed=None if episodes else seed)
                while True:
                    _, _, terminated, truncated, _ = env.step(sample())
                    steps += 1
                    if terminated or truncated:
                        break
                    if steps % _CLOCK_EVERY == 0 and perf() >= deadline:
                        break
                episodes += terminated or truncated
                if perf() >= deadline:
                    break
        finally:
            env.close()
        return _rate(steps, episodes, perf() - start)

    return run


def bench_aec_masked(make_env: Callable[[], Any]) -> Callable[[float, int], dict[str, Any]]:
    """A PettingZoo AEC env with ``obs["action_mask"]``; every ``env.step`` call is a decision
    (including the ``None`` steps that retire finished agents)."""

    def run(seconds: float, seed: int) -> dict[str, Any]:
        env = make_env()
        choice = random.Random(seed).choice
        flatnonzero = np.flatnonzero
        perf = time.perf_counter
        steps = episodes = 0
        start = perf()
        deadline = start + seconds
        try:
            while True:
                env.reset(seed=None if episodes else seed)
                finished = True
                for _agent in env.agent_iter():
                    observation, _, termination, truncation, _ = env.last()
                    if termination or truncation:
                        action = None
                    else:
                        action = choice(flatnonzero(observation["action_mask"]))
                    env.step(action)
                    steps += 1
                    if steps % _CLOCK_EVERY == 0 and perf() >= deadline:
                        finished = False
                        break
                episodes += finished
                if perf() >= deadline:
                    break
        finally:
            env.close()
        return _rate(steps, episodes, perf() - start)

    return run


def bench_raw_rules(
    new_game: Callable[[np.random.Generator], Any],
    legal_actions: Callable[[Any], list[int]],
    is_terminal: Callable[[Any], bool],
    step: Callable[[Any, int, np.random.Generator], float] | None = None,
    apply: Callable[[Any, int, np.random.Generator], tuple[Any, float]] | None = None,
) -> Callable[[float, int], dict[str, Any]]:
    """The rule functions without any env: ``step`` in place, or the pure ``apply``."""
    if (step is None) == (apply is None):
        raise ValueError("give exactly one of step (in place) or apply (pure)")

    def run(seconds: float, seed: int) -> dict[str, Any]:
        choice = random.Random(seed).choice
        perf = time.perf_counter
        steps = episodes = 0
        start = perf()
        deadline = start + seconds
        rng = np.random.default_rng(seed)
        while True:
            state = new_game(rng)
            while not is_terminal(state):
                action = choice(legal_actions(state))
                if step is not None:
                    step(state, action, rng)
                else:
                    state, _ = apply(state, action, rng)
                steps += 1
                if steps % _CLOCK_EVERY == 0 and perf() >= deadline:
                    break
            episodes += is_terminal(state)
            if perf() >= deadline:
                break
        return _rate(steps, episodes, perf() - start)

    return run


def bench_clone(
    sample_states: Callable[[int], list[Any]], clone: Callable[[Any], Any] = lambda s: s.clone()
) -> Callable[[float, int], dict[str, Any]]:
    """Time ``clone`` over states taken from real games, in microseconds per clone."""

    def run(seconds: float, seed: int) -> dict[str, Any]:
        import timeit

        states = sample_states(seed)
        if not states:
            raise RuntimeError("no states to clone")

        def batch() -> None:
            for state in states:
                clone(state)

        timer = timeit.Timer(batch)
        per_batch, _ = timer.autorange()  # batches per repeat so that one repeat takes >= 0.2 s
        per_batch = max(1, per_batch)
        samples: list[float] = []
        perf = time.perf_counter
        start = perf()
        deadline = start + seconds
        while True:
            samples.append(timer.timeit(per_batch) / (per_batch * len(states)))
            if perf() >= deadline:
                break
        return {
            "states": len(states),
            "repeats": len(samples),
            "clones": len(samples) * per_batch * len(states),
            "seconds": perf() - start,
            "us_per_clone": 1e6 * statistics.median(samples),
            "us_per_clone_min": 1e6 * min(samples),
        }

    return run


# --------------------------------------------------------------------------- Empire games (raw rules)


def _rules(game: str) -> Any:
    """The rules module of a game package (``"solo"``, ``"solitaire"``), imported when run."""
    import importlib

    return importlib.import_module(f"empire_envs.games.{game}.rules")


def _sample_states(game: str) -> Callable[[int], list[Any]]:
    def sample(seed: int, games: int = 20, limit: int = 2000) -> list[Any]:
        """Every decision state of ``games`` random games (at most ``limit``)."""
        rules = _rules(game)
        choice = random.Random(seed).choice
        states: list[Any] = []
        for index in range(games):
            rng = np.random.default_rng(seed + index)
            state = rules.new_game(None, rng)
            while not rules.is_terminal(state) and len(states) < limit:
                states.append(state.clone())
                rules.apply_action(state, choice(rules.legal_actions(state)), rng)
        return states

    return sample


def _raw(game: str, pure: bool) -> Callable[[float, int], dict[str, Any]]:
    def run(seconds: float, seed: int) -> dict[str, Any]:
        import importlib

        rules = _rules(game)
        record = importlib.import_module(f"empire_envs.games.{game}").GAME
        inner = bench_raw_rules(
            lambda rng: rules.new_game(None, rng), rules.legal_actions, rules.is_terminal,
            step=None if pure else rules.apply_action, apply=record.child if pure else None,
        )
        return inner(seconds, seed)

    return run


def _connect_four() -> Any:
    """``connect_four_v3.env()``; through PettingZoo's registry when it has one (1.27+: same
    wrappers, without the deprecation warning of the old module path)."""
    try:
        import pettingzoo

        if "classic/connect_four-v3" in getattr(pettingzoo, "aec_registry", ()):
            return pettingzoo.make("aec", "classic/connect_four-v3")
        from pettingzoo.classic import connect_four_v3

        return connect_four_v3.env()
    except Exception as error:  # connect_four imports pygame at module level
        if not _is_import_failure(error):
            raise
        raise Skipped(
            f"cannot build PettingZoo connect_four_v3 ({_root_cause(error)}); "
            "install it with: pip install pygame (or 'pettingzoo[classic]')"
        ) from None


def _connect_four_raw() -> Any:
    """``connect_four_v3.raw_env()``: the peer without PettingZoo's wrappers."""
    try:
        try:  # the module behind the registry entry (1.27+), without the old path's warning
            from pettingzoo.classic.connect_four.connect_four import raw_env
        except ImportError:
            from pettingzoo.classic.connect_four_v3 import raw_env
        return raw_env()
    except Exception as error:
        if not _is_import_failure(error):
            raise
        raise Skipped(f"cannot build PettingZoo connect_four_v3 ({_root_cause(error)})") from None


def _root_cause(error: BaseException) -> BaseException:
    while error.__cause__ is not None:
        error = error.__cause__
    return error


def _is_import_failure(error: BaseException) -> bool:
    """An ImportError, or a wrapper of one (PettingZoo's registry raises ``FailedToImport``)."""
    return isinstance(_root_cause(error), ImportError) or type(error).__name__ == "FailedToImport"


def _pillars_states(seed: int, games: int = 10, limit: int = 2000) -> list[Any]:
    """Decision states of random 4-player Pillars games (at most ``limit``)."""
    from empire_envs.games.pillars import PillarsConfig, rules

    choice = random.Random(seed).choice
    states: list[Any] = []
    for index in range(games):
        rng = np.random.default_rng(seed + index)
        state = rules.new_game(PillarsConfig(), rng)
        while not rules.is_terminal(state) and len(states) < limit:
            states.append(state.clone())
            rules.apply_action(state, choice(rules.legal_actions(state)), rng)
    return states


def _raw_pillars(seconds: float, seed: int) -> dict[str, Any]:
    from empire_envs.games.pillars import PillarsConfig, rules

    config = PillarsConfig()
    inner = bench_raw_rules(
        lambda rng: rules.new_game(config, rng), rules.legal_actions, rules.is_terminal,
        step=rules.apply,
    )
    return inner(seconds, seed)


def _pillars_env() -> Any:
    return empire_envs.make("empire_envs/Pillars-v0")


def _pillars_raw_env() -> Any:
    from empire_envs.envs import raw_env

    return raw_env("pillars")


def _stock_wrappers(make_raw: Callable[[], Any]) -> Callable[[], Any]:
    """A raw env under PettingZoo's stock wrapper classes, exactly as a classic game's ``env()``
    stacks them (our ``env()`` uses subclasses that skip the ``__getattr__`` chain)."""

    def make() -> Any:
        from pettingzoo.utils import wrappers

        env = wrappers.TerminateIllegalWrapper(make_raw(), illegal_reward=-1)
        env = wrappers.AssertOutOfBoundsWrapper(env)
        return wrappers.OrderEnforcingWrapper(env)

    return make


def _map_duel_env() -> Any:
    return empire_envs.make("empire_envs/MapDuel-v0")


def _map_duel_raw_env() -> Any:
    from empire_envs.envs import raw_env

    return raw_env("map_duel")


def _generals_env() -> Any:
    return empire_envs.make("empire_envs/Generals-v0")


def _generals_raw_env() -> Any:
    from empire_envs.envs import raw_env

    return raw_env("generals")


def _raw_generals(seconds: float, seed: int) -> dict[str, Any]:
    from empire_envs.games.generals import GeneralsConfig, rules

    config = GeneralsConfig()
    inner = bench_raw_rules(
        lambda rng: rules.new_game(config, rng), rules.legal_actions, rules.is_terminal,
        step=rules.apply,
    )
    return inner(seconds, seed)


def _raw_map_duel(seconds: float, seed: int) -> dict[str, Any]:
    from empire_envs.games.map_duel import MapDuelConfig, rules

    config = MapDuelConfig()
    inner = bench_raw_rules(
        lambda rng: rules.new_game(config, rng), rules.legal_actions, rules.is_terminal,
        step=rules.apply,
    )
    return inner(seconds, seed)


def _texas_holdem(raw: bool) -> Callable[[], Any]:
    """PettingZoo classic texas_holdem (limit), ``env()`` or its ``raw_env``; needs ``rlcard``."""

    def make() -> Any:
        try:
            from pettingzoo.classic.rlcard_envs import texas_holdem
        except Exception as error:
            if not _is_import_failure(error):
                raise
            raise Skipped(
                f"cannot build PettingZoo texas_holdem ({_root_cause(error)}); "
                "install it with: pip install rlcard"
            ) from None
        return texas_holdem.raw_env() if raw else texas_holdem.env()

    return make


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Benchmark:
    name: str
    description: str
    run: Callable[[float, int], dict[str, Any]]
    groups: tuple[str, ...] = field(default=())


BENCHMARKS: list[Benchmark] = [
    Benchmark(
        "gym_solo", "EmpireSolo-v0 via gymnasium.make (step + info mask + random legal)",
        bench_gym_masked("empire_envs/EmpireSolo-v0"), ("solo", "empire", "gym"),
    ),
    Benchmark(
        "raw_solo_step", "EmpireSolo raw rules: legal_actions + step in place",
        _raw("solo", pure=False), ("solo", "empire", "raw"),
    ),
    Benchmark(
        "raw_solo_apply", "EmpireSolo raw rules: legal_actions + pure apply (clone + step)",
        _raw("solo", pure=True), ("solo", "empire", "raw"),
    ),
    Benchmark(
        "solo_clone", "SoloState.clone() over states of 20 random games",
        bench_clone(_sample_states("solo")), ("solo", "empire", "clone"),
    ),
    Benchmark(
        "gym_solitaire", "EmpireSolitaire-v0 via gymnasium.make (step + info mask + random legal)",
        bench_gym_masked("empire_envs/EmpireSolitaire-v0"), ("solitaire", "empire", "gym"),
    ),
    Benchmark(
        "raw_solitaire_step", "EmpireSolitaire raw rules: legal_actions + step in place",
        _raw("solitaire", pure=False), ("solitaire", "empire", "raw"),
    ),
    Benchmark(
        "solitaire_clone", "SolitaireState.clone() over states of 20 random games",
        bench_clone(_sample_states("solitaire")), ("solitaire", "empire", "clone"),
    ),
    Benchmark(
        "pz_pillars", "Pillars-v0 env() (4 players; AEC, random legal; every env.step counted)",
        bench_aec_masked(_pillars_env), ("pillars", "empire", "pettingzoo"),
    ),
    Benchmark(
        "pz_pillars_raw", "Pillars raw_env (no wrappers; same loop)",
        bench_aec_masked(_pillars_raw_env), ("pillars", "empire", "pettingzoo"),
    ),
    Benchmark(
        "pz_pillars_stock", "Pillars raw_env under PettingZoo's stock wrapper classes",
        bench_aec_masked(_stock_wrappers(_pillars_raw_env)), ("pillars", "empire", "pettingzoo"),
    ),
    Benchmark(
        "raw_pillars_step", "Pillars raw rules (4 players): legal_actions + apply in place",
        _raw_pillars, ("pillars", "empire", "raw"),
    ),
    Benchmark(
        "pillars_clone", "PillarsState.clone() over states of 10 random 4-player games",
        bench_clone(_pillars_states), ("pillars", "empire", "clone"),
    ),
    Benchmark(
        "pz_map_duel", "MapDuel-v0 env() (AEC, random legal; every env.step counted)",
        bench_aec_masked(_map_duel_env), ("map_duel", "empire", "pettingzoo"),
    ),
    Benchmark(
        "pz_map_duel_raw", "Map Duel raw_env (no wrappers; same loop)",
        bench_aec_masked(_map_duel_raw_env), ("map_duel", "empire", "pettingzoo"),
    ),
    Benchmark(
        "pz_map_duel_stock", "Map Duel raw_env under PettingZoo's stock wrapper classes",
        bench_aec_masked(_stock_wrappers(_map_duel_raw_env)), ("map_duel", "empire", "pettingzoo"),
    ),
    Benchmark(
        "raw_map_duel_step", "Map Duel raw rules: legal_actions + apply in place",
        _raw_map_duel, ("map_duel", "empire", "raw"),
    ),
    Benchmark(
        "pz_generals", "Generals-v0 env() (2 players; AEC, random legal; every env.step counted)",
        bench_aec_masked(_generals_env), ("generals", "empire", "pettingzoo"),
    ),
    Benchmark(
        "pz_generals_raw", "Generals raw_env (no wrappers; same loop)",
        bench_aec_masked(_generals_raw_env), ("generals", "empire", "pettingzoo"),
    ),
    Benchmark(
        "pz_generals_stock", "Generals raw_env under PettingZoo's stock wrapper classes",
        bench_aec_masked(_stock_wrappers(_generals_raw_env)), ("generals", "empire", "pettingzoo"),
    ),
    Benchmark(
        "raw_generals_step", "Generals raw rules (2 players): legal_actions + apply in place",
        _raw_generals, ("generals", "empire", "raw"),
    ),
    Benchmark(
        "gym_blackjack", "Gymnasium Blackjack-v1 via gymnasium.make (action_space.sample())",
        bench_gym_sampled("Blackjack-v1"), ("peers", "gym"),
    ),
    Benchmark(
        "pz_connect_four", "PettingZoo classic connect_four_v3 (AEC, random legal; every env.step counted)",
        bench_aec_masked(_connect_four), ("peers", "pettingzoo"),
    ),
    Benchmark(
        "pz_connect_four_raw", "PettingZoo classic connect_four_v3 raw_env (no wrappers)",
        bench_aec_masked(_connect_four_raw), ("peers", "pettingzoo"),
    ),
    Benchmark(
        "pz_texas_holdem", "PettingZoo classic texas_holdem_v4 env() (AEC, random legal)",
        bench_aec_masked(_texas_holdem(raw=False)), ("peers", "pettingzoo"),
    ),
    Benchmark(
        "pz_texas_holdem_raw", "PettingZoo classic texas_holdem_v4 raw_env (no wrappers)",
        bench_aec_masked(_texas_holdem(raw=True)), ("peers", "pettingzoo"),
    ),
]

#: (ratio name, numerator benchmark, denominator benchmark, key compared)
RATIOS: list[tuple[str, str, str, str]] = [
    ("raw_solo_step / pz_connect_four", "raw_solo_step", "pz_connect_four", "steps_per_second"),
    ("gym_solo / pz_connect_four", "gym_solo", "pz_connect_four", "steps_per_second"),
    ("raw_solo_step / gym_solo", "raw_solo_step", "gym_solo", "steps_per_second"),
    ("gym_solo / gym_blackjack", "gym_solo", "gym_blackjack", "steps_per_second"),
    ("raw_solitaire_step / pz_connect_four", "raw_solitaire_step", "pz_connect_four",
     "steps_per_second"),
    ("gym_solitaire / pz_connect_four", "gym_solitaire", "pz_connect_four", "steps_per_second"),
    ("pz_pillars / pz_texas_holdem", "pz_pillars", "pz_texas_holdem", "steps_per_second"),
    ("pz_pillars_raw / pz_texas_holdem_raw", "pz_pillars_raw", "pz_texas_holdem_raw",
     "steps_per_second"),
    ("pz_pillars_stock / pz_texas_holdem", "pz_pillars_stock", "pz_texas_holdem",
     "steps_per_second"),
    ("raw_pillars_step / pz_texas_holdem", "raw_pillars_step", "pz_texas_holdem",
     "steps_per_second"),
    ("pz_map_duel / pz_connect_four", "pz_map_duel", "pz_connect_four", "steps_per_second"),
    ("pz_map_duel_raw / pz_connect_four_raw", "pz_map_duel_raw", "pz_connect_four_raw",
     "steps_per_second"),
    ("pz_map_duel_stock / pz_connect_four", "pz_map_duel_stock", "pz_connect_four",
     "steps_per_second"),
    ("pz_generals / pz_texas_holdem", "pz_generals", "pz_texas_holdem", "steps_per_second"),
    ("pz_generals_raw / pz_texas_holdem_raw", "pz_generals_raw", "pz_texas_holdem_raw",
     "steps_per_second"),
    ("pz_generals_stock / pz_texas_holdem", "pz_generals_stock", "pz_texas_holdem",
     "steps_per_second"),
    ("raw_generals_step / pz_texas_holdem", "raw_generals_step", "pz_texas_holdem",
     "steps_per_second"),
    ("raw_map_duel_step / pz_connect_four", "raw_map_duel_step", "pz_connect_four",
     "steps_per_second"),
]


def select(only: Sequence[str] | None) -> list[Benchmark]:
    """The benchmarks named (or in a group named) in ``only``; all of them when empty."""
    if not only:
        return list(BENCHMARKS)
    wanted = {token.strip() for item in only for token in item.split(",") if token.strip()}
    known = {b.name for b in BENCHMARKS} | {g for b in BENCHMARKS for g in b.groups}
    unknown = wanted - known
    if unknown:
        raise ValueError(f"unknown benchmark(s) {sorted(unknown)}; known: {sorted(known)}")
    return [b for b in BENCHMARKS if b.name in wanted or wanted.intersection(b.groups)]


def run_benchmarks(
    seconds: float = 5.0, only: Sequence[str] | None = None, seed: int = 0,
    warmup: float | None = None, log: Callable[[str], None] | None = print, repeat: int = 1,
) -> dict[str, Any]:
    """Run the selected benchmarks; a JSON-ready dict with ``results`` and ``ratios``.

    With ``repeat > 1`` the selected benchmarks run round after round (A, B, ..., A, B, ...) and
    each reports the median of its rounds, so a load change on the machine hits both sides of a
    ratio alike; every round's figure is kept under ``steps_per_second_runs``.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    warmup = min(0.5, seconds / 10) if warmup is None else warmup
    chosen = select(only)
    runs: dict[str, list[dict[str, Any]]] = {bench.name: [] for bench in chosen}
    skipped: dict[str, str] = {}
    for round_index in range(repeat):
        for bench in chosen:
            if bench.name in skipped:
                continue
            try:
                if warmup > 0 and round_index == 0:
                    bench.run(warmup, seed)
                runs[bench.name].append(bench.run(seconds, seed))
            except Skipped as reason:
                skipped[bench.name] = str(reason)
    results: dict[str, dict[str, Any]] = {}
    for bench in chosen:
        entry: dict[str, Any] = {"description": bench.description}
        if bench.name in skipped:
            entry["skipped"] = skipped[bench.name]
        else:
            entry.update(_median_run(runs[bench.name]))
        results[bench.name] = entry
        if log:
            log(format_result(bench.name, entry))
    ratios = {}
    for name, numerator, denominator, key in RATIOS:
        top, bottom = results.get(numerator, {}), results.get(denominator, {})
        if key in top and key in bottom and bottom[key]:
            ratios[name] = top[key] / bottom[key]
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "numpy": np.__version__,
        "seconds": seconds,
        "repeat": repeat,
        "seed": seed,
        "results": results,
        "ratios": ratios,
    }


def _median_run(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The round with the median speed (one round: itself), with every round's figure."""
    key = "us_per_clone" if "us_per_clone" in rounds[0] else "steps_per_second"
    ordered = sorted(rounds, key=lambda entry: entry[key])
    middle = dict(ordered[(len(ordered) - 1) // 2])
    middle[f"{key}_runs"] = [entry[key] for entry in rounds]
    return middle


def format_result(name: str, entry: dict[str, Any]) -> str:
    if "skipped" in entry:
        return f"{name:<16} SKIPPED: {entry['skipped']}"
    if "us_per_clone" in entry:
        return (
            f"{name:<16} {entry['us_per_clone']:10.2f} us/clone   (min {entry['us_per_clone_min']:.2f}, "
            f"{entry['states']} states, {entry['clones']:,} clones)   {entry['description']}"
        )
    return (
        f"{name:<16} {entry['steps_per_second']:10,.0f} steps/s  ({entry['steps']:,} steps, "
        f"{entry['episodes']:,} episodes, {entry['steps_per_episode']:.1f} steps/ep)   "
        f"{entry['description']}"
    )


def format_ratios(report: dict[str, Any]) -> str:
    lines = ["ratios (steps/s):"]
    lines += [f"  {name:<34} {value:8.2f}x" for name, value in report["ratios"].items()]
    for name, label in (("solo_clone", "SoloState.clone()"), ("pillars_clone", "PillarsState.clone()")):
        clone = report["results"].get(name, {})
        if "us_per_clone" in clone:
            lines.append(f"  {label:<34} {clone['us_per_clone']:8.2f} us")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement (default 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--only", action="append", metavar="NAMES",
        help="comma-separated benchmark or group names "
        f"(benchmarks: {', '.join(b.name for b in BENCHMARKS)}; "
        f"groups: {', '.join(sorted({g for b in BENCHMARKS for g in b.groups}))})",
    )
    parser.add_argument(
        "--repeat", type=int, default=1,
        help="rounds over the selected benchmarks; each reports its median round (default 1)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON ('-': stdout)")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    try:
        select(args.only)
    except ValueError as error:
        parser.error(str(error))
    log = text_log(args.json)
    report = run_benchmarks(args.seconds, args.only, args.seed, log=log, repeat=args.repeat)
    log(format_ratios(report))
    emit_json(report, args.json, log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
