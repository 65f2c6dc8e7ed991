"""Wing colours stay visibly apart for the wings a palace has, measured in CIEDE2000 (the CIE's
colour difference, about 1 where two colours can just be told apart side by side), and adding a
wing recolours none of the wings already there.

The thresholds: Tableau 10, a palette made for telling categories apart at a glance, has its
closest pair 18 apart; 13 wings must be at least 15 apart (as good as the palettes people are used
to, while the old name-hashed colours put two wings 8 apart: pinks and greens that read as one),
and 20 wings at least 12 apart (twelve just-noticeable steps on every pair, still half again the
old 13's)."""

from __future__ import annotations

import itertools

import pytest

from dashboard.colours import BASE, OTHER, difference, named_colours
from dashboard.network import ROOM, TUNNEL

WINGS = ["chatgpt", "claude_ai", "slack_acme", "claude_code", "codex_cli", "gemini_cli", "plain_text", "wing_kai",
         "wing_driftwood", "wing_priya", "spotter", "enrique", "traveling_sailor", "wing_orion", "aaa", "wing_mara",
         "cursor", "aider", "continue_dev", "copilot_cli"]
TABLEAU_10 = (*BASE, "#bab0ac")


def _closest(colours: list[str]) -> float:
    return min(difference(a, b) for a, b in itertools.combinations(colours, 2))


@pytest.mark.parametrize(("lab1", "lab2", "expected"), [  # Sharma, Wu & Dalal's CIEDE2000 test data
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, -1.3802, -84.2814), (50.0, 0.0, -82.7485), 1.0000),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ((90.9257, -0.5406, -0.9208), (88.6381, -0.8985, -0.7239), 1.5381),
    ((90.8027, -2.0831, 1.4410), (91.1528, -1.6435, 0.0447), 1.4441),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
])
def test_the_colour_difference_is_ciede2000(lab1, lab2, expected):
    from dashboard.colours import _ciede2000
    import numpy as np

    assert float(_ciede2000(np.array(lab1), np.array(lab2))) == pytest.approx(expected, abs=1e-4)


def test_tableau_10_sets_the_bar():
    assert 17 < _closest(list(TABLEAU_10)) < 19


@pytest.mark.parametrize(("wings", "threshold"), [(5, 15), (9, 15), (13, 15), (20, 12)])
def test_the_wings_a_palace_has_are_told_apart(wings, threshold):
    colours = named_colours(WINGS[:wings], avoid=(TUNNEL, ROOM))
    assert _closest(list(colours.values())) > threshold
    assert min(difference(c, TUNNEL) for c in colours.values()) > threshold  # none reads as a tunnel
    assert min(difference(c, OTHER) for c in colours.values()) > threshold


def test_adding_a_wing_never_recolours_the_wings_already_there():
    seen: dict[str, str] = {}
    for n in range(1, len(WINGS) + 1):
        colours = named_colours(WINGS[:n], avoid=(TUNNEL, ROOM))
        assert {wing: colours[wing] for wing in seen} == seen, n
        assert len(set(colours.values())) == n
        seen = colours
