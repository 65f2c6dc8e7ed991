"""Room for every label in the tunnel network: rooms placed one by one (tunnels first), each at its
spot or the nearest free one, so no label lies on another label, a dot or a wing box; a room that
finds no room for its label in a crowded network is drawn without it (named on hover), keeping the
first view's labels readable instead of shrinking the drawing to fit them all."""

from __future__ import annotations

import numpy as np

Box = tuple[float, float, float, float]  # half width, px above the spot, px below it, the dot's half size
_REACH, _STEP = 240, 12  # px a room may move for its label, on a grid this fine
_GRID = np.arange(-_REACH, _REACH + _STEP, _STEP, dtype=float)  # a move's dx and dy are each one of these


def _moves() -> tuple[np.ndarray, np.ndarray]:
    """Every (dx, dy) on the grid as indices into `_GRID` (x, then y), nearest first (ties: up before
    down, left before right)."""
    ix, iy = np.meshgrid(np.arange(len(_GRID)), np.arange(len(_GRID)))
    ix, iy = ix.ravel(), iy.ravel()
    order = np.lexsort((_GRID[ix], _GRID[iy], np.hypot(_GRID[ix], _GRID[iy])))
    return ix[order], iy[order]


_MOVE_X, _MOVE_Y = _moves()


def apart(spots: list[tuple[float, float]], boxes: list[Box], walls: list[tuple[float, float, float, float]],
          frame: tuple[float, float]) -> list[tuple[float, float, bool]]:
    """(x, y, labelled) per room: its spot, or the nearest within `_REACH` px where its box (dot and
    label) stays inside `frame` (half width and height round the centre) and overlaps no room placed
    before it nor a wing's box (`walls`: centre and half sizes). Without such a spot the room goes
    without its label, its dot at the nearest spot near it clear of everything, else clear of
    labels and wings (a full frame: dots may touch), else its own. Deterministic."""
    walled = np.array([(x - w, y - h, x + w, y + h) for x, y, w, h in walls], dtype=float).reshape(-1, 4)
    taken, named = walled, walled  # everything placed; the labels and wings alone
    placed: list[tuple[float, float, bool]] = []
    for (x, y), (half, up, down, dot) in zip(spots, boxes):
        window = (x - _REACH - half, y - _REACH - up, x + _REACH + half, y + _REACH + down)
        at = free_spot(x, y, (half, up, down), _near(taken, window), frame)
        labelled = at is not None
        if not labelled:
            half = up = down = dot
            at = (free_spot(x, y, (dot, dot, dot), _near(taken, window), frame)
                  or free_spot(x, y, (dot, dot, dot), _near(named, window), frame) or (x, y))
        box = (at[0] - half, at[1] - up, at[0] + half, at[1] + down)
        taken = np.vstack([taken, box])
        named = np.vstack([named, box]) if labelled else named
        placed.append((*at, labelled))
    return placed


def _near(boxes: np.ndarray, window: tuple[float, float, float, float]) -> np.ndarray:
    """The boxes (rows: left, top, right, bottom) that reach into `window`."""
    return boxes[(boxes[:, 0] < window[2]) & (boxes[:, 2] > window[0]) & (boxes[:, 1] < window[3])
                 & (boxes[:, 3] > window[1])]


def free_spot(x: float, y: float, size: tuple[float, float, float], taken: np.ndarray,
              frame: tuple[float, float]) -> tuple[float, float] | None:
    """The nearest spot to (x, y), within `_REACH` px on the `_GRID`, where a box of `size` (half
    width, px above, px below) is inside `frame` and overlaps none of `taken` (rows: left, top,
    right, bottom), or None. A box overlaps where it does across and down at once: the two tests
    are made per grid column and row, and a product of the two says which spots meet any box."""
    half, up, down = size
    cx, cy = x + _GRID, y + _GRID
    across = (cx[:, None] - half < taken[None, :, 2]) & (taken[None, :, 0] < cx[:, None] + half)
    downward = (cy[:, None] - up < taken[None, :, 3]) & (taken[None, :, 1] < cy[:, None] + down)
    hit = (downward.astype(np.float32) @ across.T.astype(np.float32)) > 0  # [row, column]: some box is met
    hit |= ((cy - up < -frame[1]) | (cy + down > frame[1]))[:, None] | (np.abs(cx) + half > frame[0])[None, :]
    blocked = hit[_MOVE_Y, _MOVE_X]
    if blocked.all():
        return None
    nearest = int(np.argmin(blocked))
    return round(float(cx[_MOVE_X[nearest]]), 1), round(float(cy[_MOVE_Y[nearest]]), 1)
