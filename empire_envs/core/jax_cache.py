"""JAX's persistent compilation cache for what the package compiles, and the line that says a compile starts.

XLA takes seconds to a minute to compile a batched step, the compiled PPO update or the bench's
rollout, on every run: JAX keeps compiled programs only in memory. Its persistent compilation
cache writes them to a folder, so the next process on the same machine loads them in seconds.
``enable_compile_cache`` turns it on once per process, the first time the package is about to
compile something (a ``JaxVectorEnv`` is built, a compiled trainer is built, ``bench --batched``
starts); importing ``empire_envs`` or ``empire_envs.jax`` changes nothing. The folder:

1. the user's own JAX setting, kept as it is: ``jax.config.jax_compilation_cache_dir`` when set
   (``jax.config.update`` or the ``JAX_COMPILATION_CACHE_DIR`` variable read when jax is
   imported), else ``JAX_COMPILATION_CACHE_DIR`` when set later; JAX's own
   ``jax_enable_compilation_cache=False`` turns it off;
2. else ``EMPIRE_ENVS_JAX_CACHE``: a folder, or ``0`` / ``off`` / ``false`` / ``no`` / ``none``
   for no cache at all;
3. else ``$XDG_CACHE_HOME/empire_envs/jax`` (``~/.cache/empire_envs/jax`` when
   ``XDG_CACHE_HOME`` is unset or not an absolute path).

Our folder is made (owner-only, ``0o700``: JAX treats the cache as trusted code) and tried by
writing a file in it; when that fails the run warns once (``RuntimeWarning``) and goes on
without a cache. Nothing in the folder is ever deleted: JAX adds entries (keyed by the program,
the jax version, the device and the flags) and no limit is set, so ``rm -r`` the folder to
reclaim the space. JAX's other cache settings are left as they are: only programs that took at
least ``jax_persistent_cache_min_compile_time_secs`` (1 s by default) to compile are written.

``compile_note`` is the one line said when a compile starts: what is compiled, for how many
games, and where it is cached. It goes to standard error (never standard output, which belongs
to the program), unless ``EMPIRE_ENVS_QUIET`` is ``1`` / ``true`` / ``yes`` / ``on``; a caller
with its own log (the trainer) passes ``log`` and decides itself. ``count_cache_hits`` counts the
programs JAX loaded from the cache instead of compiling, so a timed compile can say it was one.

This module imports jax only inside its functions: ``empire_envs.core`` imports without jax.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from .paths import folder_write_problem

#: our setting: a folder, or one of ``OFF_VALUES`` for no cache
CACHE_VARIABLE = "EMPIRE_ENVS_JAX_CACHE"
#: JAX's own variable for its cache folder (read by jax at import)
JAX_CACHE_VARIABLE = "JAX_COMPILATION_CACHE_DIR"
#: ``1`` / ``true`` / ``yes`` / ``on``: no compile line on standard error
QUIET_VARIABLE = "EMPIRE_ENVS_QUIET"
OFF_VALUES = frozenset({"0", "off", "false", "no", "none"})
TRUE_VALUES = frozenset({"1", "true", "yes", "on"})
#: the JAX monitoring event of one program loaded from the persistent cache
CACHE_HIT_EVENT = "/jax/compilation_cache/cache_hits"


@dataclass(frozen=True)
class CacheSetting:
    """Where compiled programs are kept (``folder``; None: nowhere) and why (``source``: one of
    ``"jax config"``, ``JAX_CACHE_VARIABLE``, ``CACHE_VARIABLE``, ``"default"``, and for no
    cache ``"off"``, ``"jax disabled"`` or ``"unwritable"``); ``detail`` says it in words."""

    folder: Path | None
    source: str
    detail: str = ""

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def describe(self) -> str:
        """Half a sentence for the compile line: where the cache is, or why there is none."""
        if self.folder is None:
            return f"no compile cache: {self.detail}" if self.detail else "no compile cache"
        return f"cached in {_short(self.folder)}"


def _short(path: Path) -> str:
    """``path`` with the home folder written ``~``."""
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except (ValueError, RuntimeError):
        return str(path)


def default_folder(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/empire_envs/jax``, or ``~/.cache/empire_envs/jax`` when ``XDG_CACHE_HOME``
    is unset, empty or relative (the XDG spec says to ignore a relative one)."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "empire_envs" / "jax"


def resolve(
    environ: Mapping[str, str] | None = None, jax_folder: str | None = None, jax_enabled: bool = True
) -> CacheSetting:
    """The folder the cache should use (the order of the module docstring), from the environment
    and JAX's current ``jax_compilation_cache_dir`` / ``jax_enable_compilation_cache``; nothing is
    made or changed here."""
    environ = os.environ if environ is None else environ
    if not jax_enabled:
        return CacheSetting(None, "jax disabled", "jax_enable_compilation_cache is False")
    if jax_folder:
        return CacheSetting(Path(jax_folder), "jax config", "jax.config.jax_compilation_cache_dir")
    if environ.get(JAX_CACHE_VARIABLE):
        return CacheSetting(Path(environ[JAX_CACHE_VARIABLE]), JAX_CACHE_VARIABLE, JAX_CACHE_VARIABLE)
    value = environ.get(CACHE_VARIABLE, "").strip()
    if value.lower() in OFF_VALUES:
        return CacheSetting(None, "off", f"{CACHE_VARIABLE}={value}")
    if value:
        return CacheSetting(Path(value).expanduser(), CACHE_VARIABLE, CACHE_VARIABLE)
    return CacheSetting(default_folder(environ), "default", "the default folder")


def apply(config: Any, environ: Mapping[str, str] | None = None) -> CacheSetting:
    """Resolve the setting against ``config`` (``jax.config``, or a stand-in with the same two
    attributes and ``update``) and put it into effect: a folder of ours is made, tried, and given
    to JAX; the user's own JAX setting is left as it is. An unusable folder warns
    (``RuntimeWarning``) and gives the ``"unwritable"`` setting: no cache, the run goes on."""
    current = getattr(config, "jax_compilation_cache_dir", None)
    setting = resolve(environ, current, bool(getattr(config, "jax_enable_compilation_cache", True)))
    if setting.folder is None or setting.source == "jax config":
        return setting
    problem = _prepare(setting.folder)
    if problem:
        warnings.warn(
            f"the JAX compile cache is off for this run: {problem} (set {CACHE_VARIABLE} to another folder, or to off)",
            RuntimeWarning,
            stacklevel=3,
        )
        return CacheSetting(None, "unwritable", f"{_short(setting.folder)} cannot be written")
    config.update("jax_compilation_cache_dir", str(setting.folder))
    return setting


def _prepare(folder: Path) -> str | None:
    """Make ``folder`` (owner-only) and try writing in it: why it cannot be used, or None."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot make {folder}: {error.strerror or error}"
    return folder_write_problem(folder)


_lock = threading.Lock()
_setting: CacheSetting | None = None


def enable_compile_cache() -> CacheSetting:
    """Turn on JAX's persistent compilation cache for this process (once: later calls return
    the first call's setting). Imports jax."""
    global _setting
    with _lock:
        if _setting is None:
            import jax

            _setting = apply(jax.config)
        return _setting


def current_setting() -> CacheSetting | None:
    """The setting ``enable_compile_cache`` put into effect, or None before its first call."""
    return _setting


def is_quiet(environ: Mapping[str, str] | None = None) -> bool:
    """True when ``EMPIRE_ENVS_QUIET`` asks for no compile lines."""
    environ = os.environ if environ is None else environ
    return environ.get(QUIET_VARIABLE, "").strip().lower() in TRUE_VALUES


def compile_line(what: str, num_games: int, per_game: str = "", setting: CacheSetting | None = None) -> str:
    """``compiling the EmpireSolo-v0 step for 4,096 games (up to a minute the first time; cached
    in ~/.cache/empire_envs/jax)``; ``per_game`` follows the count (``"x 32 steps"``)."""
    setting = setting if setting is not None else enable_compile_cache()
    games = "1 game" if num_games == 1 else f"{num_games:,} games"
    if per_game:
        games += f" {per_game}"
    when = "up to a minute the first time" if setting.enabled else "up to a minute"
    return f"compiling the {what} for {games} ({when}; {setting.describe()})"


def compile_note(what: str, num_games: int, per_game: str = "", log: Callable[[str], None] | None = None) -> str:
    """Say that a compile of ``what`` for ``num_games`` games starts (``compile_line``): through
    ``log`` when given, else on standard error unless ``EMPIRE_ENVS_QUIET`` is set. Turns the
    cache on first (``enable_compile_cache``), so the line says where it is. Returns the line."""
    line = compile_line(what, num_games, per_game)
    if log is not None:
        log(line)
    elif not is_quiet():
        print(line, file=sys.stderr, flush=True)
    return line


def is_compiled(function: Any) -> bool:
    """True when the jitted ``function`` holds a compiled program in memory already (its next
    call with the same shapes compiles nothing); False when unknown."""
    size = getattr(function, "_cache_size", None)
    try:
        return bool(size()) if callable(size) else False
    except Exception:  # a private JAX method: never let it fail a run
        return False


class HitCounter:
    """How many programs JAX loaded from its persistent cache while counting (``hits``)."""

    def __init__(self) -> None:
        self.hits = 0

    def __call__(self, event: str, **kwargs: Any) -> None:
        if event == CACHE_HIT_EVENT:
            self.hits += 1


@contextmanager
def count_cache_hits() -> Iterator[HitCounter]:
    """Count the persistent cache's hits inside the ``with`` block (a JAX monitoring listener)."""
    from jax import monitoring

    counter = HitCounter()
    monitoring.register_event_listener(counter)
    try:
        yield counter
    finally:
        unregister = getattr(monitoring, "unregister_event_listener", None)
        if unregister is not None:
            unregister(counter)


__all__ = [
    "CACHE_VARIABLE",
    "QUIET_VARIABLE",
    "CacheSetting",
    "HitCounter",
    "apply",
    "compile_line",
    "compile_note",
    "count_cache_hits",
    "current_setting",
    "default_folder",
    "enable_compile_cache",
    "is_compiled",
    "is_quiet",
    "resolve",
]


_Builder = TypeVar("_Builder", bound=Callable[..., Any])


def shared_when_hashable(maxsize: int) -> Callable[[_Builder], _Builder]:
    """Decorate a builder of compiled programs so that calls with equal, hashable arguments
    share one result (the ``maxsize`` most recently used kept, ``functools.lru_cache``): JAX
    keeps a jitted function's programs per function object, so sharing the object shares the
    compiles. A call with an unhashable argument builds a result of its own."""

    def decorate(build: _Builder) -> _Builder:
        shared = functools.lru_cache(maxsize=maxsize)(build)

        @functools.wraps(build)
        def call(*args: Any) -> Any:
            try:
                hash(args)
            except TypeError:
                return build(*args)
            return shared(*args)

        return cast(_Builder, call)

    return decorate
