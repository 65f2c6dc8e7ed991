"""Which of the five halls a drawer belongs in: a deterministic classifier of two documented parts.

1. Cues: each hall has weighted patterns (phrases, tenses, times, imperatives); a text's cue score
   for a hall is the sum of the weights of the patterns found in it (each counted once).
2. Examples: `hall_examples.jsonl` holds 170 labelled examples; each hall's centroid is the mean of
   its examples' vectors (shipped for the default model, cached for others), and a drawer's
   similarity to the five centroids is z-scored.
The hall is the argmax of cue score / best cue score + z-score (ties: earlier in `_ORDER`). Without
a vector only the cues decide, and a text with no cue at all is a fact.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

import numpy as np

_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MONTHS = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"

_IMPERATIVE = (
    r"(?:use|run|add|set|install|check|keep|make|put|open|start|avoid|pin|turn|switch|call|write|store|back up|"
    r"restart|drink|eat|book|pack|bring|wrap|let|go|take|ask|read|limit|split|move|stop|save|measure|test|plan|"
    r"skip|replace|rotate|enable|disable|apply|preheat|soak|stretch|water|get|click|focus|drop|give|do|be|stay|"
    r"aim|pick|choose|wait|grab|buy|clean|follow|remove|delete|update|upgrade|review|lower|raise|increase|"
    r"reduce|cut|bump|double|try|label|schedule|leave|sleep|cover|freeze|warm|cool|ship|document|log)\b"
)
_CUES: dict[str, list[tuple[str, float]]] = {
    "hall_discoveries": [
        (r"\bturns? out\b|\bturned out\b", 3), (r"\broot cause\b", 3), (r"\bfound (?:out )?(?:that|why|the)\b", 2),
        (r"\brealiz|\brealis", 2.5), (r"\bdiscover", 2.5), (r"\b(?:was|were|is) (?:actually )?(?:caused|triggered) by\b", 3),
        (r"\bthe (?:real )?(?:problem|issue|bug|culprit|reason|cause) (?:was|is|here)\b", 2.5), (r"\bfigured out\b", 2.5),
        (r"\bnoticed\b", 1.5), (r"\bapparently\b", 1.5), (r"\bsurpris", 1.5), (r"\bit was (?:because|due to)\b", 2.5),
        (r"\b(?:traced|narrowed) (?:it )?(?:down )?to\b", 2.5), (r"\blearn(?:ed|t) (?:that|how)\b", 2),
        (r"\binsight\b", 2), (r"\bdue to\b", 1.5), (r"\bexplains? why\b", 2.5),
        (r"\bthat'?s why\b", 2), (r"\bwhich means\b", 1), (r"\bmystery\b", 1.5), (r"\bthe fix was\b", 2),
        (r"\bgotcha\b", 1.5), (r"\b(?:showed|shows|revealed|reveals|confirmed that)\b|\baha\b|\bthe reason\b", 2),
        (r"\bi (?:had )?assumed\b|\bcame in with\b|\bsilently\b|\blearned why\b|\bkept \w+ing\b", 1.5),
        (r"\bwas (?:an?|the) [\w -]{3,40}(?:being|that|which)\b|\bso this is\b|\bso that'?s\b", 1.5), (r"\bcame from\b|\bcomes from\b|\bstems? from\b", 2),
        (r"\bwe (?:had )?(?:thought|assumed|expected)\b|\b(?:like|than) we (?:thought|assumed|expected)\b", 2),
        (r"\bwasn'?t\b[^.]*\bat all\b|\bisn'?t\b[^.]*\bat all\b", 2), (r"\bfound it\b|\binteresting\b", 2),
        (r"\blines? up with\b|\bcorrelat|\bcoincid", 2), (r"\bbecause\b", 1.5), (r"\bso every\b|\bwhich is why\b", 1.5),
        (r"\b(?:looking|digging) (?:at|into)\b|\bafter (?:segmenting|profiling|digging|checking|bisecting)\b", 1.5), (r"\bit seems\b|\bseems like\b|\bappears to\b", 1), (r"\bso the\b", 0.5),
    ],
    "hall_preferences": [
        (r"\bi (?:really |much |strongly )?prefer\b|\bprefers?\b|\bpreference\b", 3), (r"\bfavou?rite\b", 3),
        (r"\b(?:i|we|she|he|they) (?:really |absolutely )?(?:love|like|enjoy|hate|dislike|adore|detest)s?\b", 2.5),
        (r"\b(?:loves|likes|enjoys|hates|dislikes)\b", 2.5), (r"\bcan'?t stand\b", 3), (r"\bnot a (?:big )?fan\b|\bfan of\b", 2.5),
        (r"\b(?:always|never|usually|rarely|tends? to|every (?:morning|evening|day|night|week))\b", 1.25),
        (r"\bi'?d rather\b|\bwould rather\b", 3), (r"\brather than\b|\binstead of\b", 1), (r"\bgo-to\b", 2.5), (r"\bhabit\b", 2.5),
        (r"\bmy (?:style|taste|way)\b", 2), (r"\bin my opinion\b|\bi think .* (?:better|nicer|overrated)\b", 1.5),
        (r"\bto me\b|\bfor me\b", 0.75), (r"\bpicky\b|\bcomfortable with\b|\bbothers? me\b", 1.5),
        (r"\bwon'?t (?:eat|drink|use|touch)\b|\bdoesn'?t (?:eat|drink)\b|\bnever (?:eats|drinks|uses)\b", 2),
        (r"\bannoy|\bdrives me\b|\bcozy\b|\bcosy\b", 1.5), (r"\bmorning person\b|\bnight owl\b", 2.5),
        (r"\bonly (?:\w+s|drinks|eats|uses|reads|wears|takes|books|buys)\b", 1.5), (r"\bwhenever\b", 1.25),
        (r"\bfavou?rs\b|\bpushes back\b|\b\w+ person\b|\bkeep coming back\b|\bfor me\b|\bi get (?:lost|bored|annoyed)\b", 2),
        (r"\bpicks\b|\bopts for\b|\bsticks (?:to|with)\b|\bswears by\b", 2),
    ],
    "hall_advice": [
        (r"\byou (?:should|could|might want to|may want to|need to|have to|must|can)\b", 2.5),
        (r"\b(?:i|we) (?:would |'d )?(?:recommend|suggest|advise)\b|\brecommend|\bsuggest", 2.5),
        (r"\bmake sure\b|\bbe sure to\b|\bremember to\b|\bdon'?t forget\b", 2.5), (r"\bbest practice\b|\btip\b", 2.5),
        (r"\bavoid\b|\bnever (?:use|run|commit|push|store)\b", 1.5), (r"\btry (?:to|using|adding|running)?\b", 1.25),
        (r"\bconsider\b|\bit'?s (?:better|best|wise|worth) to\b|\bbetter to\b", 2), (r"\bhow to\b|\bstep \d\b", 2),
        (rf"(?:^|[.!?:;]\s+|\n\s*(?:[-*]|\d+[.)])?\s*){_IMPERATIVE}", 2),
        (rf"(?:^|[.!?]\s+|\n)(?:to|before|after|when|if|once|for|while)\b[^.!?\n]*?,\s*(?:then )?{_IMPERATIVE}", 2),
        (r"\byou'?ll want to\b|\byou want to\b|\bdon'?t bother\b|\bno need to\b|\bfocus on\b", 2.5),
        (r"\bdon'?t\b|\bdo not\b", 0.75), (r"\bnext time\b|\bahead of time\b|\bbefore you\b|\bhow do i\b", 1.5), (r"\bif i were you\b|\bgive it a (?:go|try)\b|\bworth (?:it|trying)\b", 2.5),
        (r"\bif you\b", 1.25), (r"\bshould\b", 1), (r"\binstead\b", 0.5), (r"\bwould help\b|\bwill help\b", 1),
        (r"\bthe trick is\b|\bthe key is\b|\brule of thumb\b", 2.5), (r"\bhere'?s how\b|\bthe way to\b", 2.5),
    ],
    "hall_events": [
        (r"\b(?:yesterday|today|tonight|this (?:morning|afternoon|evening|week)|last (?:night|week|month|year|"
         rf"{_DAYS})|(?:on|last|next|this) {_DAYS}|\d+ (?:days|weeks|months|years) ago|earlier today)\b", 2.5),
        (rf"\b(?:in|on|since) {_MONTHS}\b|\b{_MONTHS} \d{{1,2}}\b|\b\d{{4}}-\d\d-\d\d\b|\b(?:19|20)\d\d\b", 1),
        (r"\b(?:at|around) \d{1,2}(?::\d\d)?\s*(?:am|pm)?\b", 1),
        (r"\b(?:meeting|standup|stand-up|retro|kickoff|kick-off|offsite|demo day|all-hands|workshop|conference|"
         r"wedding|birthday|party|trip|visit|interview|launch|outage|incident|release|milestone|ceremony|hackathon)\b", 1.5),
        (r"\b(?:happened|launched|released|shipped|deployed|went live|went down|crashed|rolled back|migrated|"
         r"held|hosted|attended|visited|celebrated|kicked off|wrapped up|finished|completed|started|began|met|"
         r"announced|merged|signed|closed|hired|joined|left|moved|arrived|landed|flew|passed|won|lost|"
         r"broke|failed|presented|gave a talk|graduated|ran)\b", 1.5),
        (r"\bwe (?:had|did|got|were|went)\b|\bi (?:had|went|got|was)\b", 1), (r"\bfinally\b|\bjust now\b", 0.75),
        (r"\bfor the first time\b", 1.5), (r"\bwent in\b|\bshowed (?:off|the)\b|\bwalked (?:us )?through\b|\bdemo(?:ed)?\b", 1.5),
    ],
    "hall_facts": [
        (r"\b(?:we|they|i|the team) (?:decided|agreed|chose|settled on|picked|went with|are going with|will use)\b", 3),
        (r"\bdecision\b|\bdecided\b|\bagreed\b|\bsettled\b|\bofficial(?:ly)?\b|\bfinal call\b", 3.5),
        (r"\b(?:is|are) (?:set to|configured|located|stored|hosted|based|owned|written|built)\b", 2),
        (r"\b(?:the|our|my|his|her|their) \w+(?: \w+)? (?:is|are|has|have|costs?|takes?|runs?|lives?|starts?|ends?|begins?) ", 0.75),
        (r"\b(?:limit|deadline|version|budget|price|capacity|port|address|default|policy|rule|owner|"
         r"requirement|standard|spec|quota|timeout|schedule|plan) (?:is|are|of)\b", 2),
        (r"\b\d+(?:\.\d+)?\s?(?:%|ms|gb|mb|tb|kb|px|km|kg|usd|eur|dollars|euros|requests|users)\b", 0.75),
        (r"\bversion \d|\bv\d+\.\d|\bcapped at\b|\bruns version\b|\bends (?:on )?\w+ \d", 1.5),
        (r"\bgoing with\b|\b\w+ (?:check )?done:|\bevery (?:monday|tuesday|wednesday|thursday|friday|week|month)\b", 1.5),
        (r"\bvalid (?:until|through|for)\b|\bexpires?\b|\bnot\b [^.]{0,30}\bbut\b", 1),
        (r"\bruns on\b|\bdepends on\b|\bconsists of\b|\bwill support\b|\brequires\b", 1),
        (r"\bgoing forward\b|\bfrom now on\b|\bfinal\b|\bconfirmed\b|\bsource of truth\b", 2),
        (r"\b(?:born|allergic|married|lives in|works (?:at|as|on)|is (?:a|an|the))\b", 1),
    ],
}
_ORDER = ("hall_facts", "hall_discoveries", "hall_advice", "hall_preferences", "hall_events")


class _Cue:
    """A cue pattern, searched fast: a leading `\\b` hides the literal start `re` skips ahead by, so it
    is dropped from the pattern and checked by hand at each candidate start (same matches)."""

    def __init__(self, pattern: str):
        branches = _top_level_branches(pattern)
        self.bounded = all(b.startswith("\\b") for b in branches)
        self.regex = re.compile("|".join(b[2:] for b in branches) if self.bounded else pattern)

    def found(self, text: str) -> bool:
        if not self.bounded:
            return self.regex.search(text) is not None
        match = self.regex.search(text)
        while match is not None:
            start = match.start()
            if _is_word(text, start - 1) != _is_word(text, start):
                return True
            match = self.regex.search(text, start + 1)
        return False


def _is_word(text: str, index: int) -> bool:
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


def _top_level_branches(pattern: str) -> list[str]:
    """`a|(b|c)|d` → [`a`, `(b|c)`, `d`]: the alternatives outside any group or class."""
    branches, depth, start, index, in_class = [], 0, 0, 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            branches.append(pattern[start:index])
            start = index + 1
        index += 1
    return [*branches, pattern[start:]]


_COMPILED = {hall: [(_Cue(p), w) for p, w in cues] for hall, cues in _CUES.items()}  # on lowercased text


class HallClassifier:
    """Cue scores plus similarity to the labelled examples' centroids, for one embedding model."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray], cache_dir: Path | None = None, model: str = ""):
        name = centroids_file_name(model)
        shipped = resources.files(__package__).joinpath(name)
        cached = cache_dir / name if cache_dir else None
        if shipped.is_file() or (cached and cached.is_file()):
            with (shipped if shipped.is_file() else cached).open("rb") as handle:  # type: ignore[union-attr]
                self._centroids = np.load(handle)
            return
        self._centroids = compute_centroids(embed)
        if cached:
            cached.parent.mkdir(parents=True, exist_ok=True)
            np.save(cached.with_suffix(".tmp.npy"), self._centroids)
            cached.with_suffix(".tmp.npy").replace(cached)

    def classify(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> list[str]:
        """The hall of each text; with its vector, the examples vote too."""
        if vectors is None:
            return [classify_hall(text) for text in texts]
        halls = []
        for row, text in enumerate(texts):
            scores = hall_scores(text)
            cues = np.array([scores[h] for h in _ORDER])
            similarity = self._centroids @ vectors[row]
            total = (cues / cues.max() if cues.max() > 0 else cues) + (similarity - similarity.mean()) / (
                similarity.std() + 1e-9)
            halls.append(_ORDER[int(np.argmax(total))])
        return halls


def centroids_file_name(model: str) -> str:
    """Named by the model and the examples' digest, so edited examples never meet stale centroids."""
    raw = resources.files(__package__).joinpath("hall_examples.jsonl").read_text("utf-8")
    return f"hall_centroids_{model or 'model'}_{hashlib.sha256(f'{model}{chr(0)}{raw}'.encode()).hexdigest()[:16]}.npy"


def save_shipped_centroids() -> Path:
    """Write the default model's centroids into the package (after editing hall_examples.jsonl)."""
    from ..embedding import MiniLMInt8

    path = Path(__file__).with_name(centroids_file_name("minilm-int8"))
    np.save(path, compute_centroids(MiniLMInt8().embed).astype(np.float32))
    return path


def compute_centroids(embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """Each hall's unit-length mean vector over its labelled examples, in `_ORDER`."""
    raw = resources.files(__package__).joinpath("hall_examples.jsonl").read_text("utf-8")
    examples = [json.loads(line) for line in raw.splitlines() if line.strip()]
    vectors = embed([e["text"] for e in examples])
    labels = np.array([_ORDER.index(e["hall"]) for e in examples])
    centroids = np.stack([vectors[labels == i].mean(axis=0) for i in range(len(_ORDER))])
    return centroids / np.linalg.norm(centroids, axis=1, keepdims=True)


def hall_scores(text: str) -> dict[str, float]:
    """The cue score of `text` for every hall."""
    text = text.lower()
    return {hall: sum(w for cue, w in cues if cue.found(text)) for hall, cues in _COMPILED.items()}


def classify_hall(text: str) -> str:
    """The hall by cues alone (no vector): the best cue score, and a fact when no cue is found."""
    scores = hall_scores(text)
    best = max(_ORDER, key=lambda hall: (scores[hall], -_ORDER.index(hall)))
    return best if scores[best] > 0 else "hall_facts"
