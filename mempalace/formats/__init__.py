"""Transcript formats: one module each (`accept` cheaply, `parse` strictly), tried in the order of one
table (`registry.FORMATS`: most specific first, plain text last)."""

from .._faces import lazy_names

__all__ = ["FORMATS", "Conversation", "Message", "Source", "detect", "parse"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["FORMATS", "detect", "parse"], "registry"),
    **dict.fromkeys(["Conversation", "Message", "Source"], "base"),
}, former="registry")
