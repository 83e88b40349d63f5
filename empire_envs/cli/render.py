"""``render``: play one seeded episode with an agent on every seat and save its pictures.

A ``.png`` gets the position after ``steps`` decisions (0: the start position; the final
position if the episode ends sooner). A ``.gif`` gets an animation of the start position and
the position after each decision, for the first ``steps`` decisions or, without ``steps``, the
whole episode; either way at most ``MAX_GIF_FRAMES`` frames. A decision is one action of one
seat; PettingZoo's dead steps are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from ..registry import EnvEntry
from .arguments import check_output_file
from .common import CliError, choose, seat_agents
from .match import Match, new_match

#: the most frames a GIF holds (the start position and 399 decisions)
MAX_GIF_FRAMES = 400
EXTENSIONS = (".png", ".gif")
BACKGROUND = (255, 255, 255)


@dataclass(frozen=True)
class RenderRequest:
    """What to render: env, deal, agent on every seat, decisions to play, output file."""

    entry: EnvEntry
    seed: int
    steps: int | None
    out: Path
    agent: str = "random"
    fps: float = 2.0


def check_output(out: Path) -> str:
    """The output's format, ``png`` or ``gif``; ``CliError`` for another extension or a
    folder that does not exist."""
    suffix = out.suffix.lower()
    if suffix not in EXTENSIONS:
        raise CliError(f"--out must end in .png or .gif, got {str(out)!r}")
    if not out.parent.is_dir():
        raise CliError(f"the folder of --out does not exist: {str(out.parent)!r}")
    check_output_file(out)
    return suffix[1:]


def check_steps(steps: int | None) -> None:
    """``CliError`` for a negative step count."""
    if steps is not None and steps < 0:
        raise CliError(f"--steps must be 0 or more, got {steps}")


def play_frames(match: Match, agent_spec: str, steps: int, keep_all: bool) -> tuple[list[np.ndarray], int]:
    """Play up to ``steps`` decisions with ``agent_spec`` on every seat.

    Returns the frames (every position from the start when ``keep_all``, else only the last)
    and the number of decisions played.
    """
    agents = seat_agents(dict.fromkeys(range(match.players), agent_spec), match)
    frames = [match.render()]
    played = 0
    while played < steps and not match.over:
        match.step(choose(agents[match.seat], match))
        played += 1
        frame = match.render()
        if keep_all:
            frames.append(frame)
        else:
            frames[0] = frame
    return frames, played


def to_images(frames: list[np.ndarray]) -> list[Image.Image]:
    """RGB images of one size: smaller frames are placed top-left on a white canvas."""
    width = max(frame.shape[1] for frame in frames)
    height = max(frame.shape[0] for frame in frames)
    images = []
    for frame in frames:
        image = Image.fromarray(np.ascontiguousarray(frame, dtype=np.uint8)).convert("RGB")
        if image.size != (width, height):
            canvas = Image.new("RGB", (width, height), BACKGROUND)
            canvas.paste(image, (0, 0))
            image = canvas
        images.append(image)
    return images


def save_png(frame: np.ndarray, out: Path) -> tuple[int, int]:
    """Write one frame as a PNG; returns its (width, height)."""
    image = to_images([frame])[0]
    image.save(out, format="PNG")
    return image.size


def save_gif(frames: list[np.ndarray], out: Path, fps: float) -> tuple[int, int]:
    """Write the frames as a looping animated GIF at ``fps`` frames per second; returns its
    (width, height)."""
    images = to_images(frames)
    duration = max(20, round(1000 / fps))
    images[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=duration,
        loop=0,
    )
    return images[0].size


def run_render(request: RenderRequest) -> str:
    """Play and save as asked; returns a one-line report of what was written."""
    check_steps(request.steps)
    kind = check_output(request.out)
    if request.fps <= 0:
        raise CliError(f"--fps must be positive, got {request.fps}")
    match = new_match(request.entry, request.seed, "rgb_array")
    try:
        if kind == "png":
            frames, played = play_frames(match, request.agent, request.steps or 0, keep_all=False)
            width, height = save_png(frames[-1], request.out)
        else:
            limit = MAX_GIF_FRAMES - 1 if request.steps is None else min(request.steps, MAX_GIF_FRAMES - 1)
            frames, played = play_frames(match, request.agent, limit, keep_all=True)
            width, height = save_gif(frames, request.out, request.fps)
        over = " (episode over)" if match.over else ""
    except OSError as error:
        raise CliError(f"cannot write {str(request.out)!r}: {error.strerror or error}") from None
    finally:
        match.close()
    return (
        f"wrote {request.out}: {len(frames)} frame(s), {width}x{height}, "
        f"{played} decision(s){over}, agent {request.agent}, seed {request.seed}"
    )
