"""Room names proposed by a language model the person runs (Ollama, llama.cpp's server, vLLM: any
OpenAI-compatible chat endpoint), off unless configured. Ingest sends a new room's candidate phrases
and a few lines of it, and takes the answer when it is a short name no person or other room has, within
a time budget; otherwise the offline name stands."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InvalidInputError
from ..language.lexicon import given_names
from ..text.names import room_slug
from .naming import GENERAL
from .part_phrases import slug_words
from .words import GENERIC, NOT_TOPIC_WORDS

SAMPLE_LINES = 3  # lines of a room sent: the first drawer of each of its first parts (conversations or their topics)
SAMPLE_CHARS = 300  # of each line
CANDIDATES = 10  # the offline ranking's best names sent
MOST_WORDS = 4
MOST_CHARS = 40
REQUEST_SECONDS = 15.0  # the most one request's connect, or a read, may take, within the ingest's budget
MOST_TOKENS = 24  # of the answer: a name, not an essay
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL)
PROMPT = (
    "You name topics in a person's archive of chats. Reply with only a short noun phrase (1 to 3 words) "
    "naming what these conversations are about, in the language most of the lines are written in, as a "
    "librarian would label a shelf. Never a person's name. Prefer one of the candidate phrases when one "
    "names the topic; otherwise write a better one.")

Propose = Callable[[Sequence[str], Sequence[str]], "str | None"]  # (candidates, lines) -> a room name or None


def model_names_for(settings: Any) -> ModelNamer | None:
    """A namer for one ingest (its own time budget) when settings name an endpoint (checked when the
    settings were read: `config.check_names_endpoint`)."""
    if not settings.names_endpoint:
        return None
    return ModelNamer(settings.names_endpoint.rstrip("/"), settings.names_model, settings.names_api_key,
                      settings.names_seconds)


class ModelNamer:
    """Asks the endpoint at `url` for room names, one request per room, until `budget` seconds are
    spent; any failure (refused, timed out, not JSON, an unusable answer) leaves the offline name and
    is kept in `failed` for the ingest report."""

    def __init__(self, url: str, model: str, api_key: str, budget: float):
        self.url, self.model, self._key = url, model, api_key
        self._deadline = time.monotonic() + budget
        self.asked = self.named = self._said = 0
        self.failed: str | None = None  # the last failure, for the report

    def __call__(self, candidates: Sequence[str], lines: Sequence[str]) -> str | None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            self.failed = self.failed or f"no time left of names_seconds ({self.asked} asked)"
            return None
        self.asked += 1
        try:
            answer = self._ask(candidates, lines, min(left, REQUEST_SECONDS))
        except Exception as exc:  # noqa: BLE001 - a model that fails must never fail the ingest
            self.failed = f"{type(exc).__name__}: {exc}"[:200]
            return None
        name = usable_name(answer) if isinstance(answer, str) else None
        self.named += name is not None
        return name

    def note(self) -> str | None:
        """What the report says of the names since the last note: how many the model gave, or why none."""
        named, self._said = self.named - self._said, self.named
        failed, self.failed = self.failed, None
        if named:
            return f"{named} room name{'s' if named != 1 else ''} from the model {self.model}"
        return f"no room name from the model {self.model} ({failed}); offline names kept" if failed else None

    def _ask(self, candidates: Sequence[str], lines: Sequence[str], seconds: float) -> object:
        import httpx

        body = {"model": self.model, "temperature": 0, "max_tokens": MOST_TOKENS, "messages": [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": request_text(candidates, lines)}]}
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        # trust_env=False: no proxy from the environment ever sees the lines or the key
        reply = httpx.post(f"{self.url}/chat/completions", json=body, headers=headers, timeout=seconds,
                           trust_env=False)
        reply.raise_for_status()
        return reply.json()["choices"][0]["message"]["content"]


def request_text(candidates: Sequence[str], lines: Sequence[str]) -> str:
    """What is sent about one room: its best candidate names and a few of its lines, cut short."""
    shown = [" ".join(line.split())[:SAMPLE_CHARS] for line in lines[:SAMPLE_LINES]]
    return ("Candidate phrases: " + ", ".join(candidates[:CANDIDATES]) + "\nLines:\n"
            + "\n".join(f"- {line}" for line in shown))


def usable_name(answer: str) -> str | None:
    """The answer as a room name: its first line (after any `<think>` part) without quotes or a label,
    slugged, when it is short, names no person and says something (not `general`, `misc`, `sure`)."""
    answer = _THINKING.sub("", answer)
    if "<think>" in answer:
        return None  # still thinking when its tokens ran out
    line = next((x for x in answer.strip().splitlines() if x.strip()), "")
    line = re.sub(r"^\s*(?:name|topic|room)\s*[:：]\s*", "", line, flags=re.IGNORECASE).strip(" \t\"'`*.。「」“”")
    try:
        slug = room_slug(line)
    except InvalidInputError:
        return None
    words = slug.split("-")
    if len(words) > MOST_WORDS or len(slug) > MOST_CHARS or set(words) & given_names():
        return None
    said = [w for token in re.findall(r"[\w-]+", line.lower()) for w in slug_words(token)]  # `On-call`: one word
    if slug == GENERAL or set(said) <= GENERIC | NOT_TOPIC_WORDS:
        return None
    return slug
