"""Environment speed: decisions per second under a random masked policy, peers in the same run.

``python -m empire_envs bench`` (and ``experiments/bench_speed.py``) runs ``run_benchmarks``.

Every masked loop picks its action the same way: ``random.Random(seed).choice`` over the legal
indices (``np.flatnonzero(mask)`` where the API gives a mask, the legal list where it gives a
list). A measurement runs for ``seconds`` of wall time after a short warm-up; resets are inside
the timed loop (they are part of the cost of running episodes) but only decisions (``step``
calls) are counted. Only the first reset of a measurement is seeded, as in a training loop
(re-seeding costs a new generator each episode, which would dominate Blackjack's 1-2 step
episodes); the raw-rules loops likewise use one generator throughout.

The rows come from the game table (``registry.all_games()``), so a new game gets its rows and
ratios for free (``game_benchmarks``). For a game ``<key>`` whose first variant is ``<ID>``:

- ``gym_<key>`` (a Gymnasium game, through ``gymnasium.make``) or ``pz_<key>`` (a PettingZoo
  game: the wrapped env of ``empire_envs.make``);
- ``pz_<key>_raw`` and ``pz_<key>_stock`` (PettingZoo games): the bare ``raw_env``, and the same
  under PettingZoo's stock wrapper classes;
- ``raw_<key>_step``: the rules through the ``Game`` protocol, ``legal_actions`` +
  ``apply_action`` in place; ``raw_<key>_apply``: the same with the pure ``Game.child``;
- ``<key>_clone``: ``state.clone()`` over the decision states of 20 random games.

Each row is in the groups ``<key>``, ``empire`` and its kind (``gym``, ``pettingzoo``, ``raw``,
``clone``). The peers (``PEERS``, group ``peers``) are Gymnasium Blackjack and PettingZoo classic
connect_four and texas_holdem. ``ratios()`` divides each game's API and raw-rules rows by its
``GameEntry.speed_peer`` (the ``raw_env`` row by the peer's own ``_raw`` row), its raw rules by
its API row, and a Gymnasium game by Blackjack.
"""

from __future__ import annotations

import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..core.extras import missing_extra
from ..registry import NAMESPACE, GameEntry, all_games, make
from ..registry import entry as registered_entry
from .reporting import Log

Run = Callable[[float, int], dict[str, Any]]

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


def bench_gym_masked(env_id: str, **make_kwargs: Any) -> Run:
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


def bench_gym_sampled(env_id: str, **make_kwargs: Any) -> Run:
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


def bench_aec_masked(make_env: Callable[[], Any]) -> Run:
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


def bench_env_masked(env_id: str, api: str | None = None) -> Run:
    """A registered id through its own API under random masked play, as its user makes it: a
    Gymnasium game through ``gymnasium.make`` (``bench_gym_masked``), a PettingZoo game as the
    AEC env of ``empire_envs.make`` (PettingZoo's standard wrappers; ``bench_aec_masked``, every
    ``env.step`` a decision). ``api`` is ``"gymnasium"`` or ``"pettingzoo"`` where the caller
    knows it, else the registry's entry says, when the row runs (nothing is looked up or loaded
    before). The ``gym_<key>`` and ``pz_<key>`` rows and the Python env column of
    ``bench --batched`` are this."""

    def run(seconds: float, seed: int) -> dict[str, Any]:
        kind = api or registered_entry(env_id).api
        inner = bench_gym_masked(env_id) if kind == "gymnasium" else bench_aec_masked(lambda: make(env_id))
        return inner(seconds, seed)

    return run


def bench_raw_rules(
    new_game: Callable[[np.random.Generator], Any],
    legal_actions: Callable[[Any], list[int]],
    is_terminal: Callable[[Any], bool],
    step: Callable[[Any, int, np.random.Generator], Any] | None = None,
    apply: Callable[[Any, int, np.random.Generator], tuple[Any, Any]] | None = None,
) -> Run:
    """The rule functions without any env: ``step`` in place, or the pure ``apply`` (which
    returns the new state first)."""
    if (step is None) == (apply is None):
        raise ValueError("give exactly one of step (in place) or apply (pure)")
    pure = cast(Callable[[Any, int, np.random.Generator], tuple[Any, Any]], apply)

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
                    state, _ = pure(state, action, rng)
                steps += 1
                if steps % _CLOCK_EVERY == 0 and perf() >= deadline:
                    break
            episodes += is_terminal(state)
            if perf() >= deadline:
                break
        return _rate(steps, episodes, perf() - start)

    return run


def bench_clone(sample_states: Callable[[int], list[Any]], clone: Callable[[Any], Any] = lambda s: s.clone()) -> Run:
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


# --------------------------------------------------------------------------- the rows


@dataclass(frozen=True)
class Benchmark:
    """One row: its name, what it measures, ``run(seconds, seed) -> figures``, and the groups
    that ``--only`` selects it by."""

    name: str
    description: str
    run: Run
    groups: tuple[str, ...] = field(default=())


#: (ratio name, numerator row, denominator row, key compared)
Ratio = tuple[str, str, str, str]

#: the clone timing samples every decision state of this many random games ...
CLONE_GAMES = 20
#: ... up to this many states
CLONE_STATE_LIMIT = 2000


def main_id(game: GameEntry) -> str:
    """The id of the game's first variant, the one its rows measure."""
    return f"{NAMESPACE}/{game.variants[0].name}"


def main_config(game: GameEntry) -> Any:
    """The config of the game's first variant (loads the game)."""
    return game.load().config_class(**game.variants[0].kwargs)


def bench_game_rules(game: GameEntry, pure: bool) -> Run:
    """The game's rules through its ``Game`` record, without any env: ``apply_action`` in place,
    or the pure ``Game.child``. The game is loaded when the row runs."""

    def run(seconds: float, seed: int) -> dict[str, Any]:
        record = game.load()
        config = main_config(game)
        inner = bench_raw_rules(
            lambda rng: record.new_game(config, rng),
            record.legal_actions,
            record.is_terminal,
            step=None if pure else record.apply_action,
            apply=record.child if pure else None,
        )
        return inner(seconds, seed)

    return run


def game_states(game: GameEntry, seed: int) -> list[Any]:
    """Every decision state of ``CLONE_GAMES`` random games of the game's first variant (at most
    ``CLONE_STATE_LIMIT``), played through its ``Game`` record."""
    record = game.load()
    config = main_config(game)
    choice = random.Random(seed).choice
    states: list[Any] = []
    for index in range(CLONE_GAMES):
        rng = np.random.default_rng(seed + index)
        state = record.new_game(config, rng)
        while not record.is_terminal(state) and len(states) < CLONE_STATE_LIMIT:
            states.append(state.clone())
            record.apply_action(state, choice(record.legal_actions(state)), rng)
    return states


def _raw_env(game: GameEntry) -> Callable[[], Any]:
    """The game's bare env class with its first variant's settings (no wrappers)."""

    def build() -> Any:
        from ..envs import raw_env  # the env classes are built when a row runs, not when listed

        return raw_env(game.key, **game.variants[0].kwargs)

    return build


def game_benchmarks(game: GameEntry) -> list[Benchmark]:
    """The rows of one game of the registry (see the module docstring); nothing is loaded until
    a row runs."""
    key, shown = game.key, game.variants[0].name
    rows: list[Benchmark] = []
    if game.api == "gymnasium":
        rows.append(
            Benchmark(
                f"gym_{key}",
                f"{shown} via gymnasium.make (step + info mask + random legal)",
                bench_env_masked(main_id(game), game.api),
                (key, "empire", "gym"),
            )
        )
    else:
        groups = (key, "empire", "pettingzoo")
        rows += [
            Benchmark(
                f"pz_{key}",
                f"{shown} env() (AEC, random legal; every env.step counted)",
                bench_env_masked(main_id(game), game.api),
                groups,
            ),
            Benchmark(
                f"pz_{key}_raw", f"{shown} raw_env (no wrappers; same loop)", bench_aec_masked(_raw_env(game)), groups
            ),
            Benchmark(
                f"pz_{key}_stock",
                f"{shown} raw_env under PettingZoo's stock wrapper classes",
                bench_aec_masked(_stock_wrappers(_raw_env(game))),
                groups,
            ),
        ]
    rows += [
        Benchmark(
            f"raw_{key}_step",
            f"{shown} raw rules (Game protocol): legal_actions + apply_action in place",
            bench_game_rules(game, pure=False),
            (key, "empire", "raw"),
        ),
        Benchmark(
            f"raw_{key}_apply",
            f"{shown} raw rules (Game protocol): legal_actions + pure Game.child (clone + apply_action)",
            bench_game_rules(game, pure=True),
            (key, "empire", "raw"),
        ),
        Benchmark(
            f"{key}_clone",
            f"{shown} state.clone() over the states of {CLONE_GAMES} random games",
            bench_clone(lambda seed: game_states(game, seed)),
            (key, "empire", "clone"),
        ),
    ]
    return rows


def _ratio(numerator: str, denominator: str) -> Ratio:
    return f"{numerator} / {denominator}", numerator, denominator, "steps_per_second"


def game_ratios(game: GameEntry) -> list[Ratio]:
    """One game's ratios: its API and raw-rules rows to its speed peer (the ``raw_env`` row to the
    peer's ``_raw`` row where the peer has one), its raw rules to its API row, and a Gymnasium
    game to Blackjack."""
    key = game.key
    api = f"gym_{key}" if game.api == "gymnasium" else f"pz_{key}"
    raw = f"raw_{key}_step"
    found: list[Ratio] = []
    peer = game.speed_peer
    if peer:
        found += [_ratio(api, peer), _ratio(raw, peer)]
        if game.api == "pettingzoo":
            peer_raw = f"{peer}_raw"
            has_raw = any(row.name == peer_raw for row in PEERS)
            found += [_ratio(f"pz_{key}_raw", peer_raw if has_raw else peer), _ratio(f"pz_{key}_stock", peer)]
    found.append(_ratio(raw, api))
    if game.api == "gymnasium":
        found.append(_ratio(api, "gym_blackjack"))
    return found


# --------------------------------------------------------------------------- the peers


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
        raise Skipped(str(missing_extra("bench", "the connect_four_v3 peer", str(_root_cause(error))))) from None


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


def _stock_wrappers(make_raw: Callable[[], Any]) -> Callable[[], Any]:
    """A raw env under PettingZoo's stock wrapper classes, exactly as a classic game's ``env()``
    stacks them (our ``env()`` uses subclasses that skip the ``__getattr__`` chain)."""

    def build() -> Any:
        from pettingzoo.utils import wrappers

        env = wrappers.TerminateIllegalWrapper(make_raw(), illegal_reward=-1)
        env = wrappers.AssertOutOfBoundsWrapper(env)
        return wrappers.OrderEnforcingWrapper(env)

    return build


def _texas_holdem(raw: bool) -> Callable[[], Any]:
    """PettingZoo classic texas_holdem (limit), ``env()`` or its ``raw_env``; needs ``rlcard``."""

    def build() -> Any:
        try:
            from pettingzoo.classic.rlcard_envs import texas_holdem
        except Exception as error:
            if not _is_import_failure(error):
                raise
            raise Skipped(str(missing_extra("bench", "the texas_holdem peer", str(_root_cause(error))))) from None
        return texas_holdem.raw_env() if raw else texas_holdem.env()

    return build


#: the peer environments, measured beside the games in the same run
PEERS: tuple[Benchmark, ...] = (
    Benchmark(
        "gym_blackjack",
        "Gymnasium Blackjack-v1 via gymnasium.make (action_space.sample())",
        bench_gym_sampled("Blackjack-v1"),
        ("peers", "gym"),
    ),
    Benchmark(
        "pz_connect_four",
        "PettingZoo classic connect_four_v3 (AEC, random legal; every env.step counted)",
        bench_aec_masked(_connect_four),
        ("peers", "pettingzoo"),
    ),
    Benchmark(
        "pz_connect_four_raw",
        "PettingZoo classic connect_four_v3 raw_env (no wrappers)",
        bench_aec_masked(_connect_four_raw),
        ("peers", "pettingzoo"),
    ),
    Benchmark(
        "pz_texas_holdem",
        "PettingZoo classic texas_holdem_v4 env() (AEC, random legal)",
        bench_aec_masked(_texas_holdem(raw=False)),
        ("peers", "pettingzoo"),
    ),
    Benchmark(
        "pz_texas_holdem_raw",
        "PettingZoo classic texas_holdem_v4 raw_env (no wrappers)",
        bench_aec_masked(_texas_holdem(raw=True)),
        ("peers", "pettingzoo"),
    ),
)


def benchmarks() -> list[Benchmark]:
    """Every row: each game's of the registry, in table order, then the peers."""
    return [row for game in all_games() for row in game_benchmarks(game)] + list(PEERS)


def ratios() -> list[Ratio]:
    """Every ratio, game by game in table order."""
    return [ratio for game in all_games() for ratio in game_ratios(game)]


def group_names() -> list[str]:
    """Every group name ``select`` knows, sorted."""
    return sorted({group for row in benchmarks() for group in row.groups})


def select(only: Sequence[str] | None) -> list[Benchmark]:
    """The rows named (or in a group named) in ``only``, comma-separated names allowed; all of
    them when empty. ``ValueError`` names the unknown ones."""
    rows = benchmarks()
    if not only:
        return rows
    wanted = {token.strip() for item in only for token in item.split(",") if token.strip()}
    known = {b.name for b in rows} | {g for b in rows for g in b.groups}
    unknown = wanted - known
    if unknown:
        raise ValueError(f"unknown benchmark(s) {sorted(unknown)}; known: {sorted(known)}")
    return [b for b in rows if b.name in wanted or wanted.intersection(b.groups)]


def run_benchmarks(
    seconds: float = 5.0,
    only: Sequence[str] | None = None,
    seed: int = 0,
    warmup: float | None = None,
    log: Log | None = print,
    repeat: int = 1,
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
    found: dict[str, float] = {}
    for name, numerator, denominator, key in ratios():
        top, bottom = results.get(numerator, {}), results.get(denominator, {})
        if key in top and key in bottom and bottom[key]:
            found[name] = top[key] / bottom[key]
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
        "ratios": found,
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
        return f"{name:<26} SKIPPED: {entry['skipped']}"
    if "us_per_clone" in entry:
        return (
            f"{name:<26} {entry['us_per_clone']:10.2f} us/clone   (min {entry['us_per_clone_min']:.2f}, "
            f"{entry['states']} states, {entry['clones']:,} clones)   {entry['description']}"
        )
    return (
        f"{name:<26} {entry['steps_per_second']:10,.0f} steps/s  ({entry['steps']:,} steps, "
        f"{entry['episodes']:,} episodes, {entry['steps_per_episode']:.1f} steps/ep)   "
        f"{entry['description']}"
    )


def format_ratios(report: dict[str, Any]) -> str:
    """The ratios of a ``run_benchmarks`` report, then each clone row's time."""
    lines = ["ratios (steps/s):"]
    lines += [f"  {name:<50} {value:8.2f}x" for name, value in report["ratios"].items()]
    for name, entry in report["results"].items():
        if "us_per_clone" in entry:
            lines.append(f"  {name + ' state.clone()':<50} {entry['us_per_clone']:8.2f} us")
    return "\n".join(lines)
