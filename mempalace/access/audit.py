"""A palace's access book, kept with it: the append-only audit log of writes and the agents' tokens.

The log refuses UPDATE, DELETE and REPLACE (an INSERT over an existing entry) in SQLite itself
(triggers), so no statement, ours or another tool's, rewrites history short of dropping the
triggers or deleting the file; each entry is chained to the one before, and the newest one is
anchored outside the file (mempalace.access.audit_anchor). Tokens are stored as SHA-256 hashes: a
token is 256 random bits, so a fast hash is enough, and the secret is shown once, at creation.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import AccessDeniedError, InvalidInputError
from ..files.privacy import private_database
from ..text.counts import counted
from .audit_anchor import AnchorLock, anchor_path, disagreement, first_anchor, read_anchor, write_anchor
from .rules import Actor, check_role, wing_patterns

ACCESS_FILE = "mempalace_access.sqlite3"
TOKEN_PREFIX = "mpt_"
# What the log records, for filters: the palace's writes, then the token book's own.
AUDIT_ACTIONS = ("add", "file", "move", "move-rooms", "reroom", "delete", "rebuild", "token-create", "token-revoke",
                 "rename-room", "log-start", "log-accepted", "restore", "empty-trash", "purge-trash")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, who TEXT NOT NULL, via TEXT NOT NULL,
    action TEXT NOT NULL, drawers INTEGER NOT NULL, ids TEXT NOT NULL, detail TEXT NOT NULL, chain TEXT);
CREATE INDEX IF NOT EXISTS audit_at ON audit(at);
CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit
    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit
    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_replace BEFORE INSERT ON audit
    WHEN EXISTS (SELECT 1 FROM audit WHERE seq = NEW.seq)
    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_newest_only BEFORE INSERT ON audit
    WHEN NEW.seq > 0 AND NEW.seq <= (SELECT max(seq) FROM audit) OR NEW.at < (SELECT max(at) FROM audit)
    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: only a newest entry can be added'); END;
CREATE TABLE IF NOT EXISTS audit_anchored (since INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS audit_anchored_kept BEFORE DELETE ON audit_anchored
    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TABLE IF NOT EXISTS sign_outs (who TEXT PRIMARY KEY, issued_before REAL NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, role TEXT NOT NULL, wings TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, created_by TEXT NOT NULL, revoked_at TEXT);
"""


@dataclass(frozen=True)
class AuditEntry:
    """One write: when, who, from where, what, and the drawer ids it touched."""

    seq: int
    at: str
    who: str
    via: str
    action: str
    ids: tuple[str, ...]
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AuditCheck:
    """Whether the log is as written: every entry chained to the one before by SHA-256, none missing,
    the newest the one its anchor recorded."""

    entries: int
    unchained: int  # entries written before the log was chained (older palaces)
    broken_at: int | None = None  # the first entry whose link does not hold
    problem: str = ""
    against_anchor: bool = False  # the log is not the one its anchor describes: tokens are refused

    @property
    def intact(self) -> bool:
        return not self.problem

    def summary(self) -> str:
        if self.problem:
            accept = (" Tokens are refused until the log agrees with its anchor: if you put back an older copy "
                      "yourself (a backup), `mempalace audit --accept` records that in the log and anchors it "
                      "anew." if self.against_anchor else "")
            return f"The audit log was changed outside MemPalace: {self.problem}{accept}"
        older = f" ({counted(self.unchained, 'older entry')} from before the log was chained)" if self.unchained else ""
        return f"The audit log is intact: {counted(self.entries, 'entry')}, each chained to the one before{older}."


@dataclass(frozen=True)
class TokenInfo:
    """An agent's token as listed (never its secret)."""

    id: str
    name: str
    role: str
    wings: tuple[str, ...]
    created_at: str
    created_by: str
    revoked_at: str | None = None


class AccessBook:
    """The audit log and tokens of one palace, in one SQLite file next to its catalog."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._anchor = anchor_path(self.path)
        self._appending = AnchorLock(self.path, timeout=30)
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            db = private_database(self.path, _SCHEMA)
            if "chain" not in {row[1] for row in db.execute("PRAGMA table_info(audit)")}:
                db.execute("ALTER TABLE audit ADD COLUMN chain TEXT")  # a log from before chaining
            self._db = db
        return self._db

    def _absent(self) -> bool:
        """Whether there is no book yet: reading one never makes the file (only a write does)."""
        return self._db is None and not self.path.exists()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # -- audit ------------------------------------------------------------------------------------

    def record(self, actor: Actor, action: str, ids: Sequence[str], **detail: Any) -> None:
        """Append one write to the log, chained to the newest entry, and move the anchor to it."""
        self._append(actor, action, ids, detail)

    def _append(self, actor: Actor, action: str, ids: Sequence[str], detail: dict[str, Any],
                revoked: str | None = None, accepting: bool = False) -> None:
        """One append at a time across processes (so two never chain to the same entry, and the anchor
        follows the log's order); a disagreement with the anchor is kept in it until accepted."""
        with self._lock, self._appending:
            db = self._conn()
            anchor = read_anchor(self._anchor)
            db.execute("BEGIN IMMEDIATE")
            try:
                problem = "" if accepting else disagreement(anchor, db, self._anchor)
                last = db.execute("SELECT chain, at FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
                row = [max(_now(), last[1]) if last else _now(), actor.who, actor.via, action, len(ids),
                       json.dumps(list(ids)), json.dumps(detail, ensure_ascii=False, sort_keys=True)]
                link = _link(last[0] if last else None, row)
                seq = db.execute("INSERT INTO audit (at, who, via, action, drawers, ids, detail, chain) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [*row, link]).lastrowid
                db.execute("INSERT INTO audit_anchored SELECT ? WHERE NOT EXISTS (SELECT 1 FROM audit_anchored)",
                           [seq])
                fresh = accepting or anchor is None or not anchor.chained_from
                base = first_anchor(db, seq, link, anchor.revoked if anchor else ()) if fresh else anchor
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            write_anchor(self._anchor, replace(base.after(seq, link, revoked), broken=problem))

    def verify(self) -> AuditCheck:
        """Walk the whole log: each entry's link must follow from the one before, seq numbers must run
        without a gap up to the last one SQLite handed out, and the newest entry must be the one the
        anchor recorded (so neither an edit, nor a deletion, nor an older copy put back goes unnoticed
        by someone who cannot rewrite every link and the anchor)."""
        anchor = read_anchor(self._anchor)
        if self._absent():
            if anchor is None:
                return AuditCheck(0, 0)
            gone = (f"the log file ({self.path.name}) is missing, but its anchor says entries up to {anchor.seq} "
                    "were written: it was deleted or moved.")
            return AuditCheck(0, 0, None, anchor.broken or gone, against_anchor=True)
        with self._lock:
            db = self._conn()
            rows = db.execute("SELECT seq, at, who, via, action, drawers, ids, detail, chain FROM audit "
                              "ORDER BY seq").fetchall()
            handed_out = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'audit'").fetchone()
            apart = disagreement(anchor, db, self._anchor)
        check = _walk(rows, handed_out[0] if handed_out else None,
                      anchor.chained_from if anchor and not anchor.broken else None)
        return replace(check, problem=check.problem or apart, against_anchor=bool(apart))

    def accept(self, actor: Actor) -> tuple[str, list[str]]:
        """Take the log as it is now for the one its anchor describes (after putting back a backup, say):
        the disagreement is recorded in the log, and tokens the anchor knows were revoked are revoked
        again. Returns the disagreement and the names of those tokens."""
        with self._lock, self._appending:
            db = self._conn()
            anchor = read_anchor(self._anchor)
            problem = disagreement(anchor, db, self._anchor)
            if not problem:
                raise InvalidInputError("The audit log agrees with its anchor: there is nothing to accept.")
            ids = list(anchor.revoked if anchor else ())
            marks = ", ".join("?" * len(ids))
            again = [r[0] for r in db.execute(f"SELECT name FROM tokens WHERE revoked_at IS NULL AND id IN ({marks})"
                                              " ORDER BY name", ids)]
            db.execute(f"UPDATE tokens SET revoked_at = ? WHERE revoked_at IS NULL AND id IN ({marks})", [_now(), *ids])
            self._append(actor, "log-accepted", (), {"problem": problem, "revoked_again": again}, accepting=True)
        return problem, again

    def has_entries(self) -> bool:
        """Whether the log holds any entry (reading never makes the file)."""
        if self._absent():
            return False
        with self._lock:
            return self._conn().execute("SELECT 1 FROM audit LIMIT 1").fetchone() is not None

    def entries(self, who: str | None = None, via: str | None = None, action: str | None = None,
                since: str | None = None, until: str | None = None, drawer: str | None = None,
                limit: int = 1_000) -> list[AuditEntry]:
        """Log entries matching every filter given, newest first (`since`/`until`: ISO dates, inclusive)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 100_000:
            raise InvalidInputError("The limit must be a whole number from 1 to 100,000.")
        parts, args = [], []
        for column, value in (("who", who), ("via", via), ("action", action)):
            if value:
                parts.append(f"{column} = ?")
                args.append(value)
        if since:
            parts.append("at >= ?")
            args.append(since)
        if until:
            parts.append("at < ?")
            args.append(until + "\uffff")  # a date includes the whole day
        if drawer:
            parts.append("EXISTS (SELECT 1 FROM json_each(audit.ids) WHERE value = ?)")
            args.append(drawer)
        if self._absent():
            return []
        sql = "SELECT seq, at, who, via, action, ids, detail FROM audit"
        sql += (" WHERE " + " AND ".join(parts) if parts else "") + " ORDER BY seq DESC LIMIT ?"
        with self._lock:
            rows = self._conn().execute(sql, [*args, limit]).fetchall()
        return [AuditEntry(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5])), json.loads(r[6])) for r in rows]

    def filed_by(self, actor: Actor, ids: Sequence[str]) -> set[str]:
        """Those of `ids` that `actor` filed (added or ingested), as the log says: the same name from
        another front end (an OS user called like a signed-in address) is someone else."""
        if not ids or self._absent():
            return set()
        marks = ", ".join("?" * len(ids))
        with self._lock:
            rows = self._conn().execute(
                f"SELECT DISTINCT j.value FROM audit, json_each(audit.ids) AS j WHERE audit.who = ? AND"
                f" audit.via = ? AND audit.action IN ('add', 'file') AND j.value IN ({marks})",
                [actor.who, actor.via, *ids]).fetchall()
        return {r[0] for r in rows}

    # -- dashboard sign-outs ----------------------------------------------------------------------

    def record_sign_out(self, who: str, issued_at: float) -> None:
        """`who` signed out: a sign-in issued at or before `issued_at` no longer counts (Streamlit keeps
        a sign-in only in a cookie, so a copy of it would otherwise outlive the sign-out)."""
        with self._lock:
            self._conn().execute(
                "INSERT INTO sign_outs VALUES (?, ?) ON CONFLICT(who) DO UPDATE SET"
                " issued_before = max(issued_before, excluded.issued_before)", [who, float(issued_at)])

    def signed_out(self, who: str, issued_at: float) -> bool:
        """Whether a sign-in of `who` issued at `issued_at` came before their last sign-out."""
        if self._absent():
            return False
        with self._lock:
            row = self._conn().execute("SELECT issued_before FROM sign_outs WHERE who = ?", [who]).fetchone()
        return row is not None and issued_at <= row[0]

    # -- tokens -----------------------------------------------------------------------------------

    def create_token(self, actor: Actor, role: str, wings: Sequence[str] = (), name: str | None = None
                     ) -> tuple[TokenInfo, str]:
        """A new token and its secret (shown once; only its hash is kept)."""
        role = check_role(role)
        patterns = wing_patterns(wings)
        token_id = secrets.token_hex(4)
        name = (name or f"token-{token_id}").strip()
        if not name or len(name) > 100 or any(c.isspace() and c != " " for c in name):
            raise InvalidInputError("A token name must be 1 to 100 characters on one line.")
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        info = TokenInfo(token_id, name, role, patterns, _now(), actor.who)
        with self._lock:
            db = self._conn()
            if db.execute("SELECT 1 FROM tokens WHERE name = ?", [name]).fetchone():
                raise InvalidInputError(f"A token named {name!r} exists already; choose another name.")
            db.execute("INSERT INTO tokens VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
                       [token_id, name, role, json.dumps(patterns), _hash(secret), info.created_at, actor.who])
        self.record(actor, "token-create", (), token=name, role=role, wings=list(patterns))
        return info, secret

    def tokens(self) -> list[TokenInfo]:
        if self._absent():
            return []
        with self._lock:
            rows = self._conn().execute("SELECT id, name, role, wings, created_at, created_by, revoked_at FROM tokens"
                                        " ORDER BY created_at, name").fetchall()
        return [TokenInfo(r[0], r[1], r[2], tuple(json.loads(r[3])), r[4], r[5], r[6]) for r in rows]

    def revoke_token(self, actor: Actor, name_or_id: str) -> TokenInfo:
        """Revoke a token by name or id; it stops working at its next request."""
        with self._lock:
            db = self._conn()
            row = db.execute("SELECT id, name FROM tokens WHERE (id = ? OR name = ?) AND revoked_at IS NULL",
                             [name_or_id, name_or_id]).fetchone()
            if row is None:
                raise InvalidInputError(f"No active token named {name_or_id!r} (see `mempalace token list`).")
            db.execute("UPDATE tokens SET revoked_at = ? WHERE id = ?", [_now(), row[0]])
        self._append(actor, "token-revoke", (), {"token": row[1]}, revoked=row[0])
        return next(t for t in self.tokens() if t.id == row[0])

    def verify_token(self, secret: str) -> TokenInfo | None:
        """The active token with this secret, or None (wrong, revoked or malformed); while the log does
        not agree with its anchor (an older copy may have brought revoked tokens back) every token is
        refused with AccessDeniedError."""
        if not isinstance(secret, str) or not secret.startswith(TOKEN_PREFIX) or len(secret) > 200 or self._absent():
            return None
        digest = _hash(secret)
        anchor = read_anchor(self._anchor)
        with self._lock:
            db = self._conn()
            row = db.execute("SELECT id, name, role, wings, created_at, created_by, revoked_at, hash"
                             " FROM tokens WHERE hash = ?", [digest]).fetchone()
            apart = disagreement(anchor, db, self._anchor) if row else ""
        if row is None or row[6] is not None or not hmac.compare_digest(row[7], digest):
            return None
        if anchor is not None and row[0] in anchor.revoked:
            return None
        if apart:
            raise AccessDeniedError(_refusal(apart))
        return TokenInfo(row[0], row[1], row[2], tuple(json.loads(row[3])), row[4], row[5], None)

    def token_refusal(self) -> str:
        """Why every token is refused now ("" when none is): the log does not agree with its anchor."""
        anchor = read_anchor(self._anchor)
        if self._absent():
            return ""
        with self._lock:
            apart = disagreement(anchor, self._conn(), self._anchor)
        return _refusal(apart) if apart else ""


def _refusal(apart: str) -> str:
    return (f"Tokens are refused while the audit log does not agree with its anchor: {apart} The owner "
            "checks it with `mempalace audit` (and, after putting back a backup, `mempalace audit --accept`).")


def _walk(rows: Sequence[Sequence[Any]], handed_out: int | None, chained_from: int | None) -> AuditCheck:
    """The chain check of `rows` (seq, fields..., chain): from the first linked entry (or the anchor's
    `chained_from`) on, every entry must carry the link that follows from the one before."""
    previous, unchained, expected_seq = None, 0, rows[0][0] if rows else 1
    for seq, *row, chain in rows:
        if seq != expected_seq:
            return AuditCheck(len(rows), unchained, seq, f"entries {expected_seq} to {seq - 1} are missing.")
        expected_seq += 1
        if chain is None and previous is None and (chained_from is None or seq < chained_from):
            unchained += 1
            continue
        if chain is None:
            chained = f"the log is chained from entry {chained_from} on" if previous is None else "the one before is"
            return AuditCheck(len(rows), unchained, seq, f"entry {seq} ({row[0]}, {row[1]}) has no link, though "
                              f"{chained}: links were removed, and entries perhaps changed.")
        if chain != _link(previous, row):
            return AuditCheck(len(rows), unchained, seq, f"entry {seq} ({row[0]}, {row[1]}) does not follow "
                                                       "from the entry before it: it or an earlier one was edited.")
        previous = chain
    if handed_out and handed_out != expected_seq - 1:
        return AuditCheck(len(rows), unchained, expected_seq,
                          f"the newest entries (from {expected_seq} to {handed_out}) were deleted.")
    return AuditCheck(len(rows), unchained)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _link(previous: str | None, row: Sequence[Any]) -> str:
    """An entry's link: SHA-256 of the link before it and the entry's own fields."""
    return hashlib.sha256(json.dumps([previous or "", *row], ensure_ascii=False).encode("utf-8")).hexdigest()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")
