"""The window of ``render_mode="human"``: the ``rgb_array`` picture shown in a pygame window.

Both adapters draw nothing of their own: in ``"human"`` mode they hand ``game.to_rgb(state)``,
the very frame ``"rgb_array"`` returns, to a ``HumanView``, as Gymnasium's classic-control envs
and PettingZoo's classic games do with their pygame windows. The window opens at the first frame
(``reset``), is paced by the env's ``metadata["render_fps"]`` with a ``pygame.time.Clock`` and
closes with ``close()`` (``pygame.display.quit``), which may be called any number of times.

pygame is imported only here and only when a ``HumanView`` is made, so an env in any other render
mode never imports it; when it is missing, making the view raises Gymnasium's
``DependencyNotInstalled`` naming the extra to install (``INSTALL_HINT``). Headless machines
(tests, CI) use SDL's dummy video driver (``SDL_VIDEODRIVER=dummy``): the window then exists only
in memory, and as nobody watches it the frames are not paced.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium.error import DependencyNotInstalled

#: what to run when pygame is missing
INSTALL_HINT = "pip install 'empire-envs[human]'"

#: pygame has one display per process: the view that opened it last (None: nobody's)
_owner: HumanView | None = None


def import_pygame() -> ModuleType:
    """pygame, without its banner; ``DependencyNotInstalled`` naming ``INSTALL_HINT`` if missing."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as error:
        raise DependencyNotInstalled(
            f'render_mode="human" shows the game in a pygame window and pygame is not installed: '
            f"run `{INSTALL_HINT}` (or use render_mode='rgb_array' or 'ansi')"
        ) from error
    return pygame


class HumanView:
    """A pygame window showing ``uint8`` RGB frames (``height x width x 3``) at most ``fps`` a second.

    ``show(frame)`` opens the window at the frame's size the first time (and resizes it when the
    size changes), draws the frame and waits for the clock; ``close()`` closes the window. A
    pickled view comes back closed: its copy opens its own window at its first frame.
    """

    def __init__(self, title: str, fps: float) -> None:
        self.pygame = import_pygame()  # fails at make time, not at the first frame
        self.title = title
        self.fps = fps
        self.screen: Any = None
        self.clock: Any = None

    @property
    def is_open(self) -> bool:
        """True while the display shows this view's frames."""
        return self.screen is not None and _owner is self and self.pygame.display.get_init()

    def show(self, frame: np.ndarray) -> None:
        global _owner
        pygame = self.pygame
        frame = np.ascontiguousarray(frame, dtype=np.uint8)
        height, width = frame.shape[:2]
        # the display may have been closed, or taken over by another env's view: then open it again
        if _owner is not self or not pygame.display.get_init():
            self.screen = None
        if self.screen is None or self.screen.get_size() != (width, height):
            if not pygame.display.get_init():
                pygame.display.init()
            pygame.display.set_caption(self.title)
            self.screen = pygame.display.set_mode((width, height))
            self.clock = self.clock or pygame.time.Clock()
            _owner = self
        self.screen.blit(pygame.image.frombuffer(frame.tobytes(), (width, height), "RGB"), (0, 0))
        pygame.event.pump()  # keeps the window responsive to the window manager
        pygame.display.flip()
        if pygame.display.get_driver() != "dummy":
            self.clock.tick(self.fps)

    def close(self) -> None:
        """Close the window; nothing happens when it is not open, or no longer this view's."""
        global _owner
        if self.screen is not None:
            if _owner is self:
                self.pygame.display.quit()
                _owner = None
            self.screen = None

    def __getstate__(self) -> dict[str, Any]:
        return {"title": self.title, "fps": self.fps}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["title"], state["fps"])  # type: ignore[misc]
