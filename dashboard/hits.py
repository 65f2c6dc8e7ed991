"""How one search hit or one drawer is shown: badges, highlighted snippet, full verbatim text, neighbours."""

from __future__ import annotations

import streamlit as st

from mempalace.scoped import ScopedPalace
from mempalace.models import Drawer, SearchHit

from .render import badge, md, snippet_block


def place_badges(wing: str, room: str, hall: str | None, source: str | None = None) -> str:
    parts = [badge(wing, "wing"), badge(room, "room")] + ([badge(hall, "hall")] if hall else [])
    return "".join(parts + ([badge(source, "source")] if source else []))


def show_hit(p: ScopedPalace, hit: SearchHit, terms: list[str]) -> None:
    """A result card: scores, place, provenance, highlighted snippet; expands to the whole drawer."""
    with st.container(border=True):
        st.markdown(f"**#{hit.rank}** · score {hit.score:.3f} · similarity {hit.similarity:.3f} "
                    f"(semantic {hit.semantic:.3f}, lexical {hit.lexical:.3f})"
                    + (f" · filed {md(hit.filed_at[:10])}" if hit.filed_at else ""))
        st.html(place_badges(hit.wing, hit.room, hit.hall, hit.source_file))
        st.html(snippet_block(hit.content, terms))
        with st.expander("Open drawer"):
            show_drawer_text(p, hit.drawer_id, hit.content)


def show_drawer_text(p: ScopedPalace, drawer_id: str, content: str) -> None:
    """The verbatim text, its id, and the drawers around it from the same conversation or source."""
    st.caption("Verbatim text")
    st.text(content)
    st.caption("Drawer id")
    st.code(drawer_id, language=None)
    around = [d for d in p.neighbours(drawer_id) if d.id != drawer_id]
    if around:
        st.caption("Neighbouring drawers from the same source")
        for drawer in around:
            show_neighbour(drawer)


def show_neighbour(drawer: Drawer) -> None:
    st.html(place_badges(drawer.wing, drawer.room, drawer.hall) + f"<small>chunk {drawer.chunk_index}</small>")
    st.text(drawer.content)
