"""Palace files on disk: owner-only folders and files, the paths people give, and the locks that keep
one process per embedded palace."""

from .._faces import lazy_names

__all__ = ["LockTimeout", "OwnLock", "PalaceLock", "checked_path", "owner_dir", "owner_file", "read_own",
           "shown_path", "write_own"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["owner_dir", "owner_file", "read_own", "write_own"], "privacy"),
    **dict.fromkeys(["checked_path", "shown_path"], "paths"),
    **dict.fromkeys(["OwnLock", "PalaceLock", "LockTimeout"], "locks"),
})
