"""``launchplan migrate``: old command lines rewritten for a release, each change noted."""

from __future__ import annotations

import json

from launchplan.commands.main import main
from launchplan.input.migrations import rewrite


def test_rewrite_keeps_order_and_values():
    argv, notes = rewrite(["--tp", "4", "--enable-ep-moe", "--cuda-graph-bs", "1", "2", "4",
                           "--cuda-graph-max-bs=64", "--enable-dp-attention", "--dp", "4"])
    assert argv == ["--tp", "4", "--ep-size", "4", "--cuda-graph-bs-decode", "1", "2", "4",
                    "--cuda-graph-max-bs-decode", "64", "--attn-dp-size", "4"]
    assert len(notes) == 4


def test_migrate_prints_a_line_that_plans(capsys):
    code = main(["migrate", "--to", "0.5.23", "--gpu", "h100", "--model-path", "qwen3-30b-a3b",
                 "python", "-m", "sglang.launch_server", "--tp", "4", "--enable-ep-moe",
                 "--cuda-graph-max-bs", "128", "--format", "json"])
    data = json.loads(capsys.readouterr()[0])
    assert code == 0 and data["verdict"] == "starts"
    assert data["command"].startswith("python -m sglang.launch_server --model-path qwen3-30b-a3b")
    assert "--ep-size 4" in data["command"] and "--cuda-graph-max-bs-decode 128" in data["command"]
    # following it: the new line resolves as it stands
    code = main(["resolve", "--gpu", "h100", "--model-path", "qwen3-30b-a3b", *data["argv"],
                 "--format", "json"])
    resolved = json.loads(capsys.readouterr()[0])["resolved"]
    assert code == 0 and resolved["ep_size"] == 4


def test_migrate_between_rule_sets_says_whether_the_plan_changed(capsys):
    same = ["migrate", "--from", "0.5.23", "--to", "default", "--gpu", "h100", "--model-path",
            "llama-3.1-8b", "--tp", "2"]
    assert main(same) == 0
    assert "the plan is the same" in capsys.readouterr()[0]
    changed = ["migrate", "--from", "0.5.23", "--to", "default", "--gpu", "b200",
               "--model-path", "llama-3.1-8b", "--attention-backend", "fa4",
               "--cuda-graph-backend-prefill", "full"]
    assert main(changed) == 1
    assert "page_size" in capsys.readouterr()[0]


def test_migrate_from_reads_the_old_line_with_its_own_releases_flags(capsys):
    # the old side is parsed against 0.5.21's surface: its tc_piecewise backend and compiler
    # flag plan there (they were read as 0.5.23 flags, refused, and the change went unreported)
    code = main(["migrate", "--from", "0.5.21", "--to", "0.5.23", "--gpu", "h100",
                 "--model-path", "llama-3.1-8b", "--cuda-graph-backend-prefill", "tc_piecewise",
                 "--cuda-graph-tc-compiler", "inductor", "--format", "json"])
    data = json.loads(capsys.readouterr()[0])
    assert data["old_error"] is None and code == 1
    fields = {d["field"]: d for d in data["differences"]}
    assert fields["cuda_graph_config.prefill.backend"]["right"] == "breakable"


def test_diff_reads_each_side_with_its_own_releases_flags(capsys):
    code = main(["diff", "--compat", "0.5.21", "--to", "0.5.21", "--gpu", "h100",
                 "--model-path", "llama-3.1-8b", "--cuda-graph-tc-compiler", "eager", "--",
                 "--cuda-graph-tc-compiler", "inductor", "--format", "json"])
    out = capsys.readouterr()[0]
    assert code in (0, 1) and "cuda_graph_tc_compiler" in out


def test_a_pasted_model_gives_way_to_the_model_path_given(capsys):
    # SGLang keeps the last of --model-path and --model: the pasted model would have run
    code = main(["migrate", "--gpu", "a100", "python3 -m sglang.launch_server --model "
                 "deepseek-ai/DeepSeek-Coder-V2-Lite-Base --enable-mla --disable-radix "
                 "--trust-remote-code", "--model-path", "deepseek-v2-lite", "--format", "json"])
    data = json.loads(capsys.readouterr()[0])
    assert code == 0 and "--model " not in data["command"].replace("--model-path", "")
    assert data["argv"] == ["--disable-radix", "--trust-remote-code"]
    assert any("--model deepseek-ai/DeepSeek-Coder-V2-Lite-Base replaced" in n
               for n in data["changes"])


def test_migrate_reads_abbreviations_by_the_release_a_pasted_text_names(capsys):
    # 0.4.6's parser read --enable-ep as --enable-ep-moe; 0.5.23's reads --enable-eplb
    code = main(["migrate", "--gpu", "h100", "pip install sglang==0.4.6.post5\n"
                 "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 2 "
                 "--enable-ep", "--model-path", "qwen3-30b-a3b", "--format", "json"])
    data = json.loads(capsys.readouterr()[0])
    assert code == 0 and data["argv"] == ["--tp", "2", "--ep-size", "2"]


def test_a_migrated_line_that_cannot_be_planned_here_is_still_printed(capsys, monkeypatch):
    """sgl-project/sglang PR #4218's old line: ``--speculative-draft`` (0.4.2-0.5.1's unique
    prefix) is migrated, but its draft (a Hub id) is not on this machine: the rewrite is
    still the answer, printed, and the plan's reason goes to stderr (exit 2)."""
    import json

    from launchplan.commands.main import main

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    text = ("python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-R1 --speculative-algo "
            "EAGLE --speculative-draft lmsys/DeepSeek-R1-NextN-Block-INT8 --tp 16")
    code = main(["migrate", "--gpu", "b200", text, "--model-path", "deepseek-r1",
                 "--format", "json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert code == 2 and data["verdict"] is None and "draft" in data["plan_error"]
    assert "--speculative-draft-model-path" in data["argv"]
    assert err.startswith("launchplan: the migrated line could not be planned")
