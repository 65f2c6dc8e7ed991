"""Decorators that run a palace's methods, or a scoped view's, under the palace's lock."""

from __future__ import annotations

import functools
from typing import Any, Callable


def serialized(method: Callable[..., Any]) -> Callable[..., Any]:
    """Run a Palace method under the palace's lock: the catalog and sync state are not thread-safe."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._guard:
            return method(self, *args, **kwargs)

    return wrapper


def checked_then_written(method: Callable[..., Any]) -> Callable[..., Any]:
    """Check and write in one step under the palace's lock, so no other thread of this process moves
    a drawer between the check and the write."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._palace.exclusive():
            return method(self, *args, **kwargs)

    return wrapper
