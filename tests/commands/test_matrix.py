"""`launchplan matrix`: the support matrix computed from the rules, and its page rendered
by a real browser (headless Chromium, installed by .ci/run)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from launchplan.checks.matrix import KINDS, SWITCHES, backend_choices, cells
from launchplan.commands.main import main
from launchplan.facts.models import load_model
from launchplan.facts.targets import SIMULATED


def expected_count(gpus) -> int:
    per_gpu = sum(len(backend_choices(load_model(m))) for _, m in KINDS) * len(SWITCHES)
    return per_gpu * len(gpus)


def find(table, **want):
    return next(c for c in table if all(getattr(c, k) == v for k, v in want.items()))


@pytest.fixture(scope="module")
def table():
    return list(cells(list(SIMULATED)))


def test_every_target_backend_kind_and_switch_has_a_cell(table):
    assert len(table) == expected_count(SIMULATED)
    assert {c.verdict for c in table} <= {"starts", "fails-at-start", "runtime-error",
                                          "refused", "n/a"}
    assert {c.kind for c in table} == {k for k, _ in KINDS}


def test_cells_say_what_the_rules_decide(table):
    refused = find(table, gpu="a100", model="llama-3.1-8b", choice="trtllm_mha", switch="plain")
    assert refused.verdict == "refused" and "trtllm_mha_platform_checks" in refused.reason
    fa4 = find(table, gpu="b200", model="llama-3.1-8b", choice="fa4", switch="plain")
    assert (fa4.backend, fa4.page_size, fa4.verdict) == ("fa4", 128, "starts")
    # the later FA4 fix: under a full prefill graph fa4 keeps page 1
    full = find(table, gpu="b200", model="llama-3.1-8b", choice="fa4",
                switch="full prefill graph")
    assert full.page_size == 1
    fa3 = find(table, gpu="b200", model="llama-3.1-8b", choice="fa3", switch="plain")
    assert fa3.verdict == "fails-at-start" and fa3.reason.startswith("fa3-gpu")


def test_markdown_and_json(capsys):
    assert main(["matrix", "--gpu", "h100", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["cells"]) == expected_count(["h100"])
    assert main(["matrix", "--gpu", "h100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### MHA/GQA (llama-3.1-8b)")
    assert out.count("\n| h100 |") == expected_count(["h100"]) // len(SWITCHES)


def test_bad_options_are_one_line(capsys):
    assert main(["matrix", "--format", "csv"]) == 2
    assert main(["matrix", "--gpu", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def render(path) -> tuple[str, str]:
    """The DOM Chromium built from the page, and what it logged (console messages)."""
    browser = _chromium()
    if browser is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium package)")
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                           "--enable-logging=stderr", "--v=0", "--dump-dom",
                           path.as_uri()], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr


class Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self.links = 0
        self._text: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("a", "link", "script", "img", "iframe"):
            self.links += 1
        if tag == "td" and "cell" in (a.get("class") or ""):
            self.cells.append(a)
            self._text = []

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "td" and self._text is not None:
            self.cells[-1]["text"] = " ".join("".join(self._text).split())
            self._text = None


def test_the_page_renders_in_headless_chromium(tmp_path, capsys):
    page = tmp_path / "matrix.html"
    assert main(["matrix", "--html", str(page)]) == 0
    dom, log = render(page)
    parsed = Cells()
    parsed.feed(dom)
    assert len(parsed.cells) == expected_count(SIMULATED)
    assert parsed.links == 0  # self-contained: nothing to follow or load
    refused = next(c for c in parsed.cells if c["data-model"] == "llama-3.1-8b"
                   and c["data-gpu"] == "a100" and c["data-choice"] == "trtllm_mha"
                   and c["data-switch"] == "plain")
    assert refused["text"] == "refused" and "SM90" in refused["title"]
    assert not re.search(r":CONSOLE", log), log[-2000:]


def test_the_console_check_would_see_an_error(tmp_path):
    # the check above is only worth something if Chromium reports console errors this way
    page = tmp_path / "bad.html"
    page.write_text("<html><body><script>console.error('seen')</script></body></html>")
    _, log = render(page)
    assert re.search(r":CONSOLE.*seen", log)
