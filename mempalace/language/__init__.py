"""Words in any language, for naming and choosing rooms: which language a text is in and its words
(Chinese and Japanese segmented), word frequencies, parts of speech, Russian forms and scripts."""

from .._faces import lazy_names

__all__ = ["can_head", "given_names", "main_language", "stop_words", "text_languages", "words_in", "zipf"]
__getattr__ = lazy_names(__name__, {
    **dict.fromkeys(["main_language", "words_in", "text_languages", "stop_words"], "languages"),
    **dict.fromkeys(["zipf"], "frequency"),
    **dict.fromkeys(["can_head", "given_names"], "lexicon"),
})
