"""The one exception family the core raises; every message is written for the person reading it."""


class MempalaceError(Exception):
    """Base of every error the core raises on purpose."""


class InvalidInputError(MempalaceError, ValueError):
    """Content, a name, a hall, a query or a limit that cannot be accepted."""


class PalaceNotFoundError(MempalaceError):
    """No palace exists where one was asked for."""


class NotAPalaceError(MempalaceError):
    """The path exists but holds something other than a palace."""


class CorruptPalaceError(MempalaceError):
    """The palace files exist but Chroma cannot read them."""


class PalaceBusyError(MempalaceError):
    """Another process holds the embedded palace."""


class PalaceUnavailableError(MempalaceError):
    """A Chroma server could not be reached or answered with an error."""


class PalaceMovedError(PalaceUnavailableError):
    """The palace moved to another embedder during a write: nothing was written; trying again works."""

    @classmethod
    def while_reading(cls, embedder: str) -> "PalaceMovedError":
        """For drawers embedded before the palace moved to `embedder`."""
        return cls(f"This palace moved to the {embedder!r} embedder while these drawers were being read: nothing "
                   "was filed. File them again.")


class DrawerNotFoundError(MempalaceError, KeyError):
    """No drawer has the given id."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "drawer not found"


class EmbeddingModelError(MempalaceError):
    """The embedding model is missing, altered or cannot run."""


class ConfigError(MempalaceError):
    """A configuration value is missing or wrong."""


class UnsupportedFormatError(InvalidInputError):
    """No transcript format recognises the file."""


class MalformedSourceError(InvalidInputError):
    """A transcript claims a format but breaks its rules (bad JSON, missing fields)."""


class SourceRefusedError(InvalidInputError):
    """A file is refused before parsing: binary, too large, or an unsafe or oversized zip."""


class NotRegularFileError(SourceRefusedError):
    """A path names a FIFO, device or socket (never opened to read: a FIFO would wait for a writer)."""


class PlaceNotFoundError(MempalaceError, LookupError):
    """No room or wing has the given name."""


class AccessDeniedError(MempalaceError, PermissionError):
    """The signed-in person or token may not do this (their role or wings do not allow it)."""
