"""Copies people keep: backups of a palace in use, drawers as portable JSON Lines, and search results
or the audit log as Markdown and CSV."""

from .._faces import lazy_names

__all__ = ["export_lines", "hits_to_csv", "hits_to_markdown", "import_lines", "restore_backup", "verify_backup",
           "write_backup"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["write_backup", "verify_backup", "restore_backup"], "backup"),
    **dict.fromkeys(["export_lines", "import_lines"], "portable"),
    **dict.fromkeys(["hits_to_markdown", "hits_to_csv"], "export"),
})
