"""The one decorator that serialises a palace's methods on its lock."""

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
