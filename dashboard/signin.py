"""Who is using the dashboard: the owner on loopback, or a person signed in with the team's
identity provider (Streamlit's OpenID Connect, `[auth]` in `.streamlit/secrets.toml`).

Without `[auth]` the dashboard is a single-user app and refuses to serve any address but
loopback. With it, everyone signs in and gets the grant the `[[access]]` settings give their
e-mail address; an expired ID token counts as signed out.
"""

from __future__ import annotations

import ipaddress
import time
from urllib.parse import urlsplit

import streamlit as st

from mempalace.access.rules import Grant, full_grant, grant_for, local_user
from mempalace.config import Settings
from mempalace.scoped.palace import ScopedPalace

from .render import md

HOW_TO_SHARE = ("See the README's \"Share with a team\": add an `[auth]` section to `.streamlit/secrets.toml` "
                "and `[[access]]` rules to MemPalace's config.toml, or keep the dashboard on 127.0.0.1.")


def sign_in_configured() -> bool:
    """Whether `[auth]` is set in Streamlit's secrets (a missing secrets file means no)."""
    try:
        return "auth" in st.secrets
    except Exception:  # Streamlit raises its own error when there is no secrets file at all
        return False


def refuse_unless_loopback(is_loopback: bool) -> None:
    """Without sign-in, stop every page when the server listens beyond this machine."""
    if not is_loopback:
        address = st.get_option("server.address") or "every network interface"
        st.error(f"This dashboard has no sign-in configured, so it will not serve {md(address)}: anyone on "
                 "the network could read, export and delete the palace.")
        st.markdown(HOW_TO_SHARE)
        st.stop()


def loopback_request(host: str | None, origin: str | None) -> bool:
    """Whether a request was addressed to this machine by a loopback name (`Host`) and, when the
    browser says where the page came from (`Origin`), came from one too. A page on another name
    that resolves to 127.0.0.1 (DNS rebinding) fails this."""
    def local(name: str | None) -> bool:
        try:
            return name == "localhost" or ipaddress.ip_address(name or "").is_loopback
        except ValueError:  # a name, not an address
            return False

    if host is None:  # no HTTP request behind this run (Streamlit's AppTest)
        return True
    if not local(urlsplit(f"//{host}").hostname):
        return False
    return origin is None or local(urlsplit(origin).hostname)


def refuse_foreign_host(sign_in: bool) -> None:
    """Without sign-in, stop every page asked for by a name other than this machine's loopback."""
    if sign_in:
        return
    headers = st.context.headers
    if not loopback_request(headers.get("Host"), headers.get("Origin")):
        st.error("This dashboard has no sign-in configured, so it answers only at localhost or 127.0.0.1 "
                 "on this machine, not at the name this page was opened with.")
        st.markdown(HOW_TO_SHARE)
        st.stop()


def current_grant(settings: Settings, sign_in: bool) -> Grant:
    """The grant of whoever is here; renders the sign-in or no-access screen and stops otherwise."""
    if not sign_in:
        return full_grant(local_user(), "dashboard")
    user = st.user
    if not user.is_logged_in:
        _sign_in_screen("Sign in to open this palace.")
    if _expired(user.get("exp")):
        _sign_in_screen("Your sign-in has expired. Sign in again to go on.")
    email = str(user.get("email") or "")
    verified = user.get("email_verified")
    vouched = verified in (True, "true") or (verified is None and settings.trust_unverified_email)
    grant = grant_for(settings.access, email, "dashboard") if vouched else None
    if grant is None:
        st.title("MemPalace")
        st.warning(md(f"You are signed in as {email or 'someone without an e-mail address'}, but you have no "
                      "access to this palace. Ask its admin to add you to the [[access]] rules."))
        if st.button("Sign out"):
            st.logout()
        st.stop()
    return grant


def _expired(exp: object) -> bool:
    return not isinstance(exp, (int, float)) or isinstance(exp, bool) or exp <= time.time()


def _sign_in_screen(message: str) -> None:
    st.title("MemPalace")
    st.info(message)
    if st.button("Sign in", type="primary"):
        st.login()
    st.stop()


def signed_in_panel(palace: ScopedPalace, sign_in: bool) -> None:
    """Sidebar: who is signed in, with which role, and a sign-out button (which the palace records)."""
    if not sign_in:
        return
    grant = palace.grant
    wings = "every wing" if grant.every_wing else ", ".join(sorted({w for _, ws in grant.rules for w in ws}))
    st.caption(md(f"Signed in as {grant.actor.who} · {grant.role} · {wings}"))
    if st.button("Sign out", key="sign_out"):
        palace.sign_out(_issued_at())
        st.logout()


def refuse_signed_out(palace: ScopedPalace, sign_in: bool) -> None:
    """A sign-in the person has signed out of (say, a copy of its cookie kept elsewhere) counts as
    signed out: Streamlit keeps sign-ins only in cookies, so the palace remembers sign-outs."""
    if sign_in and palace.signed_out(_issued_at()):
        _sign_in_screen("You signed out. Sign in again to go on.")


def _issued_at() -> float:
    """When the ID token of this sign-in was issued (its `iat`; else its `exp`, which is later)."""
    for claim in ("iat", "exp"):
        value = st.user.get(claim)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return float("inf")  # no time at all: any sign-out since the server knew them ends it
