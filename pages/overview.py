"""Overview: what the palace holds, wing by wing (a fuller dashboard is planned)."""

import streamlit as st

palace = st.session_state["palace"]
st.title("Palace overview")
tree = palace.taxonomy()
if not tree:
    st.info("The palace is empty. File drawers with `mempalace add` or the ingest page (coming soon).")
else:
    rows = [{"wing": w, "room": r, "drawers": n} for w, rooms in tree.items() for r, n in rooms.items()]
    st.dataframe(rows, hide_index=True, use_container_width=True)
