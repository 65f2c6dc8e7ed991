"""Chroma's view of our embedders, attached to the drawers collection so Chroma never falls back to
its own default, which downloads a model at run time."""

from __future__ import annotations

from typing import Any

from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

from ..embedding.embedders import load_embedder


@register_embedding_function
class PalaceEmbeddingFunction(EmbeddingFunction[Documents]):
    """The palace's embedder (loaded on first use) as a Chroma embedding function."""

    def __init__(self, embedder: Any = None, embedder_name: str = "minilm-int8"):
        self._name = getattr(embedder, "name", embedder_name)
        self._embedder = embedder

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            self._embedder = load_embedder(self._name)
        return self._embedder

    def __call__(self, input: Documents) -> Embeddings:
        return list(self.embedder.embed(list(input)))

    @staticmethod
    def name() -> str:
        return "mempalace"

    def default_space(self) -> str:  # type: ignore[override]
        return "cosine"

    def supported_spaces(self) -> list[str]:  # type: ignore[override]
        return ["cosine"]

    def get_config(self) -> dict[str, Any]:
        return {"embedder": self._name}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> "PalaceEmbeddingFunction":
        return PalaceEmbeddingFunction(embedder_name=config.get("embedder", "minilm-int8"))
