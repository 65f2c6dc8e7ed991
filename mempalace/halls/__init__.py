"""Which of the five halls a drawer belongs in: a deterministic classifier (cues, shipped examples and a
fitted model) and what it reads of a drawer in any language."""

from .._faces import lazy_names

__all__ = ["HallClassifier", "classify_hall"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["HallClassifier", "classify_hall"], "classifier"),
})
