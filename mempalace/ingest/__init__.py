"""Transcripts in, verbatim drawers out: parse, chunk on message boundaries, place, file idempotently."""

from .pipeline import expand_paths, ingest, ingest_paths, ingest_uploads
from .report import ConversationPlace, IngestReport, PlannedDrawer

__all__ = ["ConversationPlace", "IngestReport", "PlannedDrawer", "expand_paths", "ingest", "ingest_paths",
           "ingest_uploads"]
