"""A demo palace a new user can load in one step, and remove in one step: one story told across three wings.

Kai, a backend engineer (`wing_kai`), the Driftwood team (`wing_driftwood`) and Priya, an engineering
lead (`wing_priya`) each talk about moving Driftwood's login from session cookies to OIDC with PKCE, so
the room `auth-migration` is a tunnel through all three wings; `gpu-pricing` and `deploy-pipeline` link
two wings each, and `onboarding` and `team-offsite` stay in one. The conversations are synthetic,
written for MemPalace, and live in `demo_conversations.txt` as plain-text transcripts.

Loading files every conversation through `ingest` with its wing, room and date given (halls are chosen
by ingest), so it is idempotent: loading the demo again adds nothing. The demo lives apart from real
conversations (`mempalace.palace.demo_drawers`): ingest never files into its rooms, and `Palace.remove_demo`
deletes exactly its drawers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..palace.demo_drawers import DATA_FILE, DEMO_WINGS, DemoConversation, DemoRemoval, demo_conversations, demo_drawers
from . import IngestReport, ingest

if TYPE_CHECKING:
    from ..palace.palace import Palace

__all__ = ["DATA_FILE", "DEMO_WINGS", "DemoConversation", "DemoRemoval", "demo_conversations", "demo_drawers",
           "load_demo"]


def load_demo(palace: Palace, progress: Callable[[int, int], None] | None = None) -> list[IngestReport]:
    """File the demo conversations into `palace`, one report each; `progress(done, total)` after each.

    Like `ingest`, a conversation that cannot be filed is reported in its report's `errors`, not raised;
    what is already stored is left alone, so loading twice adds nothing the second time.
    """
    conversations = demo_conversations()
    reports = []
    for done, conversation in enumerate(conversations, start=1):
        reports.append(ingest(palace, conversation.text.encode("utf-8"), filename=conversation.filename,
                              wing=conversation.wing, room=conversation.room, format_name="plain_text",
                              conversation_date=conversation.day))
        if progress:
            progress(done, len(conversations))
    return reports
