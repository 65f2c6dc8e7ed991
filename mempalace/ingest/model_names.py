"""Room names proposed by a language model the person runs (Ollama, llama.cpp's server, vLLM: any
OpenAI-compatible chat endpoint), off unless configured. Ingest sends a new room's candidate phrases
and a few lines of it, and takes the answer when it is a short name no person or other room has, within
a time budget; otherwise the offline name stands."""

from __future__ import annotations

import ipaddress
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError, InvalidInputError
from ..naming import room_slug
from .lexicon import given_names

SAMPLE_LINES = 3  # lines of the room sent, the first of as many of its conversations
SAMPLE_CHARS = 300  # of each line
CANDIDATES = 10  # the offline ranking's best names sent
MOST_WORDS = 4
MOST_CHARS = 40
REQUEST_SECONDS = 15.0  # the most one request may take, within the ingest's budget
PROMPT = (
    "You name topics in a person's archive of chats. Reply with only a short noun phrase (1 to 3 words) "
    "naming what these conversations are about, in the language most of the lines are written in, as a "
    "librarian would label a shelf. Never a person's name. Prefer one of the candidate phrases when one "
    "names the topic; otherwise write a better one.")

Propose = Callable[[Sequence[str], Sequence[str]], "str | None"]  # (candidates, lines) -> a room name or None


@dataclass(frozen=True)
class ModelEndpoint:
    """Where the model is: an OpenAI-compatible base URL (…/v1), the model's name, an optional key."""

    url: str
    model: str
    api_key: str = ""


def endpoint_of(url: str, model: str, api_key: str = "", allow_remote: bool = False) -> ModelEndpoint | None:
    """The configured endpoint, None when none is; a URL that is not http(s), or (unless `allow_remote`)
    not on this machine, is a ConfigError: the lines sent are the person's conversations."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"names_endpoint {url!r} is not an http(s) URL.")
    if not model:
        raise ConfigError("names_endpoint is set but names_model is not: say which model names rooms.")
    if not allow_remote and not _on_this_machine(parts.hostname):
        raise ConfigError(f"names_endpoint {url!r} is not on this machine; set names_allow_remote = true to send "
                          "room samples to it.")
    return ModelEndpoint(url.rstrip("/"), model, api_key)


def model_names_for(settings: Any) -> Callable[[], ModelNamer] | None:
    """A maker of a fresh `ModelNamer` (its own time budget) per naming, when settings name an endpoint."""
    endpoint = endpoint_of(settings.names_endpoint, settings.names_model, settings.names_api_key,
                           settings.names_allow_remote)
    if endpoint is None:
        return None
    return lambda: ModelNamer(endpoint, settings.names_seconds)


def _on_this_machine(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ModelNamer:
    """Asks the endpoint for room names, one request per room, until `budget` seconds are spent; any
    failure (refused, timed out, not JSON, an unusable answer) leaves the offline name."""

    def __init__(self, endpoint: ModelEndpoint, budget: float):
        self.endpoint = endpoint
        self._deadline = time.monotonic() + budget

    def __call__(self, candidates: Sequence[str], lines: Sequence[str]) -> str | None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            answer = self._ask(candidates, lines, min(left, REQUEST_SECONDS))
        except Exception:  # noqa: BLE001 - a model that fails must never fail the ingest
            return None
        return usable_name(answer)

    def _ask(self, candidates: Sequence[str], lines: Sequence[str], seconds: float) -> str:
        import httpx

        body = {"model": self.endpoint.model, "temperature": 0, "max_tokens": 24, "messages": [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": request_text(candidates, lines)}]}
        headers = {"Authorization": f"Bearer {self.endpoint.api_key}"} if self.endpoint.api_key else {}
        reply = httpx.post(f"{self.endpoint.url}/chat/completions", json=body, headers=headers, timeout=seconds)
        reply.raise_for_status()
        return str(reply.json()["choices"][0]["message"]["content"])


def request_text(candidates: Sequence[str], lines: Sequence[str]) -> str:
    """What is sent about one room: its best candidate names and a few of its lines, cut short."""
    shown = [" ".join(line.split())[:SAMPLE_CHARS] for line in lines[:SAMPLE_LINES]]
    return ("Candidate phrases: " + ", ".join(candidates[:CANDIDATES]) + "\nLines:\n"
            + "\n".join(f"- {line}" for line in shown))


def usable_name(answer: str) -> str | None:
    """The answer as a room name: its first line without quotes or a label, slugged, when it is short
    and names no person; else None."""
    line = next((x for x in answer.strip().splitlines() if x.strip()), "")
    line = re.sub(r"^\s*(?:name|topic|room)\s*[:：]\s*", "", line, flags=re.IGNORECASE).strip(" \t\"'`*.。「」“”")
    try:
        slug = room_slug(line)
    except InvalidInputError:
        return None
    words = slug.split("-")
    if len(words) > MOST_WORDS or len(slug) > MOST_CHARS or set(words) & given_names():
        return None
    return slug
