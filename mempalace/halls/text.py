"""What the hall classifier reads of a drawer: the words people wrote, not their wrapping (and `Cue`,
the fast search for a cue pattern in it).

A drawer is a verbatim chunk of an exchange: speaker labels, tool lines (`→ Bash: …`, `← result`),
fenced code, tracebacks and logs, links and Slack mentions, attachment captions, header lines. Its
kind lies in the prose, so `focus` keeps the prose and sets the rest aside. It also drops the social
phrases (hello, thanks, wow, good luck, keep it up, see you) that every chat is full of and that
would read as cues (`take care` as an imperative, `love it` as a liking), and questions (a question
asks, it does not tell), except in a user's own turns, whose request says what the exchange is for.
What is set aside still counts: lines of code written for someone (not output) are counted, and the
social talk is scored as chatter, the cue of no hall.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .local import LOCAL_SOCIAL, is_local, local_words

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_TOOL_LINE = re.compile(r"^\s*(?:→|←).*$", re.M)
_LABEL = re.compile(r"^[^\s:\[<][^\s:]{0,30}(?: [^\s:]+){0,2}(?: \(continued\))?: ", re.M)  # `Kai: `, `Ana Lo (continued): `
_USER_TURN = re.compile(r"^(?:user|human)(?: \(continued\))?: (.*(?:\n(?![^\s:\[<][^:\n]{0,40}: ).*)*)", re.M | re.I)
_LINK = re.compile(r"<(?:https?|mailto|tel):[^>|]*\|([^>]*)>|<[^>\s]*(?:://|[@#!])[^>]*>:?|\b(?:https?://|www\.)\S+")
_ATTACHMENT = re.compile(r"\[(?:shares?|shared|sends?|sent|attache[sd]?|posts?|posted)\b[^\]\n]*\]", re.I)
_HEADER = re.compile(r"^(?:date|time|timestamp|sent|subject)\s*:.*$", re.I | re.M)
_OUTPUT_LINE = re.compile(  # tracebacks, log lines, data dumps, shell and REPL prompts
    r"^\s*(?:traceback \(most recent|file \"[^\"]+\", line \d|[\w.]*(?:error|exception)\b[:(]|at [\w.$<>]+\(|"
    r"[ewif]?\d{4}[\d :.-]{6,}|\[?\d{4}-\d\d-\d\d[t ]\d\d:|[{\[]\s*[\"'{\[]|\$ |>>> |\^)", re.I)
_CODE_LINE = re.compile(
    r"^\s*(?:(?:def|class|function|fn|func|import|from \S+ import|return|const|let|var|public|private|package|"
    r"#include|echo|export|local)\b|(?:if|elif|for|while|switch)\b.*(?::|\{|then|do)\s*$|(?:fi|done|end|else|esac)\s*$|"
    r"[\]{}()]+[;,]?\s*$|#+ ?[a-z]|//|[\w.$\[\]\"']+\s*(?::=|[-+*/|&]?=)(?!=)|.*[;{]\s*$)", re.I)
_CODE_SYMBOLS = "{}[]()<>=;$|&*\\`_#@^~"
_TRACE = re.compile(r"traceback \(most recent call last\)|^\s*file \"[^\"]+\", line \d+|^\s*at [\w.$]+\([\w.]+:\d+\)",
                    re.I | re.M)
QUOTES = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")  # cues are written with straight quotes
WORD = re.compile(r"[a-z]{2,}", re.I)
_TOKEN = re.compile(r"[a-z]{2,}|\d+", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_LOCAL_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
_NUMBER = re.compile(r"\d+")
_SOCIAL = re.compile(
    r"\b(?:hey|hi|hello|yo|bye|goodbye|ttyl|thanks?|thank you|thx|cheers|appreciate[sd]?|congrat\w*|kudos|"
    r"wow|woah|whoa|aww+|yay|woo+(?:hoo+)?|haha\w*|lol|omg|sweet|cool|awesome|amazing|great|nice|lovely|"
    r"proud of you|you(?:'?ve)? got this|(?:good|best of) luck|fingers crossed|hang in there|keep (?:it up|going|"
    r"pushing|at it|up the good work|me posted)|don'?t give up|believe in yourself|here for you|have my back|"
    r"in my corner|take care(?: of yourself)?|enjoy (?:your|the) \w+|have a (?:great|good|nice|safe|lovely) \w+|"
    r"stay (?:safe|positive|strong|motivated|in touch)|have (?:fun|a blast)|see (?:you|ya)(?: soon)?|"
    r"talk (?:to you )?soon|catch you later|gotta (?:run|go)|have a good one|chat (?:soon|later)|"
    r"long time no (?:see|chat|talk)|how(?:'s| is| are| have) (?:it going|you|things|life)|what'?s up|"
    r"good to (?:see|hear)|nice to (?:meet|see|hear)|sounds (?:great|awesome|amazing|fun|good|cool)|"
    r"means a lot|meant a lot|so important|is key|cherish\w*|can'?t wait|glad|inspir\w+|no worries|no problem|"
    r"don'?t worry|let me know(?: if you need (?:any )?(?:more )?\w+)?|be sure to let you know|if you can|"
    r"we can do (?:it|this)|you can do (?:it|this)|love (?:it|that|this|you)|take a look|"
    r"check (?:it|this|that) out|look at (?:this|that)|here'?s a (?:pic|photo|picture)|show me)\b", re.I)
_CHATTER = [(re.compile(p), w) for p, w in (  # talk that carries no kind: greetings, thanks, pep talk, platitudes
    (r"\b(?:hey|hi|hello)\b|\blong time no\b|\bhow(?:'s| is| are| have) (?:it going|you|things|life)\b|\bwhat'?s up\b", 1),
    (r"\bthanks?\b|\bthank you\b|\bappreciate\b|\bmeans? (?:a lot|so much|the world)\b|\bmeant a lot\b", 1),
    (r"\bbye\b|\bttyl\b|\btalk (?:to you )?(?:soon|later)\b|\bsee (?:you|ya)\b|\btake care\b|\bcatch you\b|"
     r"\bgotta (?:run|go)\b", 1.5),
    (r"\bproud of you\b|\byou(?:'?ve)? got this\b|\bgood luck\b|\bfingers crossed\b|\bhang in there\b|\bdon'?t give up\b|"
     r"\bkeep (?:it up|going|pushing|at it|up the)\b|\bbelieve in (?:yourself|you)\b|\bhere for you\b|"
     r"\bin my corner\b|\bhave my back\b", 1.5),
    (r"\b(?:so|really|super) (?:important|rewarding|inspiring|meaningful)\b|\bis key\b|\bis everything\b|\bcherish|"
     r"\bpriceless\b", 1.5),
    (r"\bhard work\b|\bjourney\b|\bdreams?\b|\bmotivat|\bstay(?:ing)? positive\b|\bdetermined\b|\bstrength\b|"
     r"\bgrateful\b|\bthankful\b|\bblessing\b|\bmemories\b|\bbond\b|\bsupport(?:ive)?\b|\bencourag", 1),
    (r"\bmake a (?:big |real )?difference\b|\bit'?s all about\b|\blife is\b|\bthat'?s what (?:friends|life)\b|"
     r"\bsame here\b|\btotally agree\b|\bcouldn'?t agree more\b|\bso true\b|\bexactly\b|\bdefinitely\b|\babsolutely\b", 1),
)]


@dataclass(frozen=True)
class Focus:
    """What the classifier reads of a drawer: its prose, its users' turns, how many lines of code it
    gives and how much chatter it holds."""

    prose: str
    user: str
    code_lines: int
    chatter: float = 0.0
    local: bool = False  # not English: read with `local`'s cues, words counted in any script

    @property
    def words(self) -> int:
        """How long the prose is, in words."""
        return local_words(self.prose) if self.local else len(WORD.findall(self.prose))

    @property
    def says(self) -> int:
        """How much the focus says at all: the words and numbers of its prose and of its users' turns
        (their questions included: `what is 17 * 23` says something)."""
        if self.local:
            return sum(local_words(t) + len(_NUMBER.findall(t)) for t in (self.prose, self.user))
        return len(_TOKEN.findall(self.prose)) + len(_TOKEN.findall(self.user))


def focus(text: str) -> Focus:
    """The prose of `text` without tool lines, code, output, links, captions, headers, labels, social
    phrases and questions; its lines of written code (not output) and its chatter are counted."""
    fenced = [line for m in _FENCE.finditer(text) for line in m.group(0).split("\n")[1:-1]]
    code_lines = sum(_is_code(line) and not _OUTPUT_LINE.match(line) for line in fenced)
    bare_text = _LINK.sub(lambda m: m.group(1) or " ", _TOOL_LINE.sub("", _HEADER.sub("", _FENCE.sub("\n", text))))
    kept = []
    for line in _ATTACHMENT.sub(" ", bare_text.translate(QUOTES)).split("\n"):
        bare = _LABEL.sub("", line, count=1)
        if _OUTPUT_LINE.match(line) or _OUTPUT_LINE.match(bare):
            continue
        if _is_code(bare):
            code_lines += 1
            continue
        kept.append(line)
    prose = "\n".join(kept)
    user = "\n".join(m.group(1) for m in _USER_TURN.finditer(prose))
    prose = _LABEL.sub("", prose)
    lowered = prose.lower()
    chatter = sum(w for pattern, w in _CHATTER if pattern.search(lowered))
    if _TRACE.search(text):
        code_lines = 0  # a traceback's lines are output, not code written for someone
    if is_local(prose):
        chatter += len(LOCAL_SOCIAL.findall(lowered))
        return Focus(_substance(prose, questions=False, local=True), _substance(user, local=True), code_lines,
                     chatter, local=True)
    return Focus(_substance(prose, questions=False), _substance(user), code_lines, chatter)


def _is_code(line: str) -> bool:
    """A line of code or data: a code pattern, or dense in the symbols prose seldom uses."""
    symbols = sum(line.count(c) for c in _CODE_SYMBOLS)
    return bool(_CODE_LINE.match(line)) or (symbols >= 3 and symbols >= 0.08 * len(line.replace(" ", "")))


def _substance(text: str, questions: bool = True, local: bool = False) -> str:
    """`text` without its social phrases and, unless `questions`, without its questions (in a `local`
    text, its own social phrases and full-width sentence ends too)."""
    text = LOCAL_SOCIAL.sub(" ", _SOCIAL.sub(" ", text)) if local else _SOCIAL.sub(" ", text)
    if questions:
        return text
    sentences = _LOCAL_SENTENCE.split(text) if local else _SENTENCE.split(text)
    return " ".join(s for s in sentences if not s.rstrip().endswith(("?", "？") if local else "?"))


class Cue:
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
