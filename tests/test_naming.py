import pytest

from mempalace.errors import InvalidInputError
from mempalace.text.names import hall_name, room_slug, wing_name


@pytest.mark.parametrize("raw", ["Auth Migration", "auth_migration", " AUTH--migration ", "auth-migration"])
def test_room_names_become_hyphen_slugs(raw):
    assert room_slug(raw) == "auth-migration"


@pytest.mark.parametrize("raw", ["Wing Kai", "wing-kai", "WING_KAI", "wing kai!"])
def test_wing_names_become_lowercase_underscored(raw):
    assert wing_name(raw) == "wing_kai"


def test_unicode_letters_are_kept():
    assert room_slug("Café Münchën") == "café-münchën"


@pytest.mark.parametrize("bad", ["", "   ", "---", "!!", None, 42])
def test_empty_or_non_text_names_are_refused(bad):
    with pytest.raises(InvalidInputError):
        room_slug(bad)
    with pytest.raises(InvalidInputError):
        wing_name(bad)


def test_overlong_names_are_refused():
    with pytest.raises(InvalidInputError, match="longer than"):
        room_slug("x" * 101)


def test_halls_accept_short_and_full_names_only_the_five():
    assert hall_name("facts") == "hall_facts"
    assert hall_name("Hall_Advice") == "hall_advice"
    assert hall_name(None) is None
    with pytest.raises(InvalidInputError, match="hall_facts, hall_events"):
        hall_name("hall_gossip")


@pytest.mark.parametrize(("raw", "slug"), [
    ("C++", "cpp"), ("C#", "csharp"), ("F# scripts", "fsharp-scripts"), ("c++ templates", "cpp-templates"),
    ("C++11", "cpp11"), ("Notepad++ plugins", "notepad-plugins"), ("PR#", "pr"), ("issue#42", "issue-42"),
    ("a + b", "a-b"), ("#general", "general"), ("x#y", "x-y"), ("LGBTQ+ events", "lgbtq-events"), ("C", "c"),
    ("c+++", "c"),
])
def test_language_names_with_symbols_keep_them_spelled_out(raw, slug):
    assert room_slug(raw) == slug


def test_wings_spell_out_the_same_symbols():
    assert wing_name("C# tools") == "csharp_tools"
