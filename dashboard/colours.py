"""Colours for charts and the network: as many distinct series colours as asked for, grey for the rest,
and a text colour that stays readable on each. Deterministic, so a series keeps its colour between runs."""

from __future__ import annotations

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
AVOID_DIFFERENCE = 10  # a BASE colour this near (CIEDE2000) to one to avoid is left out


def named_colours(names: Iterable[str], avoid: tuple[str, ...] = ()) -> dict[str, str]:
    """A colour for each of `names`, given oldest first: the k-th name takes the k-th of `distinct`,
    each picked as far from those before it as the palette allows. So the wings a palace has are as far
    apart as they can be, and a colour depends only on how many names came before it, never on later
    ones: a wing added to the palace recolours no other, and no two wings share a colour."""
    ordered = list(dict.fromkeys(names))
    return dict(zip(ordered, distinct(len(ordered), avoid)))


def distinct(n: int, avoid: tuple[str, ...] = ()) -> list[str]:
    """`n` colours, each as different (CIEDE2000) from those before it, from grey, from white
    and from the `avoid` colours (ones that already mean something, like the network's tunnel orange)
    as the candidates allow: BASE first (but those near `avoid`), then farthest-point picks. The first
    k are the same for any n ≥ k."""
    base = tuple(c for c in BASE if all(difference(c, a) > AVOID_DIFFERENCE for a in avoid))
    if n <= len(base):
        return list(base[:max(n, 0)])
    return list(_palette(-(-n // _BLOCK) * _BLOCK, base, avoid)[:n])  # in blocks, so most callers share one



@lru_cache(maxsize=4)
def _palette(n: int, base: tuple[str, ...], avoid: tuple[str, ...]) -> tuple[str, ...]:
    candidates = _candidates()
    labs = _cielab(np.array([_rgb(c) for c in candidates]))
    taken = _cielab(np.array([_rgb(c) for c in (*base, *avoid, OTHER, WHITE)]))
    nearest = np.min(_ciede2000(labs[:, None, :], taken[None, :, :]), axis=1)
    chosen = list(base)
    while len(chosen) < n:
        pick = int(np.argmax(nearest))  # ties go to the first, so the result never varies
        chosen.append(candidates[pick])
        nearest = np.minimum(nearest, _ciede2000(labs, labs[pick]))
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


def difference(a: str, b: str) -> float:
    """How different two colours look, CIEDE2000: about 1 is just noticeable side by side; Tableau 10,
    a palette made for telling categories apart, has its closest pair 18 apart."""
    return float(_ciede2000(*_cielab(np.array([_rgb(a), _rgb(b)]))))


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


def _cielab(rgb: np.ndarray) -> np.ndarray:
    """sRGB rows (0–1) to CIELAB (D65 white)."""
    xyz = _linear(rgb) @ np.array([[0.4124564, 0.2126729, 0.0193339],
                                   [0.3575761, 0.7151522, 0.1191920],
                                   [0.1804375, 0.0721750, 0.9503041]]) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def _ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """CIEDE2000 differences between CIELAB rows of `lab1` and `lab2` (broadcast), the CIE's formula."""
    (l1, a1, b1), (l2, a2, b2) = np.moveaxis(lab1, -1, 0), np.moveaxis(lab2, -1, 0)
    mean_chroma = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(mean_chroma ** 7 / (mean_chroma ** 7 + 25.0 ** 7)))
    c1, c2 = np.hypot((1 + g) * a1, b1), np.hypot((1 + g) * a2, b2)
    h1, h2 = np.degrees(np.arctan2(b1, (1 + g) * a1)) % 360, np.degrees(np.arctan2(b2, (1 + g) * a2)) % 360
    grey = c1 * c2 == 0
    dh = (h2 - h1 + 180) % 360 - 180
    dh = np.where(grey, 0, np.where(h2 - h1 == 180, 180, dh))
    big_h = 2 * np.sqrt(c1 * c2) * np.sin(np.radians(dh / 2))
    mean_h = np.where(grey, h1 + h2, np.where(np.abs(h1 - h2) <= 180, (h1 + h2) / 2, (h1 + h2 + 360) / 2 % 360))
    mean_l, mean_c = (l1 + l2) / 2, (c1 + c2) / 2
    t = (1 - 0.17 * np.cos(np.radians(mean_h - 30)) + 0.24 * np.cos(np.radians(2 * mean_h))
         + 0.32 * np.cos(np.radians(3 * mean_h + 6)) - 0.20 * np.cos(np.radians(4 * mean_h - 63)))
    rotation = -np.sin(np.radians(60 * np.exp(-(((mean_h - 275) / 25) ** 2)))) * 2 * np.sqrt(
        mean_c ** 7 / (mean_c ** 7 + 25.0 ** 7))
    sl = 1 + 0.015 * (mean_l - 50) ** 2 / np.sqrt(20 + (mean_l - 50) ** 2)
    sc, sh = 1 + 0.045 * mean_c, 1 + 0.015 * mean_c * t
    dl, dc, dhh = (l2 - l1) / sl, (c2 - c1) / sc, big_h / sh
    return np.sqrt(dl ** 2 + dc ** 2 + dhh ** 2 + rotation * dc * dhh)


def _srgb(lab: np.ndarray) -> np.ndarray:
    """Oklab rows to gamma-encoded sRGB (values outside 0–1 are out of gamut)."""
    lms = (lab @ np.array([[1.0, 1.0, 1.0], [0.3963377774, -0.1055613458, -0.0894841775],
                           [0.2158037573, -0.0638541728, -1.2914855480]])) ** 3
    linear = lms @ np.array([[4.0767416621, -1.2684380046, -0.0041960863],
                             [-3.3077115913, 2.6097574011, -0.7034186147],
                             [0.2309699292, -0.3413193965, 1.7076147010]])
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.abs(linear) ** (1 / 2.4) - 0.055)
