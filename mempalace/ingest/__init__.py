"""Transcripts in, verbatim drawers out: parse, chunk on message boundaries, place (wing, room, hall),
file idempotently; re-rooming and re-halling a palace as ingest would place it today; the demo."""

from .pipeline import expand_paths, ingest, ingest_paths, ingest_uploads
from .report import ConversationPlace, IngestReport, PlannedDrawer

__all__ = ["ConversationPlace", "IngestReport", "PlannedDrawer", "expand_paths", "ingest", "ingest_paths",
           "ingest_uploads"]
