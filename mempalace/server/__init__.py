"""A shared palace's Chroma server: one per palace folder, found through a file in the folder and
started on demand, its store, and the lease that keeps it alive while a front end is open."""

from .._faces import lazy_names

__all__ = ["KeptInUse", "Lease", "SharedStore", "host_alive", "shared_server", "sync_status"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["shared_server", "Lease", "host_alive"], "starting"),
    **dict.fromkeys(["SharedStore"], "shared_store"),
    **dict.fromkeys(["KeptInUse", "sync_status"], "keep_alive"),
})
