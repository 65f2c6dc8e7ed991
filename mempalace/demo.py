"""A demo palace a new user can load in one step: one story told across three wings.

Kai, a backend engineer (`wing_kai`), the Driftwood team (`wing_driftwood`) and Priya, an engineering
lead (`wing_priya`) each talk about moving Driftwood's login from session cookies to OIDC with PKCE, so
the room `auth-migration` is a tunnel through all three wings; `gpu-pricing` and `deploy-pipeline` link
two wings each, and `onboarding` and `team-offsite` stay in one. The conversations are synthetic,
written for MemPalace, and live in `demo_conversations.txt` as plain-text transcripts.

Loading files every conversation through `ingest` with its wing and room given (halls are chosen by
ingest), so it is idempotent: loading the demo again adds nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .errors import MempalaceError
from .ingest import IngestReport, ingest
from .palace import Palace

DEMO_WINGS = ("wing_kai", "wing_driftwood", "wing_priya")
DATA_FILE = "demo_conversations.txt"
_HEADER = re.compile(r"^=== (?P<filename>[\w.-]+\.txt) \| (?P<wing>wing_\w+) \| (?P<room>[a-z0-9-]+) ===$",
                     re.MULTILINE)


@dataclass(frozen=True)
class DemoConversation:
    """One demo transcript and the place it is filed in."""

    filename: str
    wing: str
    room: str
    text: str


@cache
def demo_conversations() -> tuple[DemoConversation, ...]:
    """The demo transcripts, in story order."""
    try:
        raw = resources.files(__package__).joinpath(DATA_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MempalaceError(f"The demo conversations could not be read ({exc}); reinstall MemPalace.") from None
    headers = list(_HEADER.finditer(raw))
    ends = [h.start() for h in headers[1:]] + [len(raw)]
    found = tuple(DemoConversation(h["filename"], h["wing"], h["room"], raw[h.end() : end].strip() + "\n")
                  for h, end in zip(headers, ends))
    if not found or any(c.wing not in DEMO_WINGS or c.text == "\n" for c in found):
        raise MempalaceError(f"The demo conversations file {DATA_FILE} is damaged; reinstall MemPalace.")
    return found


def load_demo(palace: Palace, progress: Callable[[int, int], None] | None = None) -> list[IngestReport]:
    """File the demo conversations into `palace`, one report each; `progress(done, total)` after each.

    Like `ingest`, a conversation that cannot be filed is reported in its report's `errors`, not raised;
    what is already stored is left alone, so loading twice adds nothing the second time.
    """
    conversations = demo_conversations()
    reports = []
    for done, conversation in enumerate(conversations, start=1):
        reports.append(ingest(palace, conversation.text.encode("utf-8"), filename=conversation.filename,
                              wing=conversation.wing, room=conversation.room, format_name="plain_text"))
        if progress:
            progress(done, len(conversations))
    return reports
