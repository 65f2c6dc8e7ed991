"""Trash (editors and admins): what was deleted from the wings you may file into, kept for the
palace's trash_days; restore a delete exactly as it was, or (admins) empty the trash."""

import streamlit as st

from dashboard.trash_view import empty_trash, trash_changes, undo_box
from dashboard.views import palace

p = palace()
st.title("Trash")
st.caption(f"Deleted drawers are kept {p.settings.trash_days:g} days, then forgotten. Restoring puts them back "
           "exactly where they were: same id, wing, room, hall and dates.")
undo_box(p)
empty_trash(p, trash_changes(p))
