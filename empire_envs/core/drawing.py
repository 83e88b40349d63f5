"""What every game's image renderer shares."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=8)
def default_font(size: int):
    """Pillow's built-in font at ``size`` points (one fixed size on Pillow < 10.1); cached,
    since loading it costs more than drawing a frame."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has one fixed-size default font
        return ImageFont.load_default()
