"""Changes (editors and admins): every move, rename, merge, re-rooming, delete and restore in the wings
you see, newest first; undo one while nothing done since depends on it."""

import streamlit as st

from dashboard.changes_view import changes_list
from dashboard.trash_view import undo_box
from dashboard.views import palace

p = palace()
st.title("Changes")
st.caption("Each change that moved, renamed, merged, re-roomed, deleted or restored drawers. Undo puts its "
           "drawers back as they were, unless something done since changed them (undo that first).")
undo_box(p)
changes_list(p)
