"""Wake-up: exactly what an agent receives at the start of a session (MCP `mempalace_wake_up`, Claude
Code's SessionStart hook) for a chosen wing, and the identity text it opens with."""

import streamlit as st

from dashboard.render import md
from dashboard.views import palace
from mempalace import MempalaceError
from mempalace.palace.wakeup import DEFAULT_TOKENS, read_identity, write_identity
from mempalace.text.counts import counted

EVERY = "(every wing)"
p = palace()
st.title("Wake-up")
st.caption("What an assistant is given at the start of a session: your identity text, the most active rooms "
           "and their tunnels, then the newest facts, decisions, preferences, advice and open threads, each "
           "with the drawer it comes from. Chosen by rules, within a budget of approximate tokens.")
left, right = st.columns([2, 1])
wing = left.selectbox("Wing", [EVERY, *p.list_wings()], key="wakeup_wing")
tokens = right.number_input("Budget (tokens)", 50, 20_000, DEFAULT_TOKENS, step=100, key="wakeup_tokens")
try:
    woken = p.wake_up(None if wing == EVERY else wing, int(tokens))
except MempalaceError as exc:
    st.error(md(str(exc)))
    st.stop()
st.caption(f"About {counted(woken.tokens, 'token')}; {counted(len(woken.drawer_ids), 'drawer')} named.")
st.code(woken.text, language=None, wrap_lines=True)
home = p.settings.home
if p.may("settings", "*"):
    text = st.text_area("Identity text (MEMPALACE_HOME/identity.md)", read_identity(home), height=160,
                        key="wakeup_identity", help="Who you are and how you work: it opens every wake-up.")
    if st.button("Save the identity text", key="wakeup_save", disabled=text.strip() == read_identity(home)):
        try:
            write_identity(home, text)
        except MempalaceError as exc:
            st.error(md(str(exc)))
        else:
            st.rerun()
