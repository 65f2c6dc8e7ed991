"""What a scoped view exposes of `Palace`, in one list: each public member of the palace is kept to the
view's grant, passed through as it is, or not offered, and `drift` names every way the view differs
from that list or from the palace's signatures (a test holds it empty, so the two cannot drift apart)."""

from __future__ import annotations

import inspect
from typing import Any

KEPT_TO_GRANT = frozenset("""add_drawer browse change_list change_steps check_duplicate conversations_per_day count
delete_drawer delete_drawers delete_where deletion_ids deletion_preview derived drawer_ids drawers_of empty_trash
file_drawers filed_per_day find_drawers fit_embedder get_drawer get_drawers graph_places hall_choosers hall_counts
list_rooms list_wings move_drawers move_rooms nearest_existing neighbours park places rebuild_index rehall_drawers
remove_demo rename_room reroom_drawers restore_change restore_drawers room_aliases room_centroids room_choosers
room_dates room_inventory room_samples search shown_location sources status stored_room take taxonomy trash_list undo
update_drawer wake_up warnings wing_vectors wings_oldest_first with_vectors""".split())
"""Re-written by the view: reads kept to the grant's wings, writes checked against its role and audited
under its actor."""

PASSED_THROUGH = frozenset("""embed embeds_meaning kept last_change location mode revision resolve_room room_name_free
room_named_by_person widespread_words word_documents""".split())
"""Handed on as they are: they say nothing of a wing (tools, counts of words, the palace's revision)."""

NOT_EXPOSED = {
    "open": "a view is made from an open palace", "close": "the palace's owner closes it",
    "exclusive": "holding the palace alone is for its owner's tools", "keep_in_use": "the front end's own lease",
    "keep_in_trash": "the trash setting is the owner's", "catalog_path": "a path on the owner's machine",
    "log_warnings": "its text names the owner's paths", "write_marker": "a write's marker is the palace's own",
    "known_place": "the view resolves places within its wings itself",
    "all_records": "every drawer of every wing", "put_records": "raw records, unchecked by any role",
    "trash_records": "every trashed drawer of every wing",
}
"""Members a view never offers, and why."""

VIEW_ONLY = frozenset("""audit_check audit_entries may scope_key settings sign_out signed_out
synced""".split())
"""Members only a view has: its grant's rights, the audit log as its role may read it, its sources."""

SET_BY_VIEW = frozenset({"within", "audit_as"})
"""The palace's parameters a view fills in itself (its wings, its audit action): never the caller's."""


def _members(cls: type) -> dict[str, Any]:
    return {name: inspect.getattr_static(cls, name) for name in dir(cls) if not name.startswith("_")}


def _parameters(member: Any) -> list[inspect.Parameter] | None:
    """A method's parameters but those a view sets itself; None for a property or a value."""
    if isinstance(member, (staticmethod, classmethod)):
        member = member.__func__
    if isinstance(member, property) or not callable(member):
        return None
    return [p for p in inspect.signature(member).parameters.values() if p.name not in SET_BY_VIEW]


def _shown(name: str, params: list[inspect.Parameter]) -> str:
    return f"{name}(" + ", ".join(str(p) for p in params[1:]) + ")"


def _signature_drift(name: str, palace_member: Any, view_member: Any) -> list[str]:
    ours, theirs = _parameters(palace_member), _parameters(view_member)
    if ours is None or theirs is None:
        return [] if (ours is None) == (theirs is None) else [f"{name} is a method on one side only"]
    if [(p.name, p.kind, p.default) for p in ours] == [(p.name, p.kind, p.default) for p in theirs]:
        return []
    return [f"{_shown(name, theirs)} on the view, {_shown(name, ours)} on the palace"]


def drift(palace_class: type, view_class: type) -> list[str]:
    """Every way `view_class` differs from what this module says it exposes of `palace_class`: members in
    no list, listed members missing, exposed ones offered anyway, and parameters that differ."""
    palace, view = _members(palace_class), _members(view_class)
    exposed = KEPT_TO_GRANT | PASSED_THROUGH
    found = [f"{n} is on the palace but in no list of scoped/exposure.py"
             for n in sorted(set(palace) - exposed - set(NOT_EXPOSED))]
    found += [f"{n} is listed as exposed but the view lacks it" for n in sorted(exposed - set(view))]
    found += [f"{n} is listed as not exposed but the view offers it" for n in sorted(set(NOT_EXPOSED) & set(view))]
    found += [f"{n} is on the view but in no list of scoped/exposure.py"
              for n in sorted(set(view) - exposed - VIEW_ONLY)]
    for name in sorted(exposed & set(palace) & set(view)):
        found += _signature_drift(name, palace[name], view[name])
    return found
