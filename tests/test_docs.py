"""The README keeps up with the code: every CLI command and MCP tool is documented, the snippet parses."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest

from mempalace.cli import main
from tests.test_mcp import TOOLS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start:end]


@pytest.mark.parametrize("command", main.list_commands(click.Context(main)))  # the lazily loaded ones too
def test_every_command_is_in_the_readme_command_list(command):
    assert re.search(rf"^  {re.escape(command)}\b", section("Command line"), re.MULTILINE), command


def test_the_command_list_says_delete_asks_on_a_terminal_and_names_its_yes_option():
    entry = re.search(r"^  delete .*(?:\n {30,}.*)*", section("Command line"), re.MULTILINE)[0]
    assert "--yes" in entry and "asks" in entry and "terminal" in entry and "trash" in entry, entry


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_every_mcp_tool_is_named_in_the_readme(tool):
    assert f"`{tool}`" in section("For AI agents: the MCP server")


def test_the_mcp_client_snippet_is_valid_json_that_runs_the_mcp_command():
    snippet = re.search(r"```json\n(.*?)```", section("For AI agents: the MCP server"), re.DOTALL)[1]
    server = json.loads(snippet)["mcpServers"]["mempalace"]
    assert server["command"].endswith("mempalace") and server["args"][0] == "mcp"
