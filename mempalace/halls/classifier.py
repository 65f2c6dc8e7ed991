"""Which of the five halls a drawer belongs in, or none: a deterministic classifier of three parts.

1. Focus (`text`): the prose people wrote, without tool lines, code, output, links, labels,
   social phrases (hello, thanks, good luck) and questions; lines of code given are counted, and
   social talk is scored as chatter, the cue of no hall.
2. Cues: each hall has weighted patterns (phrases, tenses, times, imperatives, requests); a focus's
   cue score for a hall is the sum of the weights of the patterns found in it (each counted once), a
   user's own turns counting twice (their request says what the exchange is for: code, a fix or a
   review asked for is advice, a question answered is a fact).
3. Examples: `hall_examples.jsonl` (short statements and exchanges) and `hall_examples_chats.jsonl`
   (exchanges shaped like real drawers: two friends chatting, Slack channels with bot notifications,
   User/Assistant turns with tool lines) hold labelled examples, some with no hall (greetings, pep
   talk, tool-only turns, logs, ideas without a date, kinds mixed evenly). From them alone (fixed,
   deterministic; shipped for the default model, cached for others) come each hall's centroid, and
   no hall's, and a logistic regression on a drawer's vector plus its cue features.
Each hall's total, and no hall's, is its cue score / max(best cue score, `CUE_FLOOR`), weighted more in
longer drawers, plus its z-scored similarity to the centroids; the totals' softmax and the
regression's probabilities are averaged and the likeliest wins (ties: earlier in `_ORDER`). No hall
(None) when the focus holds almost nothing or when no hall is the likeliest: a drawer with no clear
kind gets no hall rather than a wrong one, which would mislead a search by hall. Without a vector
only the cues decide, and a focus with words but no cue is a fact. Measured in benchmarks/halls_real.py.
A focus not in English (`local`) is also read with its language's cues, and gets the hall chosen
only when those cues name it alone (`LOCAL_CUE_MIN`), else none (benchmarks/halls_multilingual.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from ..files.privacy import owner_dir
from ..text.cjk import CJK_RUN
from .local import LOCAL_CUES
from .text import QUOTES, Cue, Focus, focus

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
        (r"\b(?:i'?m|i am|he'?s|she'?s|they'?re|we'?re) (?:really |totally |so |such |a (?:huge |"
         r"big )?)?(?:into|obsessed with|passionate about|hooked on|crazy about|fan)\b", 2.5),
        (r"\b(?:don'?t|do not|doesn'?t|does not|never) (?:really |much )?(?:like|enjoy|love|care for)\b|"
         r"\bhooked\b|\bgot (?:me|him|her|us) into\b", 2.5),
        (r"\bfave\b|\btop pick\b|\bhobb(?:y|ies)\b|\bpassion(?:ate)?\b|\bdrawn to\b|\bmy weakness\b|\bhappy place\b", 2),
        (r"\bstress relief\b|\bhelps? me (?:relax|unwind|de-?stress|recharge)\b|\bgives? me (?:so much |tons of )?joy\b", 2),
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
        (r"\b(?:can|could|would) you (?:please )?(?:write|create|make|generate|fix|review|refactor|check|"
         r"show|explain how to)\b", 2.5),
        (r"\b(?:please )?(?:write|create|generate|implement|fix|review|refactor|debug|"
         r"optimi[sz]e) (?:me |a |an |my |this |these |the |some )", 2),
        (r"\bany (?:tips|advice|suggestions|recommendations|pointers)\b|\bwhat (?:should|would) (?:i|you)\b", 2),
        (r"\b(?:good|great|nice|helpful|useful|solid) (?:intro|introduction|read|book|guide|tutorial|"
         r"article|video|talk|course|resource|overview)\b", 2.5),
        (r"\bmaybe (?:try|you could|consider)\b|\bhave you (?:tried|considered)\b|\bwhy not\b|\byou gotta\b", 2),
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
        (r"\b(?:big|crazy|great|exciting|good|sad|bad|some) news\b|\bguess what\b|\bhappened to me\b", 2),
        (r"\bthe other day\b|\blast weekend\b|\bthis (?:past )?weekend\b|\ba (?:few|"
         r"couple(?: of)?) (?:days|weeks|months) ago\b|"
         r"\brecently\b|\btomorrow\b|\bnext (?:week|month|year|weekend)\b|\bupcoming\b|\bcoming up\b", 2),
        (r"\b(?:just|finally) (?:\w+ed|got|went|made|took|had|met|won|ran|saw|bought|found|began|wrote|"
         r"sent|gave|came|heard|sold|built)\b", 2),
        (r"\b(?:i|we) (?:\w+ed|went|got|made|took|met|won|saw|bought|found|began|wrote|sent|gave|came|"
         r"sold|built|flew|drove|spent|tried)\b", 1.5),
        (r"\b(?:i'?m|i am|we'?re|we are) (?:going to|gonna|planning|thinking (?:of|about)|about to|hoping to)\b|"
         r"\bplan(?:ning)? to\b", 2.5),
        (r"\bnew commits? by\b|\bwas (?:pushed|deleted|merged|opened|closed|reopened|created|assigned|deployed) by\b|"
         r"\bmerged? (?:pull request|branch)\b|\bbuild #?\d* ?(?:passed|failed|succeeded|broke|fixed)\b", 4),
        (r"\b(?:created|opened|filed|closed|merged|reopened) (?:an? |the )?(?:issue|ticket|pr|"
         r"pull request|bug report)\b", 2),
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
        (r"\b(?:i'?m|i am|he'?s|she'?s|they'?re) (?:allergic|married|engaged|divorced|vegan|vegetarian|"
         r"left-handed|retired)\b", 2.5),
        (r"\b(?:i'?ve|i have|we'?ve|we have|they'?ve) (?:had|owned|lived|worked|"
         r"been)\b[^.!?]{0,40}\bfor (?:\d+|a few|several|many|two|three|four|five|ten) (?:years|months)\b", 2),
        (r"\b(?:i|we|they) (?:live|grew up|was born|were born) in\b|\b\d+ (?:years?|months?) old\b|"
         r"\bi'?ve had (?:him|her|it|them)\b|"
         r"\bnamed (?:him|her|it|them)\b|\b(?:i|we) (?:have|own) (?:a|an|two|three|four|five|"
         r"\d+) (?!(?:lot|bit|few|great|good|blast)\b)\w+", 2),
        (r"\b(?:i|we) work (?:on|at|as|in|with|for)\b|\b(?:i|we)'?ve (?:worked|built|made|studied|used|"
         r"written|played)\b", 2),
        (r"\bstands for\b|\bis named\b|\bnamed (?:him|her|it|them)\b|\bis called\b|\bworks by\b|\bis used (?:to|for)\b|"
         r"\bthe difference between\b|\bis made (?:of|from)\b|\bis a (?:type|kind|form) of\b", 2),
        (r"\bhow (?:does|do|is|are) [^.?!]{1,60} work|\bexplain\b|\bwhat(?: is|'s| are| does) (?:a |an |"
         r"the )?\w+|\btell me about\b|"
         r"\bwhat'?s new in\b|\b(?:latest|new) features\b|\bdifference between\b|"
         r"\b\d+ ?[*\u00d7+^] ?\d+\b|\b\d+ (?:times|plus|minus|divided by) \d+\b", 1.5),
        (r"\b(?:we|they|i|the team) (?:decided|agreed|chose|settled on|picked|went with|are going with|will use)\b", 3),
        (r"\bdecision\b|\bdecided\b|\bagreed\b|\bsettled\b|\bofficial(?:ly)?\b|\bfinal call\b", 3.5),
        (r"\b(?:is|are) (?:set to|configured|located|stored|hosted|based|owned|written|built)\b", 2),
        (r"\b(?:the|our|my|his|her|their) \w+(?: \w+)? (?:is|are|has|have|costs?|takes?|runs?|lives?|"
         r"starts?|ends?|begins?) ", 0.75),
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
CUE_FLOOR = 4.0  # a best cue score below this counts for less than the full cue weight (weak evidence)
CUE_WEIGHT, LONG_CUE_WEIGHT, LONG_WORDS = 2.0, 2.0, 100  # cues weigh 2 in a short text, 4 from 100 words on
NO_HALL_BIAS = -0.5  # no hall must beat the halls by this much more: a clean sentence rarely gets none
MIN_WORDS = 4  # fewer words and numbers say nothing (a bare link, a traceback, a tool-only turn)
USER_WEIGHT = 1.0  # a user's turns count this much again: their request decides what it is for
CODE_GIVEN = 4.0  # the advice score of a drawer that gives code
CODE_LINES = 3  # this many lines of written code (not output) are code given: advice
# A hall is shown only when the evidence is clear: a drawer of more than ONE_STATEMENT_WORDS words (an
# exchange, where a hall may fit one message and not the rest) gets its likeliest hall only at this
# probability or more: the lowest thresholds with which every hall shown at least 10 times on DEV and
# the 341 training drawers (short ones included) is right 85 % of the time there, for the most drawers
# given a hall (benchmarks/halls_real.py --curve); a shorter text says one thing: its likeliest hall.
CLEAR = {"hall_facts": 0.85, "hall_discoveries": 0.85, "hall_advice": 0.85, "hall_preferences": 0.90,
         "hall_events": 0.70}
ONE_STATEMENT_WORDS = 30


_COMPILED = {hall: [(Cue(p), w) for p, w in cues] for hall, cues in _CUES.items()}  # on lowercased text
_LOCAL_COMPILED = {hall: [(Cue(p), w) for p, w in cues] for hall, cues in LOCAL_CUES.items()}
LOCAL_CUE_MIN = 3.0  # a drawer not in English gets a hall only when its own cues name it this strongly


class HallClassifier:
    """Cue scores, similarity to the labelled examples' centroids and a logistic regression on the
    examples, for one embedding model."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray], cache_dir: Path | None = None, model: str = ""):
        name = model_file_name(model)
        shipped = resources.files(__package__).joinpath(name)
        cached = cache_dir / name if cache_dir else None
        if shipped.is_file() or (cached and cached.is_file()):
            with (shipped if shipped.is_file() else cached).open("rb") as handle:  # type: ignore[union-attr]
                packed = np.load(handle)
        else:
            packed = _fitted(example_vectors(embed))
            if cached:
                owner_dir(cached.parent)
                np.save(cached.with_suffix(".tmp.npy"), packed)
                cached.with_suffix(".tmp.npy").replace(cached)
        width = (packed.shape[1] - len(_FEATURES) - 1) // 2
        self._centroids, self._weights = packed[:, :width], packed[:, width:].T

    def classify(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> list[str | None]:
        """The hall of each text, or None; with its vector, the examples vote too."""
        if vectors is None:
            return [classify_hall(text) for text in texts]
        return [self.decide(focus(text), vectors[row]) for row, text in enumerate(texts)]

    def totals(self, seen: Focus, vector: np.ndarray) -> np.ndarray:
        """Each hall's total in `_ORDER`, then no hall's: cue score / max(best cue score, `CUE_FLOOR`),
        weighted more in longer drawers (more words, more cues; one vector for all of them), plus the
        z-scored similarity to the six centroids; chatter is no hall's cue."""
        cues = cue_features(seen)[: len(_ORDER) + 1]
        weight = CUE_WEIGHT + LONG_CUE_WEIGHT * min(seen.words / LONG_WORDS, 1.0)
        similarity = self._centroids @ vector
        total = weight * cues + (similarity - similarity.mean()) / (similarity.std() + 1e-9)
        total[-1] += NO_HALL_BIAS
        return total

    def probabilities(self, seen: Focus, vector: np.ndarray) -> np.ndarray:
        """The mean of two votes, each a distribution over `_ORDER` and no hall: the totals' softmax
        (at `TOTALS_TEMPERATURE`) and the logistic regression on the vector and the cue features."""
        return (1 - MODEL_SHARE) * _softmax(self.totals(seen, vector) / TOTALS_TEMPERATURE) + \
            MODEL_SHARE * _softmax(_with_bias(features(seen, vector)) @ self._weights)

    def decide(self, seen: Focus, vector: np.ndarray) -> str | None:
        """The hall of a drawer's focus and vector, or None: when the focus holds almost nothing (and
        gives no code), when no hall is the likeliest, or when a longer drawer's likeliest hall is
        not clear (under its `CLEAR` probability)."""
        if seen.says < MIN_WORDS and seen.code_lines < CODE_LINES:
            return None
        chances = self.probabilities(seen, vector)
        best = int(np.argmax(chances))
        if best == len(_ORDER):
            return None
        hall = _ORDER[best]
        if seen.local and not _cues_name(seen, hall):
            return None
        return hall if seen.words <= ONE_STATEMENT_WORDS or chances[best] >= CLEAR[hall] else None


def _cues_name(seen: Focus, hall: str) -> bool:
    """Whether a focus's cues name `hall` alone: its best cue score, at least `LOCAL_CUE_MIN`, each cue
    counted once (a user's turn not twice: a date in a request is no happening)."""
    scores = hall_scores(seen.prose + "\n" + seen.user, local=True)
    return scores[hall] >= LOCAL_CUE_MIN and all(s < scores[hall] for h, s in scores.items() if h != hall)


_FEATURES = (*_ORDER, "chatter", "long", "code", "empty")
MODEL_SHARE, TOTALS_TEMPERATURE = 0.5, 0.5  # the regression's share of the vote; the totals' softmax temperature
FEATURE_WEIGHT, RIDGE, STEPS, STEP_SIZE = 0.5, 1e-3, 500, 0.5  # the regression's cue scale and its training
EXAMPLE_FILES = ("hall_examples.jsonl", "hall_examples_chats.jsonl")


def cue_features(seen: Focus) -> np.ndarray:
    """A focus's cue scores in `_ORDER` then its chatter, over max(best, `CUE_FLOOR`); then how long
    it is (0 to 1 at `LONG_WORDS`), whether it gives code and whether it says almost nothing."""
    scores = focus_scores(seen)
    cues = np.array([scores[h] for h in _ORDER] + [seen.chatter])
    return np.concatenate([cues / max(cues.max(), CUE_FLOOR), [min(seen.words / LONG_WORDS, 1.0),
                           float(seen.code_lines >= CODE_LINES), float(seen.says < MIN_WORDS)]])


def features(seen: Focus, vector: np.ndarray) -> np.ndarray:
    """The regression's input: the vector, then the cue features scaled by `FEATURE_WEIGHT`."""
    return np.concatenate([vector, FEATURE_WEIGHT * cue_features(seen)])


def _with_bias(x: np.ndarray) -> np.ndarray:
    return np.concatenate([x, np.ones((*x.shape[:-1], 1))], axis=-1)


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def examples() -> list[dict]:
    """The labelled examples of every file in `EXAMPLE_FILES`, in order."""
    raw = "".join(resources.files(__package__).joinpath(f).read_text("utf-8") for f in EXAMPLE_FILES)
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def examples_digest(model: str = "") -> str:
    """16 hex digits of the model's name, the examples and the training settings."""
    raw = "".join(resources.files(__package__).joinpath(f).read_text("utf-8") for f in EXAMPLE_FILES)
    settings = (FEATURE_WEIGHT, RIDGE, STEPS, STEP_SIZE, _FEATURES)
    return hashlib.sha256(f"{model}{chr(0)}{settings}{chr(0)}{raw}".encode()).hexdigest()[:16]


def model_file_name(model: str) -> str:
    """Named by the model and the examples' digest, so edited examples never meet a stale model."""
    return f"hall_model_{model or 'model'}_{examples_digest(model)}.npy"


def example_vectors(embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """The examples' vectors, rounded to float16 (as shipped in tests/data for the default model)."""
    return np.asarray(embed([e["text"] for e in examples()]), dtype=np.float16).astype(np.float32)


_FITTED: dict[str, np.ndarray] = {}  # fitted once a process per set of example vectors


def _fitted(vectors: np.ndarray) -> np.ndarray:
    key = hashlib.sha256(vectors.tobytes()).hexdigest() + examples_digest()
    if key not in _FITTED:
        _FITTED[key] = fit_model(vectors)
    return _FITTED[key]


def fit_model(vectors: np.ndarray) -> np.ndarray:
    """(6, width + features + 1): per hall in `_ORDER`, then no hall, its centroid (the unit-length mean
    of its examples' vectors) and its column of the regression's weights (bias last)."""
    labels = np.array([(*_ORDER, None).index(e["hall"]) for e in examples()])
    centroids = np.stack([vectors[labels == i].mean(axis=0) for i in range(len(_ORDER) + 1)])
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    x = _with_bias(np.stack([features(focus(e["text"]), v) for e, v in zip(examples(), vectors)])).astype(np.float32)
    return np.hstack([centroids, train_regression(x, labels).T]).astype(np.float32)


def train_regression(x: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Multinomial logistic regression by `STEPS` steps of gradient descent from zero (deterministic),
    ridge `RIDGE` on all but the bias, each class weighted by the inverse of its share."""
    classes = len(_ORDER) + 1
    target = np.eye(classes)[labels]
    weight = (len(labels) / (classes * np.bincount(labels, minlength=classes)))[labels][:, None]
    weights = np.zeros((x.shape[1], classes))
    ridge = np.ones((x.shape[1], 1)) * RIDGE
    ridge[-1] = 0.0
    for _ in range(STEPS):
        gradient = x.T @ ((_softmax(x @ weights) - target) * weight) / weight.sum() + ridge * weights
        weights -= STEP_SIZE * gradient
    return weights


def save_shipped_model(vectors_path: Path | None = None) -> Path:
    """Write the default model's centroids and weights into the package (after editing the examples),
    and the examples' float16 vectors, each with its text's sha, to `vectors_path` (tests/data), for
    the test that refits the model from them and checks a few against the model."""
    from ..embedding.embedders import MiniLMInt8

    vectors = example_vectors(MiniLMInt8().embed)
    if vectors_path:
        table = np.zeros(len(vectors), dtype=[("sha", "S16"), ("vector", np.float16, (vectors.shape[1],))])
        table["sha"] = [hashlib.sha256(e["text"].encode()).hexdigest()[:16].encode() for e in examples()]
        table["vector"] = vectors
        np.save(vectors_path, table)
    path = Path(__file__).with_name(model_file_name("minilm-int8"))
    np.save(path, fit_model(vectors))
    return path


def hall_scores(text: str, local: bool = False) -> dict[str, float]:
    """The cue score of `text` for every hall (with the cues of other languages when `local`)."""
    text = text.lower().translate(QUOTES)
    english = CJK_RUN.sub(" ", text) if local else text  # English cues' `\w+` would backtrack through long runs
    scores = {hall: sum(w for cue, w in cues if cue.found(english)) for hall, cues in _COMPILED.items()}
    if local:
        scores = {h: s + sum(w for cue, w in _LOCAL_COMPILED[h] if cue.found(text)) for h, s in scores.items()}
    return scores


def focus_scores(seen: Focus) -> dict[str, float]:
    """The cue scores of a drawer's focus, its users' turns counted `USER_WEIGHT` times again."""
    scores = hall_scores(seen.prose, seen.local)
    if seen.user:
        scores = {h: s + USER_WEIGHT * u for (h, s), u in zip(scores.items(), hall_scores(seen.user, seen.local).values())}
    if seen.code_lines >= CODE_LINES:
        scores["hall_advice"] += CODE_GIVEN
    return scores


def classify_hall(text: str) -> str | None:
    """The hall by cues alone (no vector): none when the focus holds almost nothing (as with a
    vector), else the best cue score, and a fact when no cue is found."""
    seen = focus(text)
    if seen.says < MIN_WORDS and seen.code_lines < CODE_LINES:
        return None
    scores = focus_scores(seen)
    best = max(_ORDER, key=lambda hall: (scores[hall], -_ORDER.index(hall)))
    if seen.local:
        return best if _cues_name(seen, best) else None
    return best if scores[best] > 0 else "hall_facts"
