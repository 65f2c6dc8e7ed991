"""Where `../shared` (test data kept out of the repo) is: beside the checkout, else /work/shared."""

from pathlib import Path

_CANDIDATES = (Path(__file__).resolve().parents[2] / "shared", Path("/work/shared"))
SHARED = next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])
TRANSCRIPTS = SHARED / "data" / "transcripts"


def sample(relative: str) -> Path:
    """A shared sample transcript, or a skip that says it is absent."""
    import pytest

    path = TRANSCRIPTS / relative
    if not path.exists():
        pytest.skip(f"shared sample {path} is absent (see ../shared/README.md)")
    return path
