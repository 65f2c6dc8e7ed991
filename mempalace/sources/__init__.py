"""Sources kept in sync: folders and files filed as they grow, coding tools' session hooks and their
background queue, and where tools keep their conversations (`suggest`)."""

from .._faces import lazy_names

__all__ = ["file_transcript", "hook_tool", "install", "sync_sources", "uninstall"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["sync_sources", "file_transcript"], "sync"),
    **dict.fromkeys(["install", "uninstall", "hook_tool"], "hooks"),
})
