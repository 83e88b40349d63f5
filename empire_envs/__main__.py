"""``python -m empire_envs``: the command-line tools (see ``empire_envs.cli``)."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
