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


@lru_cache(maxsize=4096)
def text_label(text: str, size: int, fill: tuple[int, int, int]):
    """``text`` drawn once on a transparent RGBA strip, with its left and top offsets and its
    advance, for pasting with a left-middle anchor: rendering glyphs is most of a frame's cost,
    and the same labels come back frame after frame."""
    from PIL import Image, ImageDraw

    font = default_font(size)
    left, top, right, bottom = font.getbbox(text, anchor="lm")
    left = min(left, 0)
    image = Image.new("RGBA", (max(right - left, 1), max(bottom - top, 1)), (0, 0, 0, 0))
    ImageDraw.Draw(image).text((-left, -top), text, fill=fill, font=font, anchor="lm")
    return image, left, top, int(font.getlength(text))
