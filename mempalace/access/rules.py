"""Who may do what: roles, wing scopes and the actor every write is recorded under.

Rules come from the `[[access]]` tables of the settings (see the README's "Share with a team"):
each grants a role (`viewer`, `editor`, `admin`) on some wings (all by default; names or
patterns such as `wing_team_*`) to e-mail addresses or whole domains (`@example.com`). A person's
rules add up: a viewer of every wing may also be the editor of one.
"""

from __future__ import annotations

import contextlib
import contextvars
import fnmatch
import functools
import getpass
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import AccessDeniedError, ConfigError, InvalidInputError
from ..text.names import wing_name

ROLES = ("viewer", "editor", "admin")
# The least role each action needs; reading (search, browse, export) is the viewer's.
ACTIONS = {
    "read": "viewer", "add": "editor", "ingest": "editor", "move": "editor", "merge": "editor",
    "reroom": "editor", "delete": "admin", "settings": "admin", "audit": "admin",
}
ALL_WINGS = ("*",)
# Where a scoped view's tunnels lead into wings it may not see: the room is shown, the wings are not.
HIDDEN_WING = "(wings you cannot see)"
HIDDEN_LOCATION = "the team's palace"  # what a scoped view shows instead of the folder or URL, to all but admins
VIA = ("dashboard", "cli", "mcp", "hook", "python")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_DOMAIN = re.compile(r"^@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class AccessRule:
    """One `[[access]]` table: `role` on `wings` (patterns) for `who` (addresses or `@domain`s)."""

    who: tuple[str, ...]
    role: str
    wings: tuple[str, ...] = ALL_WINGS


@dataclass(frozen=True)
class Actor:
    """Who is writing and from where (dashboard, cli, mcp, hook, python), as the audit log records it."""

    who: str
    via: str


@dataclass(frozen=True)
class Grant:
    """What one person or token may do: (role, wing patterns) pairs, and who they are."""

    actor: Actor
    rules: tuple[tuple[str, tuple[str, ...]], ...]

    @functools.cached_property
    def every_wing(self) -> bool:
        """True when every wing is visible (no wing filter is needed anywhere)."""
        return any(p == "*" for _, patterns in self.rules for p in patterns)

    @property
    def role(self) -> str:
        """The highest role held on any wing."""
        return max((r for r, _ in self.rules), key=ROLES.index, default="viewer")

    @functools.cached_property
    def key(self) -> tuple[str, ...]:
        """What read views for this grant are cached under: the wings it sees (roles do not matter)."""
        return ALL_WINGS if self.every_wing else tuple(sorted({p for _, patterns in self.rules for p in patterns}))

    def sees(self, wing: str) -> bool:
        return any(_matches(wing, patterns) for _, patterns in self.rules)

    def may(self, action: str, wing: str | None = None) -> bool:
        """Whether the action is allowed (on `wing`, on every wing when it is `*`, or on some wing when
        it is None). Every wing means a rule for `*` itself, never a pattern that happens to match the
        text `*` (`?`, `wing_[!z]*`)."""
        needed = ROLES.index(ACTIONS[action])
        return any(ROLES.index(role) >= needed and (wing is None or ("*" in patterns if wing == "*"
                                                                     else _matches(wing, patterns)))
                   for role, patterns in self.rules)

    def check(self, action: str, wing: str | None = None) -> None:
        """Raise AccessDeniedError unless `may(action, wing)`; the message names the role needed."""
        if not self.may(action, wing):
            where = {None: "", "*": " on every wing"}.get(wing, f" in {wing}")
            raise AccessDeniedError(
                f"{self.actor.who} may not {action}{where}: that needs the {ACTIONS[action]} role{where}.")


def _matches(wing: str, patterns: tuple[str, ...]) -> bool:
    """Whether `wing` matches a pattern. `kai` and `wing_kai` name the same wing (upstream's prefix), and
    `wing_team_*` covers `team_x` too; but `wing_*` covers only names with the prefix, not every wing."""
    return any(p == "*" or fnmatch.fnmatchcase(wing, p) or _folds(p) and fnmatch.fnmatchcase(_bare(wing), _bare(p))
               for p in patterns)


def _folds(pattern: str) -> bool:
    """Whether `pattern` also names wings without the `wing_` prefix: not when that leaves only wildcards."""
    return bool(_bare(pattern).strip("*?"))


def _bare(name: str) -> str:
    return name.removeprefix("wing_")


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or name to listen on) only reaches this machine."""
    import ipaddress

    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def local_user() -> str:
    """The operating-system user of this process, as writes from it are recorded: from its user id,
    never from LOGNAME or USER, which anyone can set to someone else's name or e-mail address."""
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        pass
    try:
        return getpass.getuser()  # Windows: the account name the system reports
    except (KeyError, OSError):
        return "local"


def full_grant(who: str, via: str) -> Grant:
    """Admin of every wing: a person using their own palace on their own machine."""
    return Grant(Actor(who, via), (("admin", ALL_WINGS),))


def grant_for(rules: Iterable[AccessRule], email: str, via: str) -> Grant | None:
    """The grant of a signed-in person (by e-mail address), or None when no rule names them. Only
    ASCII addresses count: lower-casing others maps look-alikes (`\u212aai@`, a Kelvin sign) onto
    someone else's address."""
    if not email.isascii():
        return None
    address = email.strip().lower()
    domain = "@" + address.rpartition("@")[2]
    held = tuple((r.role, r.wings) for r in rules if address in r.who or domain in r.who)
    return Grant(Actor(address, via), held) if held and _EMAIL.match(address) else None


def token_grant(name: str, role: str, wings: tuple[str, ...]) -> Grant:
    """The grant of an agent's token (its name is what the audit log shows)."""
    return Grant(Actor(f"token:{name}", "mcp"), ((role, wings or ALL_WINGS),))


def check_role(role: object) -> str:
    if role not in ROLES:
        raise InvalidInputError(f"Unknown role {role!r}: use viewer, editor or admin.")
    return str(role)


def wing_patterns(values: Iterable[object]) -> tuple[str, ...]:
    """Wing names cleaned as stored (`Wing Kai` → `wing_kai`); `*` and `wing_team_*` stay patterns."""
    patterns = []
    for value in values:
        if not isinstance(value, str) or not value.strip():
            raise InvalidInputError(f"A wing name or pattern must be text, not {value!r}.")
        text = value.strip().lower()
        if any(c in text for c in "*?["):
            patterns.append(text)
        else:
            patterns.append(wing_name(text))
    return tuple(patterns) or ALL_WINGS


def parse_rules(value: object) -> tuple[AccessRule, ...]:
    """The `[[access]]` tables of config.toml as rules; a mistake is a ConfigError naming the table."""
    tables = value if isinstance(value, list) else None
    if tables is None or not all(isinstance(t, Mapping) for t in tables):
        raise ConfigError("Setting access must be a list of [[access]] tables (who, role, wings).")
    return tuple(_rule(i, t) for i, t in enumerate(tables, start=1))


def _rule(number: int, table: Mapping[str, Any]) -> AccessRule:
    where = f"[[access]] table {number}"
    unknown = sorted(set(table) - {"who", "role", "wings"})
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)} (use who, role, wings).")
    who = table.get("who")
    who = [who] if isinstance(who, str) else who
    if not isinstance(who, list) or not who or not all(isinstance(w, str) for w in who):
        raise ConfigError(f"{where}: who must be an e-mail address, an @domain, or a list of them.")
    names = tuple(w.strip().lower() for w in who)
    bad = [w for w in names if not (_EMAIL.match(w) or _DOMAIN.match(w))]
    if bad:
        raise ConfigError(f"{where}: {bad[0]!r} is neither an e-mail address nor an @domain.")
    if not all(w.isascii() for w in names):
        raise ConfigError(f"{where}: write e-mail addresses and domains in ASCII (an internationalised "
                          "domain in its xn-- form): other letters can look like someone else's address.")
    wings = table.get("wings", list(ALL_WINGS))
    if wings == []:
        raise ConfigError(f"{where}: wings is empty; leave it out for every wing, or name some.")
    try:
        role = check_role(table.get("role"))
        patterns = wing_patterns([wings] if isinstance(wings, str) else wings)
    except (InvalidInputError, TypeError) as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return AccessRule(names, role, patterns)


_ACTOR: contextvars.ContextVar[Actor | None] = contextvars.ContextVar("mempalace_actor", default=None)


def current_actor() -> Actor:
    """Who the writes of this thread or task are recorded under (default: this OS user, from Python)."""
    return _ACTOR.get() or Actor(local_user(), "python")


@contextlib.contextmanager
def acting_as(actor: Actor) -> Iterator[None]:
    token = _ACTOR.set(actor)
    try:
        yield
    finally:
        _ACTOR.reset(token)
