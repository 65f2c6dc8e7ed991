"""The offline embedders, chosen by name and shipped inside registry packages (MiniLM-L6 int8,
USE-multilingual), and use-m3's fast-loading cache."""

from .._faces import lazy_names

__all__ = ["EMBEDDERS", "crosses_languages", "likeness_scale", "load_embedder"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["EMBEDDERS", "load_embedder", "likeness_scale", "crosses_languages"], "embedders"),
}, former="embedders")
