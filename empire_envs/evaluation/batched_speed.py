"""Batched speed: the JAX twins beside pgx, random legal actions, one compiled harness for all.

``python -m empire_envs bench --batched`` (``experiments/bench_speed.py --batched``) runs
``run_batched``. Every subject is a pgx-style env (``init(key)``, ``step(state, action, key)``,
states with ``legal_action_mask``, ``terminated``, ``truncated``), stepped by the same compiled
program (``rollout``) at each batch size N:

- a ``lax.scan`` of ``steps_per_call(N)`` batched steps per call;
- each action uniform among the legal ones, from one random word per game
  (``random_legal_actions``: no noise per action, no cumulative sum, which XLA runs slowly on
  the CPU);
- finished games dealt again at once by ``adapters.jax_env.reset_finished`` (at most N/8 new
  deals per step, a full batch of deals in the rare step where more finished), so no subject
  ever steps a finished game and every subject pays for its deals.

A measurement counts N steps per scanned step over ``seconds`` of wall time (whole calls, after
``block_until_ready``); the compile time (trace, lower and compile of the rollout at that N) is
reported separately. JAX's persistent compilation cache is on (``core.jax_cache``): a rollout
compiled by an earlier run is loaded instead, and its row says so (``compile_cached``), since
its compile time is then the time to load it. Before each compile one line on standard error
says what is compiled (``EMPIRE_ENVS_QUIET=1`` silences it, as does ``log=None``).

The subjects: every registered id with a twin (its first variant per game by default; ``ids``
picks others), pgx's ``connect_four``, ``leduc_holdem`` and ``backgammon`` (when pgx is
installed: the ``bench`` extra), and each twin's Python env for scale: one env of the same id
under random masked play, as ``python -m empire_envs bench`` times it (``speed.bench_env_masked``:
``gymnasium.make`` for a one-seat game, the AEC env of ``empire_envs.make`` for a game of
several seats, every ``env.step`` a decision).

Games of several seats run through the same harness unchanged: a step is one decision of the
seat to act (``current_player``), whose mask is ``legal_action_mask``, so a decision per game
per step is counted whatever the seats; ``rewards`` (``[N, num_players]``) is not read.

The report gives, per subject, its seats and the bytes of one game's state (``state_bytes``: a
step reads and writes all of them), each batch size's steps/s and compile time, and the ratios
at ``RATIO_BATCH`` of each twin to its Python env and to the pgx peers of ``RATIO_PEERS``.
``format_table`` prints it all as one table at the end.

``profile`` (``bench --batched --profile``) times the harness's parts one by one for a twin:
where a batched step spends its time.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.jax_cache import compile_note, count_cache_hits, enable_compile_cache
from ..registry import NAMESPACE, all_games, entry
from .reporting import Log
from .speed import Skipped, bench_env_masked

BATCH_SIZES = (1, 64, 1024, 4096)
PGX_PEERS = ("connect_four", "leduc_holdem", "backgammon")
#: the peers each twin's ratio is taken against (those measured in the run), at ``RATIO_BATCH``
RATIO_PEERS, RATIO_BATCH = ("pgx/connect_four", "pgx/backgammon"), 1024


@dataclass(frozen=True)
class Subject:
    name: str
    #: () -> a pgx-style env (``init``, ``step``); raises ``Skipped`` when it cannot run here
    make: Callable[[], Any]


def steps_per_call(num_envs: int) -> int:
    """Scanned steps in one compiled call: about 65k decisions, at least 16 steps."""
    return max(16, min(4096, 65_536 // num_envs))


def random_legal_actions(key: Any, mask: Any) -> Any:
    """One legal action per row of a ``[batch, actions]`` mask, uniform among the legal ones:
    the ``r``-th legal action for ``r`` drawn below the row's count, from one random word per row."""
    import jax

    from ..core.jax_game import nth_member, scaled_draw

    words = jax.random.bits(key, mask.shape[:1])
    return jax.vmap(nth_member)(mask, scaled_draw(words, mask.sum(axis=-1)))


def rollout(env: Any, num_envs: int, length: int) -> Callable[[Any, Any], tuple[Any, Any, Any]]:
    """``(state, key) -> (state, key, games finished)``: ``length`` batched random legal steps
    with finished games dealt again (the module docstring), not yet compiled."""
    import jax

    from ..adapters.jax_env import reset_finished

    spare = max(1, num_envs // 8)

    def one_step(carry: tuple[Any, Any], _: Any) -> tuple[tuple[Any, Any], Any]:
        state, key = carry
        key, action_key, step_key, deal_key = jax.random.split(key, 4)
        actions = random_legal_actions(action_key, state.legal_action_mask)
        state = jax.vmap(env.step)(state, actions, jax.random.split(step_key, num_envs))
        finished = (state.terminated | state.truncated).sum()
        return (reset_finished(env, state, deal_key, spare), key), finished

    def run(state: Any, key: Any) -> tuple[Any, Any, Any]:
        (state, key), finished = jax.lax.scan(one_step, (state, key), None, length=length)
        return state, key, finished.sum()

    return run


def measure(env: Any, num_envs: int, seconds: float, seed: int) -> dict[str, Any]:
    """Compile the rollout at ``num_envs`` (timed), then run it for ``seconds`` (timed)."""
    import jax

    from ..adapters.jax_env import seed_key

    length = steps_per_call(num_envs)
    key = seed_key(seed)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, num_envs))
    jax.block_until_ready(state)
    start = time.perf_counter()
    with count_cache_hits() as cache:
        compiled = jax.jit(rollout(env, num_envs, length)).lower(state, key).compile()
    compile_seconds = time.perf_counter() - start
    state, key, finished = compiled(state, key)  # the first call also pays for allocations
    jax.block_until_ready(state)
    calls = games = 0
    start = time.perf_counter()
    while True:
        state, key, finished = compiled(state, key)
        jax.block_until_ready(state)
        calls += 1
        games += int(finished)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    steps = calls * length * num_envs
    return {
        "num_envs": num_envs,
        "steps": steps,
        "games": games,
        "seconds": elapsed,
        "steps_per_second": steps / elapsed,
        "compile_seconds": compile_seconds,
        "compile_cached": bool(cache.hits),  # loaded from the persistent compile cache
    }


def twin_subjects(ids: Sequence[str] | None = None) -> list[Subject]:
    """The twins of ``ids`` (default: the first variant of every game with a twin)."""
    if ids is None:
        ids = [f"{NAMESPACE}/{game.variants[0].name}" for game in all_games() if game.jax_rules]
    subjects = []
    for env_id in ids:
        full = entry(env_id if "/" in env_id else f"{NAMESPACE}/{env_id}").env_id

        def make(full: str = full) -> Any:
            try:
                from ..jax import make as make_twin
            except ImportError as error:
                raise Skipped(f"needs the jax extra: {error}") from None
            return make_twin(full)

        subjects.append(Subject(full.split("/", 1)[1], make))
    return subjects


def pgx_subjects(names: Sequence[str] = PGX_PEERS) -> list[Subject]:
    subjects = []
    for name in names:

        def make(name: str = name) -> Any:
            try:
                import pgx
            except ImportError as error:
                raise Skipped(f"needs pgx (pip install 'empire-envs[bench]'): {error}") from None
            return pgx.make(name)

        subjects.append(Subject(f"pgx/{name}", make))
    return subjects


def run_batched(
    seconds: float = 3.0,
    batch_sizes: Sequence[int] = BATCH_SIZES,
    ids: Sequence[str] | None = None,
    peers: Sequence[str] = PGX_PEERS,
    python_seconds: float | None = None,
    seed: int = 0,
    log: Log | None = print,
) -> dict[str, Any]:
    """Every subject at every batch size, then the Python envs; a JSON-ready report with
    ``results[subject][N]``, ``seats[subject]``, ``state_bytes[subject]``, ``python_env[id]``
    and ``ratios`` (the module docstring)."""
    import jax

    enable_compile_cache()
    results: dict[str, dict[str, Any]] = {}
    seats: dict[str, int] = {}
    sizes: dict[str, int] = {}
    skipped: dict[str, str] = {}
    twins = twin_subjects(ids)
    for subject in twins + pgx_subjects(peers):
        try:
            env = subject.make()
        except Skipped as reason:
            skipped[subject.name] = str(reason)
            if log:
                log(f"{subject.name:<32} SKIPPED: {reason}")
            continue
        seats[subject.name] = int(env.num_players)
        sizes[subject.name] = state_bytes_of(env)
        if log:
            log(f"{subject.name:<32} {seats[subject.name]} seat(s), state {sizes[subject.name]:,} bytes per game")
        results[subject.name] = {}
        for num_envs in batch_sizes:
            if log:
                compile_note(f"{subject.name} rollout", num_envs)  # standard error: the table stays clean
            figures = measure(env, num_envs, seconds, seed)
            results[subject.name][str(num_envs)] = figures
            if log:
                log(format_row(subject.name, figures))
    python: dict[str, dict[str, Any]] = {}
    for subject in twins:
        if subject.name not in results:
            continue
        env_id = f"{NAMESPACE}/{subject.name}"
        python[subject.name] = bench_env_masked(env_id)(python_seconds or seconds, seed)
        python[subject.name]["api"] = python_api(env_id)
        if log:
            rate = python[subject.name]["steps_per_second"]
            log(f"{subject.name + ' (Python env)':<32} N=1    {rate:>12,.0f} steps/s   (one {python_api(env_id)} env)")
    ratios = twin_ratios([subject.name for subject in twins], results, python)
    if log and ratios:
        log("ratios (steps/s):")
        for name, value in ratios.items():
            log(f"  {name:<56} {value:8.2f}x")
    report = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "jax": jax.__version__,
        "devices": [str(device) for device in jax.devices()],
        "numpy": np.__version__,
        "seconds": seconds,
        "seed": seed,
        "steps_per_call": {str(n): steps_per_call(n) for n in batch_sizes},
        "results": results,
        "seats": seats,
        "state_bytes": sizes,
        "skipped": skipped,
        "python_env": python,
        "ratios": ratios,
    }
    if log:
        log(format_table(report))
    return report


def python_api(env_id: str) -> str:
    """How the Python env column makes ``env_id``'s env (``speed.bench_env_masked``)."""
    return "gymnasium.make" if entry(env_id).api == "gymnasium" else "empire_envs.make AEC"


def twin_ratios(
    twins: Sequence[str], results: dict[str, dict[str, Any]], python: dict[str, dict[str, Any]]
) -> dict[str, float]:
    """Each twin's steps/s at ``RATIO_BATCH`` over its Python env's and over each peer of
    ``RATIO_PEERS`` measured at that batch size, and its best batch size over its Python env."""
    ratios: dict[str, float] = {}
    batch = str(RATIO_BATCH)
    for name in twins:
        own = results.get(name, {})
        if not own:
            continue
        base = python.get(name, {}).get("steps_per_second")
        if batch in own and base:
            ratios[f"{name} at N={RATIO_BATCH} / its Python env"] = own[batch]["steps_per_second"] / base
        for peer in RATIO_PEERS:
            theirs = results.get(peer, {}).get(batch)
            if theirs and batch in own:
                ratios[f"{name} / {peer} at N={RATIO_BATCH}"] = (
                    own[batch]["steps_per_second"] / theirs["steps_per_second"]
                )
        if base:
            best = max(figures["steps_per_second"] for figures in own.values())
            ratios[f"{name} best batch / its Python env"] = best / base
    return ratios


def format_table(report: dict[str, Any]) -> str:
    """A ``run_batched`` report as one Markdown table: steps/s of each subject at each batch
    size, its compile time (the range over the batch sizes; "cached" when a program came from
    the persistent cache), its seats and its state's bytes per game; then each twin's Python
    env (one env, its figure in the first column)."""
    sizes = sorted({int(n) for figures in report["results"].values() for n in figures})
    lines = [
        "| steps/s | " + " | ".join(f"N={n}" for n in sizes) + " | compile | seats | state bytes |",
        "|---|" + "---:|" * (len(sizes) + 3),
    ]
    for name, figures in report["results"].items():
        rates = [f"{figures[str(n)]['steps_per_second']:,.0f}" if str(n) in figures else "" for n in sizes]
        compiles = [row["compile_seconds"] for row in figures.values()]
        low, high = min(compiles), max(compiles)
        spent = f"{low:.1f} s" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}-{high:.1f} s"
        if any(row.get("compile_cached") for row in figures.values()):
            spent += " (cached)"
        shown = name.replace("/", " ", 1) if name.startswith("pgx/") else f"{name} (JAX twin)"
        seats, size = report["seats"].get(name, ""), report["state_bytes"].get(name)
        lines.append(
            f"| {shown} | " + " | ".join(rates) + f" | {spent} | {seats} | {'' if size is None else f'{size:,}'} |"
        )
    for name, figures in report["python_env"].items():
        cells = [f"{name}, Python env (one {figures['api']} env)", f"{figures['steps_per_second']:,.0f}"]
        cells += [""] * len(sizes)  # the other batch sizes and the compile: none
        cells += [str(report["seats"].get(name, "")), ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_row(name: str, figures: dict[str, Any]) -> str:
    return (
        f"{name:<32} N={figures['num_envs']:<5} {figures['steps_per_second']:>12,.0f} steps/s   "
        f"compile {figures['compile_seconds']:5.1f} s   ({figures['steps']:,} steps, {figures['games']:,} games)"
        + ("   compile loaded from the cache" if figures.get("compile_cached") else "")
    )


# --------------------------------------------------------------------------- profile

SCANNED, ROUNDS = 64, 5


def best_time(state: Any, body: Callable[[tuple[Any, Any]], tuple[Any, Any]]) -> float:
    """Seconds per scanned step of ``body``, the best of ``ROUNDS`` compiled runs."""
    import jax

    run = jax.jit(lambda state, key: jax.lax.scan(lambda carry, _: (body(carry), None), (state, key), None, SCANNED))
    jax.block_until_ready(run(state, jax.random.PRNGKey(1)))
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        jax.block_until_ready(run(state, jax.random.PRNGKey(1)))
        best = min(best, (time.perf_counter() - start) / SCANNED)
    return best


def profile(env_id: str, num_envs: int = 1024, finished_share: float = 1 / 17) -> dict[str, float]:
    """Seconds per batched step of each part of the harness for one twin (``bench --batched
    --profile``): the action sampler, the env's ``step`` (rules, observation and mask),
    ``reset_finished`` with ``finished_share`` of the games finished, and the deals it makes
    (``init`` of ``num_envs // 8`` games), each run ``SCANNED`` times in one compiled
    ``lax.scan``, the best of ``ROUNDS`` runs counting; then one view per game alone
    (``observe`` of a seat drawn per game, what a step spends on ``state.observation`` when the
    state is already computed), timed call by call (``best_call_time``)."""
    import jax
    import jax.numpy as jnp

    from ..adapters.jax_env import reset_finished
    from ..jax import make as make_twin

    env = make_twin(env_id)
    compile_note(f"{env.id.rsplit('/', 1)[-1]} harness parts", num_envs)  # standard error
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), num_envs))

    def sampler(carry: tuple[Any, Any]) -> tuple[Any, Any]:
        state, key = carry
        key, pick = jax.random.split(key)
        actions = random_legal_actions(pick, state.legal_action_mask)
        return state.replace(step_count=state.step_count + actions), key

    def step(carry: tuple[Any, Any]) -> tuple[Any, Any]:
        state, key = carry
        key, pick, keys = jax.random.split(key, 3)
        actions = random_legal_actions(pick, state.legal_action_mask)
        after = jax.vmap(env.step)(state, actions, jax.random.split(keys, num_envs))
        # keep the games as they were (so that none finishes), but use every output entry, lest
        # XLA skip computing the unused ones
        return state.replace(step_count=state.step_count + _checksum(after)), key

    def reset(carry: tuple[Any, Any]) -> tuple[Any, Any]:
        state, key = carry
        key, flags, deal = jax.random.split(key, 3)
        finished = jax.random.uniform(flags, (num_envs,)) < finished_share
        fresh = reset_finished(env, state.replace(terminated=finished), deal, max(1, num_envs // 8))
        return fresh.replace(terminated=state.terminated), key

    def deal(carry: tuple[Any, Any]) -> tuple[Any, Any]:
        state, key = carry
        key, deal = jax.random.split(key)
        fresh = jax.vmap(env.init)(jax.random.split(deal, max(1, num_envs // 8)))
        used = sum(
            leaf.reshape(leaf.shape[0], -1)[:, 0].astype(jnp.int32).sum() for leaf in jax.tree_util.tree_leaves(fresh)
        )
        return state.replace(step_count=state.step_count + (used > 10**9).astype(jnp.int32)), key

    parts = {"sampler": sampler, "step": step, "reset_finished": reset, "deals (init)": deal}
    seats = jax.random.randint(jax.random.PRNGKey(2), (num_envs,), 0, env.num_players)
    times = {name: best_time(state, body) for name, body in parts.items()}
    # the games of a part stay as they are, so a view, which reads nothing that changes, would
    # be computed once and hoisted out of a scan: it is timed call by call instead
    times["observe"] = best_call_time(jax.jit(jax.vmap(env.observe)), state, seats)
    return times


def best_call_time(function: Callable[..., Any], *args: Any) -> float:
    """Seconds per call of a compiled ``function``, the best of ``ROUNDS`` runs of ``SCANNED``
    calls each (the call overhead included, a few microseconds)."""
    import jax

    jax.block_until_ready(function(*args))
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(SCANNED):
            result = function(*args)
        jax.block_until_ready(result)
        best = min(best, (time.perf_counter() - start) / SCANNED)
    return best


def _checksum(batch: Any) -> Any:
    """Per game, 0 computed from every entry of every field (so that all of them are computed)."""
    import jax
    import jax.numpy as jnp

    total = sum(
        leaf.reshape(leaf.shape[0], -1).astype(jnp.float32).sum(axis=1) for leaf in jax.tree_util.tree_leaves(batch)
    )
    return (total > 10**9).astype(jnp.int32)


#: the copies of a batch's state a compiled rollout holds at once (the carry, the stepped state,
#: the newly dealt games and the select between them, with room to spare): for memory estimates
STATE_COPIES = 8


def state_bytes(env_id: str) -> int:
    """The bytes of one game's state of a twin: a step reads and writes all of them."""
    from ..jax import make as make_twin

    return state_bytes_of(make_twin(env_id))


def state_bytes_of(env: Any) -> int:
    """The bytes of one game's state of a pgx-style env (a twin or a pgx game), from the shapes
    ``init`` gives (nothing runs)."""
    import jax

    state = jax.eval_shape(env.init, jax.random.PRNGKey(0))
    return sum(int(np.prod(leaf.shape)) * np.dtype(leaf.dtype).itemsize for leaf in jax.tree_util.tree_leaves(state))
