"""Transcripts in, verbatim drawers out: parse, chunk on message boundaries, place, file idempotently."""

from .pipeline import expand_paths, ingest, ingest_paths
from .report import IngestReport, PlannedDrawer

__all__ = ["IngestReport", "PlannedDrawer", "expand_paths", "ingest", "ingest_paths"]
