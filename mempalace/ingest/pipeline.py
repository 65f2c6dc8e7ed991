"""`ingest`: a transcript becomes verbatim drawers with a wing, a room and a hall, idempotently.

A drawer's id is the hash of its text, so what is already stored is found without embedding it:
re-ingesting a file, a renamed copy, or a later export that contains it only files what is new.
When a conversation has grown, its stored drawers whose text is inside a new, longer drawer are
replaced by it. Each file is filed all or nothing: if writing fails part-way, what was added for
it is removed again, and running it again completes it. Small files are written in groups (one
Chroma write per group, not per file); a group that fails is retried file by file.
"""

from __future__ import annotations

import os
from datetime import date
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..catalog.placements import INGEST
from ..errors import (InvalidInputError, MalformedSourceError, MempalaceError, NotRegularFileError, PalaceMovedError,
                      SourceRefusedError, UnsupportedFormatError)
from ..formats import registry as formats
from ..formats.base import Conversation, Source
from ..formats.walking import walk as _walk
from ..language.languages import embedder_note
from ..models import DrawerDraft
from ..palace.palace import Palace
from ..rooms.choice import TopicRooms
from ..text import blobs
from ..text.names import room_slug, wing_name
from .imagined import AsIfFiled
from .planning import (Plan, Progress, Run, assign_rooms, classify, drop_repeats, keep_rooms, needs_room_choice, plan_source,
                       room_choice)
from .report import IngestReport, places_of

WRITE_BATCH = 2_000
GROUP_DRAWERS = 512  # small files are embedded and filed together until a group has this many drawers
Reporter = Callable[[IngestReport], None]


Item = tuple[str | os.PathLike[str] | bytes, str | None, bool]  # a source, its name if uploaded, found by a walk


def ingest(palace: Palace, source: str | os.PathLike[str] | bytes, filename: str | None = None,
           wing: str | None = None, room: str | None = None, format_name: str | None = None,
           dry_run: bool = False, progress: Progress | None = None, text_wing: str | None = None, *,
           conversation_date: str | None = None) -> IngestReport:
    """Ingest one file, folder (Slack export) or uploaded bytes; problems are reported, not raised.
    `text_wing`: the wing for plain text that names no project, instead of one named after its file;
    `conversation_date` (YYYY-MM-DD): the day its conversations happened, where the source does not say."""
    run = replace(_run(palace, wing, room, text_wing), date=_day(conversation_date))
    [report] = _ingest_all(palace, [(source, filename, False)], run, format_name, dry_run, progress)
    return report


def _day(value: str | None) -> str | None:
    """A YYYY-MM-DD day as given, checked (None: none given)."""
    try:
        return date.fromisoformat(value).isoformat() if value else None
    except (TypeError, ValueError):
        raise InvalidInputError(f"conversation_date must be a date written YYYY-MM-DD, not {str(value)[:40]!r}."
                                ) from None


def ingest_paths(palace: Palace, paths: Iterable[str | os.PathLike[str]], wing: str | None = None,
                 room: str | None = None, format_name: str | None = None, dry_run: bool = False,
                 progress: Progress | None = None, on_report: Reporter | None = None,
                 roots: Sequence[Path] = (), text_wing: str | None = None) -> list[IngestReport]:
    """Ingest files and folders (walked for transcript files; a Slack export is one source), in order.

    `progress` hears (done, total) while a group of files is embedded; `on_report` each report as its
    group is done (the returned reports name the rooms as they are at the end, after any rename).
    `roots`: when given, every file is read only if the file opened is really inside one of them.
    """
    items = ((path, None, walked) for path, walked in _walk(paths))
    return _ingest_all(palace, items, _run(palace, wing, room, text_wing), format_name, dry_run, progress,
                       on_report, tuple(roots))


def ingest_uploads(palace: Palace, uploads: Sequence[tuple[str, bytes]], wing: str | None = None,
                   room: str | None = None, dry_run: bool = False, progress: Progress | None = None,
                   on_report: Reporter | None = None) -> list[IngestReport]:
    """Ingest uploaded files, (name, bytes) each, together and in order, as `ingest_paths` does files."""
    items = [(data, name, False) for name, data in uploads]
    return _ingest_all(palace, items, _run(palace, wing, room, None), None, dry_run, progress, on_report)


def _run(palace: Palace, wing: str | None, room: str | None, text_wing: str | None) -> Run:
    return Run(wing=wing_name(wing) if wing else None, room=palace.resolve_room(room_slug(room)) if room else None,
               text_wing=wing_name(text_wing) if text_wing else None)


def _ingest_all(palace: Palace, items: Iterable[Item], run: Run, format_name: str | None, dry_run: bool,
                progress: Progress | None, on_report: Reporter | None = None,
                roots: tuple[Path, ...] = ()) -> list[IngestReport]:
    """Plan the sources in order and file them group by group; a dry run plans each group against
    what the earlier ones would have filed, so its figures are the real run's."""
    view = AsIfFiled(palace) if dry_run else palace
    done: list[tuple[IngestReport, int, int]] = []  # each report, and the renames before its group and after it
    pending: list[Plan] = []

    def emit(reports: list[IngestReport], before: int) -> None:
        for report in reports:
            done.append((report, before, len(run.renames)))
            if on_report:
                on_report(report)

    def flush() -> None:
        before = len(run.renames)
        reports = _finish(view, pending, run, dry_run, progress)
        if isinstance(view, AsIfFiled):
            kept = [plan for plan, report in zip(pending, reports) if report.ok]
            view.file([d for p in kept for d in p.drafts], [i for p in kept for i in p.replaces], run.renames[before:])
        emit(reports, before)
        pending.clear()

    for source, filename, walked in items:
        outcome = _prepare(view, run, source, filename, format_name, dry_run, walked, roots)
        if isinstance(outcome, Plan) and any(outcome.parents & p.parents for p in pending):
            flush()  # the same conversation twice: file the first, then plan the second against it
            outcome = _prepare(view, run, source, filename, format_name, dry_run, walked, roots)
        if isinstance(outcome, IngestReport):
            flush()
            emit([outcome], len(run.renames))
            continue
        pending.append(outcome)
        if sum(len(p.drafts) for p in pending) >= GROUP_DRAWERS:
            flush()
    flush()
    keep_rooms(palace, run, dry_run)
    return [report.renamed_since(run.renames[before:], run.renames[after:]) for report, before, after in done]


def _prepare(palace: Palace, run: Run, source: str | os.PathLike[str] | bytes, filename: str | None,
             format_name: str | None, dry_run: bool, walked: bool,
             roots: tuple[Path, ...] = ()) -> IngestReport | Plan:
    """The plan for a source, or the report that ends it (an error, or a skipped file in a folder)."""
    given = None if isinstance(source, bytes) else Path(source)
    name = filename or ("upload" if given is None else given.name or given.resolve().name or str(source))
    detected = None
    try:
        src = _source(palace, source, name, roots)
        detected, conversations = _parse(src, format_name)
        _refuse_blobs(name, conversations)
        return plan_source(palace, src, detected, conversations, run)
    except (NotRegularFileError, UnsupportedFormatError) as exc:  # found in a folder: passed over (a FIFO unread)
        if walked:
            note = str(exc) if isinstance(exc, NotRegularFileError) else "skipped, not a transcript"
            return IngestReport(source=name, notes=(note,), skipped=True, dry_run=dry_run)
        return IngestReport(source=name, errors=(str(exc),), dry_run=dry_run)
    except MempalaceError as exc:
        return IngestReport(source=name, format=detected, errors=(str(exc),), dry_run=dry_run,
                            transient=not isinstance(exc, InvalidInputError))
    except Exception as exc:  # a reader's bug must not stop the other files: report it as this file's error
        return IngestReport(source=name, format=detected, dry_run=dry_run,
                            errors=(f"{name} could not be read ({type(exc).__name__}: {exc}).",))


def _finish(palace: Palace, plans: list[Plan], run: Run, dry_run: bool, progress: Progress | None) -> list[IngestReport]:
    """Embed the plans' new drawers together, give them halls and rooms, then preview or file them.

    What only reads the palace runs aside meanwhile (as the caller: same actor): the palace's room
    choice is read while the model embeds, and the stored drawers nearest the new ones are asked for
    part by part as the model gives their vectors.
    """
    if not plans:
        return []
    drop_repeats(plans)
    texts = [d.content for p in plans for d in p.drafts]
    aside, rooms = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mempalace-ingest"), None
    nearest = None if dry_run else _asking_nearest(palace, plans)
    try:
        fitted = palace.fit_embedder(texts, dry_run)  # before anything embeds or reads vectors
        rooms = aside.submit(copy_context().run, room_choice, palace) if needs_room_choice(plans, run) else None
        classify(palace, plans, progress, remember=dry_run, on_part=nearest.ask if nearest else None)
        run.embedded_with = palace.settings.embedder
        if rooms is not None:
            run.rooms = rooms.result()
        renames = assign_rooms(palace, plans, run)
        known = nearest.answers() if nearest is not None else None
    except MempalaceError as exc:
        if nearest is not None:
            nearest.stop()
        _keep_room_choice(aside, rooms, run)
        return [IngestReport(source=p.source, format=p.format, conversations=p.conversations, errors=(str(exc),),
                             dry_run=dry_run, transient=not isinstance(exc, InvalidInputError)) for p in plans]
    except BaseException:  # interrupted, or a bug: reads not begun are dropped; those under way are
        _stop_reads(aside, nearest)  # waited for (bounded), so the palace is never closed under them
        raise
    aside.shutdown()
    run.renames += renames.items()
    said = tuple(f"room {old} {'would be' if dry_run else 'is'} renamed {new} (its old name still finds it)"
                 for old, new in sorted(renames.items()))
    said += tuple(filter(None, [fitted or embedder_note(palace.settings.embedder, texts),
                                run.names_model.note() if run.names_model else None]))
    if dry_run:
        return [_report(plan, added=(), near=0, replaced=len(plan.replaces), dry_run=True, notes=said if n == 0 else ())
                for n, plan in enumerate(plans)]
    for old, new in renames.items():  # in the order chosen: a freed name may be taken next
        palace.rename_room(old, new, chosen_by=INGEST)
    reports = _file_group(palace, plans, known, run.embedded_with)
    return [replace(r, notes=r.notes + said) if n == 0 else r for n, r in enumerate(reports)]


def _stop_reads(aside: ThreadPoolExecutor, nearest: _NearestAsked | None) -> None:
    """Drop every read not begun, then wait for those under way (even if interrupted again meanwhile)."""
    try:
        aside.shutdown(wait=False, cancel_futures=True)
    finally:
        if nearest is not None:
            nearest.stop(wait=False)
    try:
        aside.shutdown()
    finally:
        if nearest is not None:
            nearest.stop()


def _keep_room_choice(aside: ThreadPoolExecutor, rooms: Future[TopicRooms] | None, run: Run) -> None:
    """After a failed group: keep the room choice read aside if nothing used it yet, so the next
    group (or ingest) need not read it again."""
    aside.shutdown()
    if rooms is not None and run.rooms is None and rooms.exception() is None:
        run.rooms = rooms.result()


def _new(plans: list[Plan]) -> tuple[list[str], np.ndarray, list[str]]:
    """The ids and vectors of the plans' drafts, and the ids of the drawers they replace."""
    ids = [d.id for p in plans for d in p.drafts]
    vectors = np.concatenate([p.vectors for p in plans if len(p.drafts)]) if ids else np.zeros((0, 0), np.float32)
    return ids, vectors, [i for p in plans for i in p.replaces]


class _NearestAsked:
    """The stored drawer most like each new drawer (those replaced aside), asked part by part while
    the model embeds the rest and before anything of the group is filed: at a million drawers a
    part's query keeps the server busy for seconds (13 ms a drawer for chats unlike the palace's),
    which then overlaps the model."""

    def __init__(self, palace: Palace, plans: list[Plan]) -> None:
        self._palace, self._ids = palace, [d.id for p in plans for d in p.drafts]
        self._replaced = [i for p in plans for i in p.replaces]
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mempalace-nearest")
        self._queries: list[tuple[list[int], Future[list[tuple[str, float] | None]]]] = []

    def ask(self, rows: list[int], vectors: np.ndarray) -> None:
        """Ask for the drafts at `rows` (their places in the group), whose vectors are now known."""
        query = self._executor.submit(copy_context().run, self._palace.nearest_existing, vectors, self._replaced)
        self._queries.append((rows, query))

    def answers(self) -> dict[str, tuple[str, float] | None] | None:
        """Draft id -> its nearest stored drawer and their similarity (None: the palace is empty); or
        None if some draft was never asked for (filing then asks batch by batch)."""
        found = {self._ids[row]: match for rows, query in self._queries for row, match in zip(rows, query.result())}
        self._executor.shutdown()
        return found if len(found) == len(set(self._ids)) else None

    def stop(self, wait: bool = True) -> None:
        """Drop what is not asked yet; with `wait`, wait for a query under way (the palace must not close
        under it)."""
        self._executor.shutdown(wait=wait, cancel_futures=True)


def _asking_nearest(palace: Palace, plans: list[Plan]) -> _NearestAsked | None:
    return _NearestAsked(palace, plans) if any(p.drafts for p in plans) else None


def _refuse_blobs(name: str, conversations: list[Conversation]) -> None:
    """A source that is nothing but blobs (one long run without spaces) is no conversation: refused
    before anything is embedded or filed."""
    found = blobs.only_blobs([m.text for c in conversations for m in c.messages])
    if found:
        chars, kind = found
        raise SourceRefusedError(f"{name} holds nothing but {chars:,} characters of {kind}, with no conversation "
                                 "around them (a pasted image, a bundle or a data dump?). Nothing was filed.")


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The sources under `paths`: named files as given, folders walked for transcript-like files."""
    return [path for path, _ in _walk(paths)]


def _source(palace: Palace, source: str | os.PathLike[str] | bytes, name: str,
            roots: tuple[Path, ...] = ()) -> Source:
    caps = {"max_bytes": palace.settings.max_ingest_bytes, "max_unzipped_bytes": palace.settings.max_unzipped_bytes}
    if isinstance(source, (bytes, bytearray)):
        return Source.from_bytes(bytes(source), name, **caps)
    found = Source.from_path(source, **caps)
    return Source(name=name, path=found.path, roots=roots, **caps)


def _parse(src: Source, format_name: str | None) -> tuple[str, list[Conversation]]:
    try:
        detected, conversations = formats.parse(src, format_name)
    except MempalaceError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise MalformedSourceError(f"{src.name} could not be read ({type(exc).__name__}: {exc}).") from None
    if not conversations:
        raise MalformedSourceError(f"{src.name}: no conversations with any text were found in it.")
    return detected, conversations


def _file_group(palace: Palace, plans: list[Plan], known: dict[str, tuple[str, float] | None] | None = None,
                embedded_with: str = "") -> list[IngestReport]:
    """Write several plans in one go; if that fails, undo it and write them one by one instead.
    `known`: each draft's nearest stored drawer, if asked for already.

    Replaced drawers are removed last, and only once every drawer of the new version is stored.
    """
    if not plans:
        return []
    drafts = [d for p in plans for d in p.drafts]
    _, vectors, replaced = _new(plans)
    try:
        added, near = _write(palace, drafts, vectors, replaced, known, embedded_with)
    except MempalaceError as exc:
        if len(plans) > 1 and not isinstance(exc, PalaceMovedError):
            return [r for p in plans for r in _file_group(palace, [p], known, embedded_with)]
        plan = plans[0]
        return [IngestReport(source=plan.source, format=plan.format, conversations=plan.conversations, transient=True,
                             errors=(f"{plan.source}: filing failed part-way ({exc}); {_undo(palace, [d.id for d in drafts])}",))]
    reports, start = [], 0
    for plan in plans:
        count = len(plan.drafts)
        replaced, notes = _replace(palace, plan)
        reports.append(_report(plan, added=tuple(added[start : start + count]), near=sum(near[start : start + count]),
                               replaced=replaced, dry_run=False, notes=notes))
        start += count
    return reports


def _write(palace: Palace, drafts: list[DrawerDraft], vectors: np.ndarray, replaced: list[str],
           known: dict[str, tuple[str, float] | None] | None = None, embedded_with: str = "") -> tuple[list[str], list[int]]:
    """File drafts in batches; returns their ids and, per draft, 1 if it is a near-duplicate of a
    drawer stored before (`known`: each draft's nearest, else asked for batch by batch). Refused if
    the palace moved to another embedder since `embedded_with` made the vectors."""
    added: list[str] = []
    near: list[int] = []
    threshold = palace.settings.duplicate_threshold
    try:
        for start in range(0, len(drafts), WRITE_BATCH):
            batch, batch_vectors = drafts[start : start + WRITE_BATCH], vectors[start : start + WRITE_BATCH]
            matches = ([known.get(d.id) for d in batch] if known is not None
                       else palace.nearest_existing(batch_vectors, exclude=[*added, *replaced]))
            near += [int(bool(m and m[1] >= threshold)) for m in matches]
            if embedded_with and palace.settings.embedder != embedded_with:
                raise PalaceMovedError.while_reading(palace.settings.embedder)
            palace.file_drawers(batch, batch_vectors)
            added += [d.id for d in batch]
    except MempalaceError:
        _undo(palace, added)
        raise
    return added, near


def _replace(palace: Palace, plan: Plan) -> tuple[int, tuple[str, ...]]:
    """Remove the drawers a grown conversation replaces, once all of its new drawers are stored."""
    if not plan.replaces:
        return 0, ()
    try:
        if len(palace.find_drawers([d.id for d in plan.drawers])) < len(plan.drawers):
            return 0, ("older drawers of a grown conversation were kept: not every new drawer is stored",)
        return palace.delete_drawers(plan.replaces, to_trash=False), ()
    except MempalaceError as exc:
        return 0, (f"older drawers of a grown conversation were kept ({exc}); ingesting again replaces them",)


def _undo(palace: Palace, ids: list[str]) -> str:
    """Remove what this run added for a file; says for the report whether that worked."""
    try:
        palace.delete_drawers(ids, to_trash=False)
    except MempalaceError:
        return "some drawers may remain: running the ingest again completes it without duplicates."
    return "nothing from this file was kept; run it again to retry."


def _report(plan: Plan, added: tuple[str, ...], near: int, replaced: int, dry_run: bool,
            notes: tuple[str, ...] = ()) -> IngestReport:
    new = [d for d in plan.drawers if d.status == "new"]
    return IngestReport(
        source=plan.source, format=plan.format, conversations=plan.conversations, planned=len(plan.drawers),
        added=len(added), already_present=len(plan.drawers) - len(new), replaced=replaced,
        near_duplicates=near, notes=notes, dry_run=dry_run, wings=tuple(sorted({d.wing for d in new})),
        rooms=tuple(sorted({d.room for d in new})), drawer_ids=added,
        drawers=tuple(plan.drawers) if dry_run else (), places=places_of(plan.drawers), parents=tuple(sorted(plan.parents)),
        new_conversations=len({d.conversation for d in new}),
    )
