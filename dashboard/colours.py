"""Colours for charts and the network: as many distinct series colours as asked for, grey for the rest,
and a text colour that stays readable on each. Deterministic, so a series keeps its colour between runs."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

# Tableau 10 without its grey: a well-tried start. Grey is kept for "other rooms" and the like.
BASE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")
OTHER = "#b0b0b0"
WHITE, DARK = "#ffffff", "#000000"
# Candidates for colours beyond BASE: mid lightness and moderate chroma in Oklab (no pastels, no neons).
_LIGHTNESS = (0.50, 0.58, 0.66, 0.74, 0.82)
_CHROMA = (0.09, 0.13, 0.17)
_BLOCK = 64
AVOID_DISTANCE = 0.1  # a BASE colour this near (Oklab) to one to avoid is left out


NAMED_SLOTS = 40  # the most colours that stay 4 just-noticeable differences apart (0.08 in Oklab) and 5 from the tunnel orange


def named_colours(names: Iterable[str], avoid: tuple[str, ...] = ()) -> dict[str, str]:
    """A colour for each of `names`, given oldest first: each takes the slot a hash of its name picks in a
    fixed palette of NAMED_SLOTS, or the next free one when an older name holds it. So a colour depends
    on the name and the names before it, never on later ones: a wing added to the palace recolours no
    other, and two wings on one page never share a colour (up to NAMED_SLOTS of them)."""
    palette = distinct(NAMED_SLOTS, avoid)
    colours: dict[str, str] = {}
    taken: set[int] = set()
    for name in dict.fromkeys(names):
        slot = _slot(name)
        free = next(((slot + step) % NAMED_SLOTS for step in range(NAMED_SLOTS)
                     if (slot + step) % NAMED_SLOTS not in taken), slot)  # more names than slots: they share
        taken.add(free)
        colours[name] = palette[free]
    return colours


def _slot(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big") % NAMED_SLOTS


def distinct(n: int, avoid: tuple[str, ...] = ()) -> list[str]:
    """`n` colours, each as far (in Oklab, a perceptual space) from the others, from grey, from white
    and from the `avoid` colours (ones that already mean something, like the network's tunnel orange)
    as the candidates allow: BASE first (but those near `avoid`), then farthest-point picks. The first
    k are the same for any n ≥ k."""
    base = tuple(c for c in BASE if all(distance(c, a) > AVOID_DISTANCE for a in avoid))
    if n <= len(base):
        return list(base[:max(n, 0)])
    return list(_palette(-(-n // _BLOCK) * _BLOCK, base, avoid)[:n])  # in blocks, so most callers share one



@lru_cache(maxsize=4)
def _palette(n: int, base: tuple[str, ...], avoid: tuple[str, ...]) -> tuple[str, ...]:
    candidates = _candidates()
    labs = _oklab(np.array([_rgb(c) for c in candidates]))
    taken = _oklab(np.array([_rgb(c) for c in (*base, *avoid, OTHER, WHITE)]))
    nearest = np.min(np.linalg.norm(labs[:, None, :] - taken[None, :, :], axis=2), axis=1)
    chosen = list(base)
    while len(chosen) < n:
        pick = int(np.argmax(nearest))  # ties go to the first, so the result never varies
        chosen.append(candidates[pick])
        nearest = np.minimum(nearest, np.linalg.norm(labs - labs[pick], axis=1))
    return tuple(chosen)


@lru_cache(maxsize=1)
def _candidates() -> tuple[str, ...]:
    """In-gamut sRGB colours on an Oklch grid (lightness × chroma × hue every 6°)."""
    hue = np.radians(np.arange(0, 360, 6))
    grid = np.array([(light, chroma * np.cos(h), chroma * np.sin(h))
                     for light in _LIGHTNESS for chroma in _CHROMA for h in hue])
    rgb = _srgb(grid)
    inside = np.all((rgb >= 0) & (rgb <= 1), axis=1)
    return tuple(dict.fromkeys("#" + "".join(f"{round(v * 255):02x}" for v in row) for row in rgb[inside]))


def distance(a: str, b: str) -> float:
    """How far apart two colours look: their distance in Oklab (about 0.02 is just noticeable)."""
    lab = _oklab(np.array([_rgb(a), _rgb(b)]))
    return float(np.linalg.norm(lab[0] - lab[1]))


def text_on(colour: str) -> str:
    """White or black, whichever contrasts more with `colour` (WCAG contrast ratio, so at least 4.5:1)."""
    return WHITE if contrast(colour, WHITE) >= contrast(colour, DARK) else DARK


def contrast(a: str, b: str) -> float:
    """The WCAG 2 contrast ratio of two colours, 1 to 21."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _luminance(colour: str) -> float:
    r, g, b = _linear(np.array(_rgb(colour)))
    return float(0.2126 * r + 0.7152 * g + 0.0722 * b)


def _rgb(colour: str) -> tuple[float, float, float]:
    return tuple(int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]


def _linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _oklab(rgb: np.ndarray) -> np.ndarray:
    """sRGB rows (0–1) to Oklab (Björn Ottosson's matrices)."""
    lms = _linear(rgb) @ np.array([[0.4122214708, 0.2119034982, 0.0883024619],
                                   [0.5363329963, 0.6806995451, 0.2817188376],
                                   [0.0514459929, 0.1073969566, 0.6299787005]])
    return np.cbrt(lms) @ np.array([[0.2104542553, 1.9779984951, 0.0259040371],
                                    [0.7936177850, -2.4285922050, 0.7827717662],
                                    [-0.0040720468, 0.4505937099, -0.8086757660]])


def _srgb(lab: np.ndarray) -> np.ndarray:
    """Oklab rows to gamma-encoded sRGB (values outside 0–1 are out of gamut)."""
    lms = (lab @ np.array([[1.0, 1.0, 1.0], [0.3963377774, -0.1055613458, -0.0894841775],
                           [0.2158037573, -0.0638541728, -1.2914855480]])) ** 3
    linear = lms @ np.array([[4.0767416621, -1.2684380046, -0.0041960863],
                             [-3.3077115913, 2.6097574011, -0.7034186147],
                             [0.2309699292, -0.3413193965, 1.7076147010]])
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.abs(linear) ** (1 / 2.4) - 0.055)
