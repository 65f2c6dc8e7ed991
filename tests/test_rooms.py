"""RoomChooser: new rooms named from a conversation's own words, never a name already taken, a speaker's or
another person's name, a URL, a path or an id; ingest end to end (which room a part joins is meaning's choice:
tests/test_rooms_model.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from mempalace.ingest import ingest, ingest_paths
from mempalace.rooms.naming import GENERAL, RoomChooser, room_key
from mempalace.rooms.words import stem

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
WORD_SLUG = re.compile(r"^[^\W_]+(?:-[^\W_]+)*$")
SPEAKERS = ("User", "Assistant")

AUTH_OAUTH = [
    "We are migrating auth to OAuth this sprint.",
    "The plan for migrating auth to OAuth: first swap the login flow, then retire the session tokens.",
    "Migrating auth is risky; keep the old login working until it is done.",
]
WORDINGS = {
    "auth migrations": ["Let's talk about the auth migrations today.", "The auth migrations need a rollback plan.",
                        "Auth migrations touch the login service."],
    "Auth Migration": ["Auth Migration status?", "The Auth Migration is half done.",
                       "We still need to finish the Auth Migration for mobile."],
    "migrated the auth": ["I migrated the auth yesterday.", "Once we migrated the auth, login broke for SSO users.",
                          "So we migrated the auth back."],
    "migrating auth": ["Still migrating auth to OAuth.", "Migrating auth broke the mobile login.",
                       "Done migrating auth for web."],
}
SOURDOUGH = ["The sourdough starter needs feeding every day.", "My sourdough starter smells sour.",
             "Bake the sourdough at high heat with steam."]
OTHER_ROOMS = ["kubernetes-upgrade", "sourdough-starter", "billing-invoices", GENERAL]


def choose(texts: list[str], existing: list[str] = (), title: str | None = None, names=SPEAKERS) -> str:
    return RoomChooser(existing).choose(texts, title=title, names=names)


def first_room() -> str:
    """The room a palace with no rooms gives the "migrating auth to OAuth" conversation."""
    return choose(AUTH_OAUTH)


# -- slugs ----------------------------------------------------------------------------------------------


def test_a_conversation_about_migrating_auth_gets_a_clean_slug() -> None:
    room = first_room()
    assert SLUG.match(room), room
    assert room != GENERAL
    assert "auth" in room.split("-")


@pytest.mark.parametrize("texts", [
    ["C++ templates and C++ templates are hard."],
    ["Node.js / TypeScript build; the TypeScript build is slow."],
    ["Why is the CI/CD pipeline (GitHub Actions) red? The CI pipeline is red!"],
    ["ÜBER große Änderungen — the café menu, the café menu again."],
    ["emoji 🚀 launch plan 🚀 launch plan", "日本語 launch plan"],
    ["O'Brien's rollout-plan: rollout plan rollout_plan ROLLOUT PLAN"],
])
def test_slugs_are_always_lowercase_and_hyphenated(texts: list[str]) -> None:
    room = choose(texts)
    assert WORD_SLUG.match(room) and room == room.lower(), room  # other scripts stay (日本語-launch)


def test_stems_match_plurals_and_case() -> None:
    assert stem("migrations") == stem("migration")
    assert room_key("auth-migrations") == room_key("auth-migration") == room_key("Auth-Migration".lower())




@pytest.mark.parametrize("word", ["migrating", "migrated", "migrate"])
def test_every_form_of_a_word_has_the_same_stem(word: str) -> None:
    assert stem(word) == stem("migration")


# -- the same topic reuses the existing room: tunnels ---------------------------------------------------------

def _reuse_cases():
    for existing in ("first", "auth-migration"):
        for wording in WORDINGS:
            yield pytest.param(existing, wording, id=f"{existing}<-{wording}")


@pytest.mark.parametrize("existing, wording", _reuse_cases())
def test_a_name_already_taken_is_never_handed_out_again(existing: str, wording: str) -> None:
    room = first_room() if existing == "first" else existing
    named = choose(WORDINGS[wording], existing=[*OTHER_ROOMS, room])  # meaning chose none of these rooms
    assert named not in {*OTHER_ROOMS, room} and SLUG.match(named), named


def test_an_unrelated_conversation_gets_another_room() -> None:
    room = first_room()
    other = choose(SOURDOUGH, existing=[room])
    assert other != room and other != GENERAL
    assert SLUG.match(other)
    assert choose(SOURDOUGH, existing=[room, "sourdough-starter"]) not in {room, "sourdough-starter", GENERAL}


SOURDOUGH_WITH_AN_ASIDE = SOURDOUGH + ["Feed the sourdough starter twice when it is warm.",
                                       "By the way, the auth migration is done."]


def test_a_conversation_about_its_own_topic_keeps_it_without_existing_rooms() -> None:
    assert choose(SOURDOUGH_WITH_AN_ASIDE) == "sourdough-starter"


def test_an_existing_room_does_not_swallow_a_conversation_that_mentions_it_once() -> None:
    assert choose(SOURDOUGH_WITH_AN_ASIDE, existing=["auth-migration"]) == "sourdough-starter"


def test_the_chooser_never_hands_out_one_name_twice() -> None:
    chooser = RoomChooser([])
    first = chooser.choose(WORDINGS["Auth Migration"], names=SPEAKERS)
    assert first == "auth-migration"  # a Title Case topic is a topic, not a name
    assert chooser.choose(WORDINGS["auth migrations"], names=SPEAKERS) not in {first, GENERAL}
    assert chooser.choose(AUTH_OAUTH, names=SPEAKERS) != first


# -- what never becomes a room ----------------------------------------------------------------------------------


def test_speakers_names_are_not_chosen() -> None:
    texts = ["Priya: Marcus, can you look? Marcus said yes.", "Priya and Marcus agree, Marcus.",
             "Marcus: thanks Priya, Priya's right. The deploy pipeline is slow."]
    room = choose(texts, names=["Priya", "Marcus Okafor"])
    assert not {"priya", "marcus"} & set(room.split("-")), room
    assert room == "deploy-pipeline"
    assert choose(["Marcus Okafor, Marcus Okafor!"], names=["Marcus Okafor"]) == GENERAL


def test_chat_interjections_are_not_chosen() -> None:
    texts = ["Wow, that sounds awesome!", "Awesome! Wow, glad it went well, sounds amazing.",
             "Wow. I finally finished the pottery class, so happy!", "Amazing, wow, sounds like fun. Wow!",
             "Wow, wow. Totally. Is the pottery class on Fridays?"]
    assert choose(texts) == "pottery-class"


IDS = [
    "https://auth.example.com/callback/v2?state=abc",
    "http://localhost:8080/api/v1/users",
    "www.example.org/wiki/Sourdough",
    "ftp://mirror.example.net/pub/",
    "file:///etc/hosts",
    "example.com",
    "kai@example.com",
    "/home/kai/projects/mempalace/src/auth/oauth_client.py",
    "src/auth/oauth_client.py",
    "oauth_client.py",
    "README.md",
    r"C:\Users\kai\Documents\notes.txt",
    "~/.config/mempalace/config.toml",
    "3f2a9c1e-7b4d-4e8a-9f0c-2d6b8e1a5c3f",
    "9fceb02d0ae598e95dc970b74767f19372d61af8",
    "e5a0c79",
    "0x7fffdeadbeef",
    "#a1b2c3",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "01HZX3K5Q9ABCDEF",
]


@pytest.mark.parametrize("junk", IDS)
def test_urls_paths_uuids_and_hex_ids_never_become_rooms(junk: str) -> None:
    heavy = [f"{junk} {junk}. {junk}!", f"See {junk} and {junk}.", f"({junk}), `{junk}`"]
    assert choose(heavy) == GENERAL
    assert choose(heavy + ["The sourdough starter needs feeding."]) == "sourdough-starter"


def test_an_all_letter_hex_id_never_becomes_a_room() -> None:
    assert choose(["deadbeefcafebabe deadbeefcafebabe", "deadbeefcafebabe"]) == GENERAL


def test_accented_words_are_not_cut_into_fragments() -> None:
    texts = ["Le café menu. Le café menu is long.", "The café menu needs prices."]
    room = choose(texts)
    folded = unicodedata.normalize("NFKD", " ".join(texts).lower()).encode("ascii", "ignore").decode()
    assert set(room.split("-")) <= set(re.findall(r"[a-z0-9]+", folded)), room


@pytest.mark.parametrize("texts", [[], [""], ["   \n\t  "], ["the and of to it is"], ["ok thanks yes sure"],
                                   ["Yes. No. Maybe. I am."], ["User: hi", "Assistant: hello"], ["a b c 1 2 3"],
                                   ["🚀🚀🚀", "…", "```\n```"]])
def test_no_words_means_general(texts: list[str]) -> None:
    assert choose(texts) == GENERAL
    assert choose(texts, existing=["auth-migration", "sourdough-starter"]) == GENERAL


# -- titles, determinism -------------------------------------------------------------------------------------------

BILLING_AND_REDIS = ["The billing invoices are wrong for March.", "Billing invoices go out on Monday.",
                     "Billing invoices need a new template.", "Also the redis cache evicts too often.",
                     "Maybe the redis cache needs more memory."]


def test_a_title_boosts_its_words() -> None:
    assert choose(BILLING_AND_REDIS) == "billing-invoices"
    assert choose(BILLING_AND_REDIS, title="Redis cache outage") in {"redis-cache", "cache-outage"}
    assert choose(["We discussed the weather briefly."], title="Quarterly roadmap") == "quarterly-roadmap"


def test_same_input_same_room() -> None:
    existing = ["auth-migration", "sourdough-starter", "kubernetes-upgrade", "general"]
    cases = [(AUTH_OAUTH, None), (WORDINGS["migrated the auth"], None), (BILLING_AND_REDIS, "Redis cache outage"),
             (SOURDOUGH, None)]
    for texts, title in cases:
        rooms = {RoomChooser(order).choose(texts, title=title, names=SPEAKERS)
                 for order in (existing, existing[::-1], sorted(existing), tuple(existing))}
        assert len(rooms) == 1, (texts[0], rooms)


_DETERMINISM_SCRIPT = """
import json, sys
from mempalace.rooms.naming import RoomChooser
cases = json.loads(sys.stdin.read())
chooser = RoomChooser(["auth-migration", "sourdough-starter", "general"])
print(json.dumps([chooser.choose(texts, title=title, names=["User", "Assistant"]) for texts, title in cases]))
"""


def test_same_input_same_room_across_processes() -> None:
    cases = [[AUTH_OAUTH, None], [BILLING_AND_REDIS, None], [BILLING_AND_REDIS, "Redis cache outage"],
             *[[texts, None] for texts in WORDINGS.values()], [SOURDOUGH, None]]
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _DETERMINISM_SCRIPT], input=json.dumps(cases), env=env,
                              capture_output=True, text=True, check=True, timeout=120)
        outputs.add(done.stdout.strip())
    assert len(outputs) == 1, outputs


# -- end to end: the same topic in two wings is one room: a tunnel ----------------------------------------------------


def _transcript(path: Path, turns: list[tuple[str, str]]) -> Path:
    path.write_text("".join(f"{speaker}: {text}\n" for speaker, text in turns), encoding="utf-8")
    return path


def _shared_rooms(palace) -> set[str]:
    return (set(palace.list_rooms("wing_a")) & set(palace.list_rooms("wing_b"))) - {GENERAL}


AUTH_A = [("User", "The auth migration to OAuth starts next sprint. What should the plan be?"),
          ("Assistant", "For the auth migration, register the client with the identity provider first."),
          ("User", "And the old session tokens during the auth migration?"),
          ("Assistant", "Keep them valid until the auth migration is finished, then retire them.")]
AUTH_B = [("User", "The auth migration broke the mobile login."),
          ("Assistant", "The auth migration changed the token endpoint; update the mobile client."),
          ("User", "Is the auth migration done for web?"),
          ("Assistant", "Yes, the auth migration is done for web; mobile is next.")]
AUTH_A_OTHER_WORDS = [("User", "We are migrating auth to OAuth next sprint. What should the plan be?"),
                      ("Assistant", "For migrating auth to OAuth, register the client with the identity provider."),
                      ("User", "And the old session tokens while migrating auth?"),
                      ("Assistant", "Keep them valid until migrating auth is finished, then retire them.")]


def test_the_same_topic_in_two_wings_shares_a_room(palace, tmp_path: Path) -> None:
    first = ingest(palace, _transcript(tmp_path / "standup.txt", AUTH_A), wing="wing_a")
    second = ingest(palace, _transcript(tmp_path / "mobile.txt", AUTH_B), wing="wing_b")
    assert not first.errors and not second.errors, (first.errors, second.errors)
    assert first.format == second.format == "plain_text"
    assert _shared_rooms(palace) == {"auth-migration"}, (palace.list_rooms("wing_a"), palace.list_rooms("wing_b"))


def test_the_same_topic_in_other_words_in_two_wings_shares_a_room(palace, tmp_path: Path) -> None:
    ingest(palace, _transcript(tmp_path / "standup.txt", AUTH_A_OTHER_WORDS), wing="wing_a")
    ingest(palace, _transcript(tmp_path / "mobile.txt", AUTH_B), wing="wing_b")
    assert _shared_rooms(palace), (palace.list_rooms("wing_a"), palace.list_rooms("wing_b"))


@pytest.mark.model
def test_unrelated_topics_in_two_wings_share_no_room(model_palace, tmp_path: Path) -> None:
    ingest(model_palace, _transcript(tmp_path / "standup.txt", AUTH_A), wing="wing_a")
    ingest(model_palace, _transcript(tmp_path / "kitchen.txt", [("User", t) if i % 2 == 0 else ("Assistant", t)
                                                                 for i, t in enumerate(SOURDOUGH * 2)]), wing="wing_b")
    assert not _shared_rooms(model_palace), (model_palace.list_rooms("wing_a"), model_palace.list_rooms("wing_b"))


def test_speakers_of_an_ingested_chat_do_not_become_its_room(palace, tmp_path: Path) -> None:
    turns = [("Priya", "Marcus, the deploy pipeline is slow again."), ("Marcus", "Priya, which deploy pipeline stage?"),
             ("Priya", "Marcus, the build stage. Thanks Marcus."), ("Marcus", "Priya, I will look, Priya.")]
    report = ingest(palace, _transcript(tmp_path / "chat.txt", turns), wing="wing_a")
    assert not report.errors, report.errors
    rooms = set(palace.list_rooms("wing_a"))
    assert rooms == {"deploy-pipeline"}, rooms


def test_cpp_and_csharp_get_rooms_of_their_own() -> None:
    chooser = RoomChooser([])
    cpp = chooser.choose(["The C++ templates blew up compile times.", "C++ templates again: the build is slow."])
    csharp = chooser.choose(["Our C# async code deadlocks.", "C# async again: it hangs."])
    assert (cpp, csharp) == ("cpp-templates", "csharp-async")


TOPICS = ["pottery glaze", "chess openings", "sourdough starter", "tide pools", "bike repair", "tax forms",
          "kite surfing"]


def photo_chat(topic: str) -> list[str]:
    """A chat where everyone shares photos, about one topic mentioned twice."""
    return [f"[shares a photo: a photo of {topic}] Look, a photo!", "Great photo, what a photo. Another photo?",
            "Here is a photo. And a photo from yesterday, one more photo.", f"Nice photo. Is the {topic} hard?",
            "Photo after photo, thanks for every photo."]


def test_a_word_most_of_the_palace_has_is_not_chosen() -> None:
    asked = []

    def widespread(words):
        asked.append(set(words))
        return {"photo"} & set(words)

    assert RoomChooser([], widespread).choose(photo_chat("tide pools")) == "tide-pools"
    assert "photo" in asked[0]
    assert RoomChooser(["photo"], widespread).choose(photo_chat("tide pools")) == "tide-pools"  # even an existing room
    assert RoomChooser([], widespread).choose(photo_chat("tide pools"), title="Photos") == "tide-pools"  # titles too
    assert RoomChooser([], lambda words: set(words)).choose(photo_chat("tide pools")) == GENERAL


def test_the_palace_names_the_words_most_of_its_wings_share(palace) -> None:
    def tags(wing: str, n: int) -> str:  # keeps the hash embedder from seeing near-duplicates
        return " ".join(f"{wing}{n}x{i}" for i in range(6))

    for n in range(25):
        palace.add_drawer(f"photo {n} of the kiln: {tags('a', n)}", "wing_a", "r")
        palace.add_drawer(f"{'photo' if n % 5 else 'sketch'} {n}, glaze: {tags('b', n)}", "wing_b", "r")
        palace.add_drawer(f"{'photo' if n % 3 == 0 else 'sketch'} {n}, glaze: {tags('c', n)}", "wing_c", "r")
    assert palace.count() == 75
    words = ["Photo", "kiln", "glaze", "sketch", "the", "zebra"]
    assert palace.widespread_words(words) == {"photo", "glaze"}  # in most drawers of two wings out of three
    assert palace.widespread_words(words, min_wing_drawers=26) == frozenset()  # no wing big enough to tell


def test_one_wing_words_are_never_everyones(palace) -> None:
    for n in range(30):
        palace.add_drawer(f"auth migration step {n}: tag{n}a tag{n}b", "wing_kai", "auth-migration")
    assert palace.widespread_words(["auth", "migration"]) == frozenset()


def test_language_names_are_spelled_out_and_ticket_marks_are_not_languages() -> None:
    texts = ["Async C# again: the async C# code deadlocks.", "Is async C# always this painful? async C# hangs."]
    assert "csharp" in RoomChooser([]).choose(texts).split("-")
    assert "cpp" in RoomChooser([]).choose(["C++ templates again.", "The C++ templates are slow."]).split("-")
    assert RoomChooser([]).choose(["PR#123 fixes it. PR#124 too.", "PR#126 and PR#127 merged."]) == "pr"


def test_cheering_is_not_a_topic() -> None:
    texts = ["I'm so happy for you! Happy, happy news.", "So happy. Super fun, super happy.",
             "The lake trip was great. Happy you came on the lake trip."]
    assert choose(texts) == "lake-trip"


def test_a_message_with_no_topic_words_joins_its_wing_rather_than_general(palace, tmp_path: Path) -> None:
    bread = _transcript(tmp_path / "a.txt", [("User", t) if i % 2 == 0 else ("Assistant", t)
                                             for i, t in enumerate(SOURDOUGH * 2)])
    link = _transcript(tmp_path / "b.txt", [("User", "<https://example.com/a/b.py>"), ("Assistant", "ok, thanks!")])
    reports = ingest_paths(palace, [bread, link], wing="wing_kai")
    assert all(r.ok for r in reports), [r.errors for r in reports]
    assert set(palace.list_rooms("wing_kai")) == {reports[0].rooms[0]} != {GENERAL}
