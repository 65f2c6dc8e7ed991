"""How drawer text is shown (dashboard/text.py): Slack markup as names, ChatGPT's citation marks
hidden, Markdown made safe for st.markdown, and a raw view that shows the stored text exactly.

What the browser makes of safe_markdown's output is checked in tests/e2e/test_rendering.py; these
tests pin the Markdown itself (fast, no server)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.hits import card_html
from dashboard.text import JOINER, display_text, mentions_of, plain_text, safe_markdown
from mempalace.models import Drawer

NAMES = {"U0BMYT2FL": "Harry Potter"}
UNESCAPED_LT = re.compile(r"(?<![\\])<")


# -- display_text ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("stored", "shown"), [
    ("hi <@U0BMYT2FL> and <@U0BMYT2FL|harry>", "hi @Harry Potter and @Harry Potter"),
    ("<@U0UNKNOWN> and <@W0OLD|oldname>", "@U0UNKNOWN and @oldname"),
    ("in <#C0G9QF9GZ|general> or <#C0G9QF9GW>", "in #general or #C0G9QF9GW"),
    ("<!here> <!channel|channel> <!subteam^S1|@devs> <!date^1392734382^{date}|Feb 18>", "@here @channel @devs Feb 18"),
    ("<https://x.org/a?b=1&amp;c=2|the docs> <https://x.org> <mailto:a@b.org|a@b.org>",
     "[the docs](https://x.org/a?b=1&c=2) https://x.org a@b.org"),
    ("a &lt;b&gt; &amp;lt; c", "a <b> &lt; c"),  # Slack's escapes, read once
])
def test_slack_markup_is_shown_as_names_links_and_characters(stored, shown):
    assert display_text(stored, NAMES) == shown


def test_text_that_is_not_slacks_keeps_angle_brackets_and_entities():
    assert display_text("a &lt;b&gt; <@U0BMYT2FL>", None) == "a &lt;b&gt; <@U0BMYT2FL>"


@pytest.mark.parametrize(("stored", "shown"), [
    ("Paris is large.\ue200cite\ue202turn0search1\ue202turn0news3\ue201 Next.", "Paris is large. Next."),
    ("It grew \ue200cite\ue202turn2view0\ue201.", "It grew."),
    ("Visit \ue200entity\ue202[\"city\",\"Paris\",\"France\"]\ue201 soon.", "Visit Paris soon."),
    ("\ue203The covered words.\ue204\ue202turn0search0 After.", "The covered words. After."),
    ("see \ue200filecite\ue202turn0file0\ue201\ue200image_group\ue202{\"query\":[\"x\"]}\ue201 stray \ue206\ue000.",
     "see stray ."),
])
def test_chatgpt_citation_marks_are_hidden(stored, shown):
    assert display_text(stored, None) == shown


SLACK = {"format": "slack", "mentions": '{"U0BMYT2FL": "Harry Potter"}'}


@pytest.mark.parametrize(("stored", "extra", "shown"), [
    ("hi <@U0BMYT2FL>, see <https://x.org/a?b=1&amp;c=2|the docs> &amp; more", SLACK,
     "hi @Harry Potter, see the docs & more"),
    # a card listed from the catalog knows no format: only Slack's own forms are read, each on its own
    ("hi <@U0BMYT2FL> in <#C0G9QF9GZ|general>: <https://x.org|R&amp;D docs> &amp; <!here>", {},
     "hi @U0BMYT2FL in #general: R&D docs &amp; @here"),
    ("Grew fast.\ue200cite\ue202turn0search1\ue201 Next.", None, "Grew fast. Next."),
    ("a &lt;b&gt; <https://x.org> <b>", None, "a &lt;b&gt; https://x.org <b>"),  # an address in <>: its address
    # a drawer known not to be Slack's keeps its text as written, Slack-like or not
    ("Use <https://example.com|click here>. HTML: &lt;div&gt; <!here>", {"format": "chatgpt"},
     "Use <https://example.com|click here>. HTML: &lt;div&gt; <!here>"),
])
def test_a_snippet_shows_slack_markup_and_citation_marks_as_read(stored, extra, shown):
    assert plain_text(stored, extra) == shown


def test_a_closed_cards_snippet_is_the_text_as_read_and_escaped():
    drawer = Drawer(id="d1", content="ping <@U0BMYT2FL>: <https://x.org|a &lt;script&gt; label>\ue200cite\ue202t0\ue201 done",
                    wing="wing_kai", room="slack", hall=None, source_file="general")
    snippet = card_html(drawer, ["done"]).split('class="mp-snippet">', 1)[1]
    assert snippet.startswith('<div style="white-space:pre-wrap;font-size:0.92em;line-height:1.45">'
                              "ping @U0BMYT2FL: a &lt;script&gt; label <mark>done</mark></div>"), snippet


def test_a_slack_code_run_is_shown_as_a_code_block():
    shown = display_text("Hermione: ```for c in cities:\n    print(c)``` done", {})
    assert "\n```\nfor c in cities:\n    print(c)\n```\n" in shown
    assert display_text("plain ```x``` text", None) == "plain ```x``` text"  # only Slack's text


def test_a_label_stands_apart_from_a_block_its_message_opens_with():
    stored = "Kai: ### Plan\n\nClaude (continued): | a |\n|---|\n\nPriya: see - this"
    assert display_text(stored, None) == "Kai:\n\n### Plan\n\nClaude (continued):\n\n| a |\n|---|\n\nPriya: see - this"


def test_mentions_are_read_back_tolerantly():
    assert mentions_of({"format": "slack", "mentions": '{"U1": "Ada", "U2": 3, "U3": " "}'}) == {"U1": "Ada"}
    assert mentions_of({"format": "slack"}) == {}  # filed before names were kept
    assert mentions_of({"format": "slack", "mentions": "{not json"}) == {}
    assert mentions_of({"format": "slack", "mentions": "[1, 2]"}) == {}
    assert mentions_of({"format": "chatgpt"}) is None and mentions_of(None) is None


# -- safe_markdown ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "markdown"), [
    ("<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>"),
    ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)>"),
    ("[x](javascript:alert(1))", r"[x\](javascript&#58;alert(1))"),
    ("[x](JaVaScRiPt:alert(1)) [y]( vbscript:x) [z](data:text/html,hi)",
     r"[x\](JaVaScRiPt&#58;alert(1)) [y\]( vbscript&#58;x) [z\](data&#58;text/html,hi)"),
    ("[x](&#106;avascript:alert(1)) &lt;b&gt; AT&T",
     r"[x\](&amp;#106;avascript&#58;alert(1)) &amp;lt;b&amp;gt; AT&amp;T"),
    ("![pixel](https://tracker.example/p.gif)", r"\![pixel](https://tracker.example/p.gif)"),
    ("[docs](https://x.org/a?b=1&c=2) and http://localhost:8501/?q=1&r=2", None),  # kept as written
    ("costs $5 and $10, or $x$", r"costs \$5 and \$10, or \$x\$"),
    # a bare address that Markdown would run on through `"` or `{`: cut where GFM cuts, as an explicit link
    ('=HYPERLINK("https://evil.invalid/a.","click")',
     '=HYPERLINK("[https&#58;//evil.invalid/a](<https://evil.invalid/a>).","click")'),
    ("(www.x.org/p?q=1&r=2){x}", "([www.x.org/p?q=1&amp;r=2](<http://www.x.org/p?q=1&amp;r=2>)){x}"),
    ('[docs](https://x.org/a)"x [see https://x.org/b](https://x.org/c)', None),  # targets and labels as written
    (":red[hot] :material/home: :smile:", f"&#58;red[hot] &#58;material/home&#58; &#58;{JOINER}smile&#58;"),
])
def test_hostile_or_special_text_becomes_plain_markdown(text, markdown):
    assert safe_markdown(text) == (text if markdown is None else markdown)


def test_markdown_structure_survives_and_code_is_left_as_written():
    table = "| step | cost |\n|---|---|\n| **one** | `$5 <b>` |"
    fence = "```python\nif a < b and cost == '$5':\n    print('<script>')\n```"
    text = f"### **Step 1**\nFirst line\nsecond line\n\n- item\n- item\n\n{table}\n\n{fence}\n\nend"
    shown = safe_markdown(text)
    assert shown.startswith("###### **Step 1**  \nFirst line  \nsecond line\n\n- item  \n- item\n\n")  # line breaks kept
    assert table.replace("\n", "  \n") in shown and f"\n{fence}\n" in shown
    assert not UNESCAPED_LT.search(shown.replace(fence, "").replace("`$5 <b>`", ""))


def test_code_cannot_be_misread_into_a_script_link():
    fence = "```\n[x](data:text/html,hi) <javascript:alert(1)> [ok](https://x.org)\n```"
    shown = f"```\n[x]{JOINER}(data:text/html,hi) <{JOINER}javascript:alert(1)> [ok](https://x.org)\n```"
    assert safe_markdown(fence) == shown


@pytest.mark.parametrize("stored", [
    "Claude: Here is the module:\n\n```python\n",
    "Claude: ```python",  # the label stands apart, then the fence alone
    "Kai: see below\n> ~~~ js\n\n\n",
])
def test_an_unclosed_fence_with_nothing_after_it_shows_as_text_not_an_empty_code_block(stored):
    from markdown_it import MarkdownIt

    at = AppTest.from_function(_verbatim_app, args=(stored, None)).run()
    assert not at.exception
    rendered = MarkdownIt("commonmark").render(at.markdown[0].value)
    assert "<code" not in rendered and "<pre" not in rendered
    assert re.search(r"(```|~~~) ?(python|js)", rendered)  # the fence line is still shown, as the text it is


def test_an_unclosed_fence_with_code_after_it_is_still_a_code_block():
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").render(safe_markdown("Here:\n\n```python\nx = 1\n"))
    assert "<pre><code class=\"language-python\">x = 1\n</code></pre>" in rendered


# -- show_verbatim ---------------------------------------------------------------------------------


def _verbatim_app(content: str, mentions: dict | None) -> None:
    from dashboard.text import show_verbatim

    show_verbatim(content, key="drawer-1", mentions=mentions)


def test_show_verbatim_renders_markdown_and_its_raw_toggle_shows_the_stored_text():
    stored = ("\n  Harry: ### Plan\n**ask** <@U0BMYT2FL> about <script>x</script>"
              "\ue200cite\ue202turn0search1\ue201\r\n$5 \n")
    at = AppTest.from_function(_verbatim_app, args=(stored, NAMES)).run()
    assert not at.exception
    assert [m.value for m in at.markdown] == [safe_markdown(display_text(stored, NAMES)).strip()]
    assert "@Harry Potter" in at.markdown[0].value and "\ue200" not in at.markdown[0].value
    assert not at.code and at.toggle(key="drawer-1").value is False
    at.toggle(key="drawer-1").set_value(True).run()
    assert not at.markdown and [c.value for c in at.code] == [stored]  # byte for byte, marks and all
    assert stored.encode() == at.code[0].value.encode()


def test_a_closed_cards_snippet_shows_words_not_markdown_marks():
    text = "Kai: ### Plan\n**Bold** and __strong__, `code` and [the docs](https://x.org/d).\n```python\nx = 1\n```\n## Next"
    assert plain_text(text, None) == "Kai: Plan\nBold and strong, code and the docs.\nx = 1\nNext"
    assert plain_text("2 * 3 * 4 and a_b_c", None) == "2 * 3 * 4 and a_b_c"  # no pair of marks: as written


def test_a_pasted_image_shows_as_its_description_in_a_card_and_in_the_open_drawer():
    image = "data:image/png;base64," + "iVBORw0KGgo" * 400
    text = f"User: here is the chart\n\n{image}\n\nwhat does it show?"
    for shown in (plain_text(text, None), display_text(text, None)):
        assert "iVBORw0KGgo" not in shown and "[4,422 characters of a data URI]" in shown
        assert shown.startswith("User: here is the chart") and shown.endswith("what does it show?")
