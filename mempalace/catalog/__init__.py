"""The palace's SQLite sidecars: the catalog derived from Chroma (its build, keeping it in step, keyword
search, vector and date reads, the write journal), the change log and the source book."""

from .._faces import lazy_names

__all__ = ["CATALOG_FILE", "Catalog", "CatalogSync", "ChangeBook", "SourceBook"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["Catalog", "CATALOG_FILE"], "catalog"),
    **dict.fromkeys(["CatalogSync"], "sync"),
    **dict.fromkeys(["ChangeBook"], "change_log"),
    **dict.fromkeys(["SourceBook"], "source_book"),
}, former="catalog")
