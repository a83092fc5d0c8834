"""Older SGLang flags get their exact replacement, not a did-you-mean."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.input.migrations import MIGRATIONS


@pytest.mark.parametrize("flag", sorted(MIGRATIONS))
def test_each_old_flag_names_its_replacement(flag, capsys):
    code = main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", flag])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1
    assert f"use {MIGRATIONS[flag].new}" in err
    assert "did you mean" not in err


def test_the_replacement_works_when_followed(capsys):
    for argv in (["--cuda-graph-max-bs-decode", "64"], ["--moe-runner-backend",
                                                        "flashinfer_cutlass"],
                 ["--attention-backend", "triton", "--sampling-backend", "pytorch"]):
        code = main(["resolve", "--gpu", "b200", "--model-path", "qwen3-30b-a3b", *argv,
                     "--format", "json"])
        capsys.readouterr()
        assert code == 0, argv


@pytest.mark.parametrize("flag", sorted(MIGRATIONS))
def test_each_replacement_is_a_command_line_sglang_accepts(flag):
    from launchplan.input.cli import parse_argv

    words = ["8" if w == "N" else w for w in MIGRATIONS[flag].new.split()
             if not w.startswith("(") and w not in ("[N", "...]", "=", "--tp-size)")]
    parsed = parse_argv(words)  # bad input would raise, naming the flag
    assert parsed.values, words
