"""Compile once, and say so (issue 25, item 1; item 2's import message).

- The cache folder resolves as documented (``empire_envs.core.jax_cache``): the user's own JAX
  setting is kept, else ``EMPIRE_ENVS_JAX_CACHE`` (a folder, or ``off``), else
  ``$XDG_CACHE_HOME/empire_envs/jax`` / ``~/.cache/empire_envs/jax``; an unusable folder warns
  once and the run goes on without a cache.
- The vector env says in one line on standard error, once per compiled function and env, that it
  compiles, naming the id and the batch size; ``EMPIRE_ENVS_QUIET=1`` silences it.
- Two real processes: the first writes the compiled reset and step into the cache folder, the
  second loads them from it (JAX's cache-hit events) and writes no new entry. No timing.
- ``import empire_envs.jax`` without jax names the extra to install; importing the package (or
  ``core.jax_cache``) neither needs jax nor turns the cache on.

In this process nothing changes JAX's global cache setting: the tests that build an env first
pin the module's setting to "off" unless another test of the session already turned it on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from empire_envs.core import jax_cache
from empire_envs.core.jax_cache import CacheSetting, apply, compile_line, default_folder, is_quiet, resolve

ROOT = Path(__file__).resolve().parents[1]
HOME = Path.home()


class FakeConfig:
    """The two ``jax.config`` values ``apply`` reads, and ``update``, recorded."""

    def __init__(self, folder: str | None = None, enabled: bool = True) -> None:
        self.jax_compilation_cache_dir = folder
        self.jax_enable_compilation_cache = enabled
        self.updates: list[tuple[str, Any]] = []

    def update(self, name: str, value: Any) -> None:
        self.updates.append((name, value))
        setattr(self, name, value)


# --------------------------------------------------------------------------- where the cache is


def test_the_default_folder_is_the_users_cache_folder():
    assert default_folder({}) == HOME / ".cache" / "empire_envs" / "jax"
    assert default_folder({"XDG_CACHE_HOME": "/var/cache/me"}) == Path("/var/cache/me/empire_envs/jax")
    # the XDG spec: an empty or relative XDG_CACHE_HOME is ignored
    assert default_folder({"XDG_CACHE_HOME": ""}) == HOME / ".cache" / "empire_envs" / "jax"
    assert default_folder({"XDG_CACHE_HOME": "relative/cache"}) == HOME / ".cache" / "empire_envs" / "jax"
    setting = resolve({})
    assert setting == CacheSetting(HOME / ".cache" / "empire_envs" / "jax", "default", "the default folder")
    assert setting.enabled and setting.describe() == "cached in ~/.cache/empire_envs/jax"


def test_the_variable_moves_the_cache_or_turns_it_off():
    assert resolve({"EMPIRE_ENVS_JAX_CACHE": "/scratch/jax"}).folder == Path("/scratch/jax")
    assert resolve({"EMPIRE_ENVS_JAX_CACHE": "~/jaxcache"}).folder == HOME / "jaxcache"
    assert resolve({"EMPIRE_ENVS_JAX_CACHE": ""}).source == "default"  # empty: as if unset
    for value in ("0", "off", "OFF", "false", "no", "none", " off "):
        setting = resolve({"EMPIRE_ENVS_JAX_CACHE": value, "XDG_CACHE_HOME": "/x"})
        assert setting.folder is None and setting.source == "off", value
        assert not setting.enabled and "EMPIRE_ENVS_JAX_CACHE=" in setting.describe()


def test_the_users_own_jax_setting_is_kept():
    ours = {"EMPIRE_ENVS_JAX_CACHE": "/ours"}
    assert resolve(ours, jax_folder="/theirs") == CacheSetting(
        Path("/theirs"), "jax config", "jax.config.jax_compilation_cache_dir"
    )
    assert resolve({**ours, "JAX_COMPILATION_CACHE_DIR": "/theirs"}).folder == Path("/theirs")
    assert resolve(ours, jax_enabled=False).folder is None  # jax_enable_compilation_cache=False
    assert resolve({"EMPIRE_ENVS_JAX_CACHE": "off"}, jax_folder="/theirs").folder == Path("/theirs")

    config = FakeConfig(folder="/theirs")
    assert apply(config, ours).folder == Path("/theirs")
    assert config.updates == []  # not touched
    config = FakeConfig(enabled=False)
    assert apply(config, {}).folder is None and config.updates == []


def test_apply_makes_our_folder_owner_only_and_gives_it_to_jax(tmp_path):
    folder = tmp_path / "cache" / "jax"
    config = FakeConfig()
    setting = apply(config, {"EMPIRE_ENVS_JAX_CACHE": str(folder)})
    assert setting == CacheSetting(folder, "EMPIRE_ENVS_JAX_CACHE", "EMPIRE_ENVS_JAX_CACHE")
    assert config.updates == [("jax_compilation_cache_dir", str(folder))]
    assert folder.is_dir() and (folder.stat().st_mode & 0o777) == 0o700
    assert list(folder.iterdir()) == []  # the write check leaves nothing behind

    config = FakeConfig()
    assert apply(config, {"EMPIRE_ENVS_JAX_CACHE": "off"}).folder is None and config.updates == []


def test_an_unusable_folder_warns_and_the_run_goes_on_without_a_cache(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    config = FakeConfig()
    with pytest.warns(RuntimeWarning, match="compile cache is off for this run.*EMPIRE_ENVS_JAX_CACHE"):
        setting = apply(config, {"EMPIRE_ENVS_JAX_CACHE": str(blocker / "cache")})
    assert setting.folder is None and setting.source == "unwritable"
    assert config.updates == []  # JAX keeps no cache folder: nothing fails later
    assert blocker.read_text() == "not a folder"
    line = compile_line("EmpireSolo-v0 step", 8, setting=setting)
    assert "no compile cache" in line and "cannot be written" in line


def test_the_cache_is_turned_on_once_per_process(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(jax_cache, "_setting", None)
    monkeypatch.setattr(jax_cache, "apply", lambda config: calls.append(1) or CacheSetting(None, "off"))
    pytest.importorskip("jax")
    first = jax_cache.enable_compile_cache()
    assert jax_cache.enable_compile_cache() is first and calls == [1]


# --------------------------------------------------------------------------- the compile line


def test_the_compile_line_names_what_how_many_and_where():
    cached = CacheSetting(HOME / ".cache" / "empire_envs" / "jax", "default")
    assert compile_line("EmpireSolo-v0 step", 4096, setting=cached) == (
        "compiling the EmpireSolo-v0 step for 4,096 games (up to a minute the first time; "
        "cached in ~/.cache/empire_envs/jax)"
    )
    line = compile_line("EmpireSolo-v0 PPO update", 1024, "x 32 steps", setting=CacheSetting(None, "off", "X=off"))
    assert (
        line
        == "compiling the EmpireSolo-v0 PPO update for 1,024 games x 32 steps (up to a minute; no compile cache: X=off)"
    )
    assert "for 1 game " in compile_line("EmpireSolo-v0 reset", 1, setting=cached)
    assert is_quiet({"EMPIRE_ENVS_QUIET": "1"}) and is_quiet({"EMPIRE_ENVS_QUIET": "True"})
    assert not is_quiet({}) and not is_quiet({"EMPIRE_ENVS_QUIET": "0"})


@pytest.fixture
def no_global_cache_change(monkeypatch):
    """Build envs in this process without pointing JAX's cache anywhere new (module docstring)."""
    if jax_cache.current_setting() is None:
        monkeypatch.setattr(jax_cache, "_setting", CacheSetting(None, "off", "pinned off by the test"))


def test_the_vector_env_says_once_per_compiled_function_and_size(no_global_cache_change, capsys, monkeypatch):
    pytest.importorskip("jax")
    import empire_envs.jax as empire_jax

    monkeypatch.delenv("EMPIRE_ENVS_QUIET", raising=False)
    # a step limit no other test uses: programs this process has not compiled yet
    envs = empire_jax.make_vec("EmpireSolo-v0", 2, max_episode_steps=UNUSED_STEP_LIMIT)
    envs.reset(seed=0)
    envs.reset(seed=1)
    captured = capsys.readouterr()
    assert captured.out == ""  # standard output belongs to the program
    lines = captured.err.splitlines()
    assert [line for line in lines if line.startswith("compiling the ")] == [
        compile_line("EmpireSolo-v0 reset", 2, setting=jax_cache.current_setting())
    ]
    assert "compiling the EmpireSolo-v0 reset for 2 games (" in lines[0]

    # another env of the same id, config and size shares the compiled programs: nothing to say
    again = empire_jax.make_vec("EmpireSolo-v0", 2, max_episode_steps=UNUSED_STEP_LIMIT)
    assert again._init_batch is envs._init_batch and again._step_batch is envs._step_batch
    again.reset(seed=0)
    assert "compiling" not in capsys.readouterr().err

    bigger = empire_jax.make_vec("EmpireSolo-v0", 3, max_episode_steps=UNUSED_STEP_LIMIT)
    bigger.reset(seed=0)  # a new size: a new compile, a new line
    assert "compiling the EmpireSolo-v0 reset for 3 games (" in capsys.readouterr().err

    monkeypatch.setenv("EMPIRE_ENVS_QUIET", "1")
    empire_jax.make_vec("EmpireSolo-v0", 4, max_episode_steps=UNUSED_STEP_LIMIT).reset(seed=0)
    assert "compiling" not in capsys.readouterr().err


def test_envs_of_another_config_compile_programs_of_their_own(no_global_cache_change):
    pytest.importorskip("jax")
    import empire_envs.jax as empire_jax

    first = empire_jax.make_vec("EmpireSolo-v0", 2, max_episode_steps=UNUSED_STEP_LIMIT)
    for other in (
        empire_jax.make_vec("EmpireSolo-v0", 2, max_episode_steps=UNUSED_STEP_LIMIT + 1),
        empire_jax.make_vec("EmpireSolo-v0", 2, max_episode_steps=UNUSED_STEP_LIMIT, illegal_action_penalty=-2.0),
        empire_jax.make_vec("EmpireSolo-v0", 2, max_episode_steps=UNUSED_STEP_LIMIT, spare_resets=2),
        empire_jax.make_vec("EmpireSolo-v0", 2, max_episode_steps=UNUSED_STEP_LIMIT, shaping=0.5),
        empire_jax.make_vec("EmpireSoloShaped-v0", 2, max_episode_steps=UNUSED_STEP_LIMIT),
    ):
        assert other._step_batch is not first._step_batch
    # what the compiled step does not hold is no reason for programs of its own
    shared = empire_jax.make_vec("EmpireSolo-v0", 2, max_episode_steps=UNUSED_STEP_LIMIT, illegal_action="penalize")
    assert shared._step_batch is first._step_batch


#: a step limit that only this module's envs use
UNUSED_STEP_LIMIT = 7_919


# --------------------------------------------------------------------------- two real processes

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from empire_envs.core.jax_cache import count_cache_hits
    import empire_envs.jax as empire_jax

    envs = empire_jax.make_vec("EmpireSolo-v0", 2)
    with count_cache_hits() as cache:
        obs, info = envs.reset(seed=0)
        envs.step(info["action_mask"].argmax(axis=1))
        envs.step(envs.action_masks().argmax(axis=1))
    print(json.dumps({"hits": cache.hits}))
    """
)


def _run(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )


def _entries(folder: Path) -> set[str]:
    return {path.name for path in folder.iterdir() if path.name.endswith("-cache")}


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    pytest.importorskip("jax")
    folder = tmp_path / "jax-cache"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("JAX_", "EMPIRE_ENVS_"))}
    env["EMPIRE_ENVS_JAX_CACHE"] = str(folder)
    env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"  # write every program, however quick to compile

    first = _run(SCRIPT, env)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout.splitlines()[-1]) == {"hits": 0}
    written = _entries(folder)
    assert any(name.startswith("jit_init-") for name in written), written  # the batched reset
    assert any(name.startswith("jit__step_batch-") for name in written), written  # the batched step
    compiling = [line for line in first.stderr.splitlines() if line.startswith("compiling the ")]
    assert compiling == [
        compile_line(f"EmpireSolo-v0 {function}", 2, setting=CacheSetting(folder, "EMPIRE_ENVS_JAX_CACHE"))
        for function in ("reset", "step")
    ]
    assert f"cached in {folder})" in compiling[0] or str(folder).startswith(str(HOME))

    second = _run(SCRIPT, env)
    assert second.returncode == 0, second.stderr
    hits = json.loads(second.stdout.splitlines()[-1])["hits"]
    assert hits >= 2  # at least the reset and the step came from the folder
    assert _entries(folder) == written  # nothing compiled anew, nothing written anew


def test_importing_the_package_leaves_jax_alone(tmp_path):
    pytest.importorskip("jax")
    env = {key: value for key, value in os.environ.items() if not key.startswith("JAX_")}
    env["EMPIRE_ENVS_JAX_CACHE"] = str(tmp_path / "never")
    script = "import empire_envs, empire_envs.jax, jax; print(jax.config.jax_compilation_cache_dir)"
    done = _run(script, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None" and not (tmp_path / "never").exists()


def test_import_without_jax_names_the_extra():
    script = textwrap.dedent(
        """
        import sys
        sys.modules["jax"] = None  # jax is not installed
        import empire_envs, empire_envs.core.jax_cache  # neither needs jax
        try:
            import empire_envs.jax
        except ModuleNotFoundError as error:
            print(type(error).__name__, "|", error)
        else:
            print("imported")
        """
    )
    done = _run(script, dict(os.environ))
    assert done.returncode == 0, done.stderr
    kind, _, message = done.stdout.strip().partition(" | ")
    assert kind == "MissingExtraError"  # a ModuleNotFoundError, as before, now with its remedy
    assert message == "empire_envs.jax needs the jax extra (jax not installed): pip install 'empire-envs[jax]'"


def test_shared_when_hashable_shares_equal_calls_and_builds_anew_for_unhashable_ones():
    built = []

    @jax_cache.shared_when_hashable(maxsize=2)
    def build(*args):
        built.append(args)
        return object()

    assert build(1, "a") is build(1, "a") and len(built) == 1
    assert build(2, "a") is not build(1, "a")
    unhashable = [1]
    assert build(unhashable) is not build(unhashable) and built[-2:] == [([1],), ([1],)]
