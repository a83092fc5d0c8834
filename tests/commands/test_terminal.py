"""Tables for people: Rich on a terminal, plain text (no escape codes) when piped."""

from __future__ import annotations

import io

from launchplan import resolve
from launchplan.commands.explain import print_explanation
from launchplan.commands.output import print_plan, render_table
from launchplan.explain import explain_field


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def plan():
    return resolve(["--attention-backend", "fa4", "--page-size", "16"], gpu="b200",
                   model_path="llama-3.1-8b", trace=True)


def test_piped_output_is_plain_text():
    out = io.StringIO()
    print_plan(plan(), out)
    text = out.getvalue()
    assert "\x1b[" not in text and "page_size" in text and "fa4_page_constraint" in text
    assert "─" not in text and "┃" not in text


def test_terminal_output_uses_rich_tables():
    out = Terminal()
    render_table(("a", "b"), [("x", 1)], out)
    assert "┃" in out.getvalue() or "│" in out.getvalue()
    out = Terminal()
    print_explanation(explain_field(plan(), "page_size"), out)
    assert "fa4_page_constraint" in out.getvalue() and ("│" in out.getvalue())


def test_piped_explanation_is_plain():
    out = io.StringIO()
    print_explanation(explain_field(plan(), "page_size"), out)
    assert out.getvalue().startswith("page_size = 128\n") and "│" not in out.getvalue()
