"""The `mempalace` command (`commands.run`): a thin front end over the core, one module per group of commands,
each loaded only when its command runs."""

from .._faces import lazy_names

__all__ = ["main", "run"]
__getattr__ = lazy_names(__name__, dict.fromkeys(["main", "run"], "commands"), former="commands")
