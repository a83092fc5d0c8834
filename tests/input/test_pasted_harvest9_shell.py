"""Shell, page and text forms a ninth harvest of real launch texts found misread: each test
fails without its fix."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.pasted import unpaste


def test_an_array_item_of_a_quoted_run_time_value_stays_one_open_word():
    """``IP="$(hostname -i)"`` then ``ARGS=(... --host "$IP" ...)``: bash keeps the quoted
    item one word whatever the command prints, so the array's other items are read and the
    host stays open (find_string id 58556557971, a Kunpeng CPU PD ``server.sh``)."""
    text = ('IP="$(hostname -i)"\nARGS=(\n    --model-path qwen3-8b\n    --host "$IP"\n'
            '    --tp 2\n)\npython -m sglang.launch_server "${ARGS[@]}"\n')
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--host", "$(hostname -i)",
                                  "--tp", "2"]
    braced = text.replace('"$IP"', '"${IP}"')
    assert unpaste([braced])[0] == unpaste([text])[0]
    held = 'IP="$(hostname -i)"\nARGS=(python -m sglang.launch_server --host "$IP" --tp 2)\n'
    assert unpaste([held])[0] == ["--host", "$(hostname -i)", "--tp", "2"]


def test_an_array_item_of_a_quoted_value_with_spaces_is_not_split():
    """A double-quoted ``"$NAME"`` item is one word in bash, spaces and all."""
    text = ('NAME="my model"\nARGS=(--model-path qwen3-8b --served-model-name "$NAME")\n'
            'python -m sglang.launch_server "${ARGS[@]}"\n')
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--served-model-name",
                                  "my model"]


WRITTEN = ("cat << 'EOF' > /opt/run.sh\n"
           "python -m sglang.launch_server --model-path qwen3-8b --tp 2\nEOF\n"
           "chmod +x /opt/run.sh\n")


@pytest.mark.parametrize("run", [
    "/opt/run.sh", "D=/opt\n$D/run.sh", "setsid /opt/run.sh &",
    "nohup /opt/run.sh > /tmp/sglang.log 2>&1 &", "tmux new -d 'bash /opt/run.sh'",
    "bash -c 'bash /opt/run.sh'", 'tmux new-session -d -s sglang "/opt/run.sh"'])
def test_a_written_script_run_by_its_path_or_in_another_shell_is_read(run):
    """Setup scripts write ``/opt/run.sh`` with a here-document and run it by its path, or
    hand it to tmux / ``bash -c``: the file's launch is the script's (find_string id
    3983621302, a GPU box setup script)."""
    assert unpaste([WRITTEN + run + "\n"])[0] == ["--model-path", "qwen3-8b", "--tp", "2"]


def test_reading_a_written_script_by_its_path_runs_nothing():
    """``cat /opt/run.sh`` shows the file; it does not run it."""
    with pytest.raises(InputError, match="got none"):
        unpaste([WRITTEN + "cat /opt/run.sh\n"])


MAKEFILE = ("cat << 'EOF' > /srv/app/Makefile\n.PHONY: serve clean\nMODEL ?= qwen3-8b\n"
            "serve:\n\t@echo starting\n"
            "\tCUDA_VISIBLE_DEVICES=5 python -m sglang.launch_server --model-path $(MODEL) \\\n"
            "\t\t--tp-size 1\n"
            "bench:\n\tpython -m sglang.launch_server --model-path $(MODEL) --tp 8\nEOF\n")


@pytest.mark.parametrize("run", [
    "cd /srv/app && make serve", "make -C /srv/app serve",
    'tmux new-session -d -s sglang "cd /srv/app && make serve"'])
def test_make_target_of_a_written_makefile_runs_that_rules_recipe(run):
    """A setup script writes a Makefile and starts ``make serve`` (in tmux): the launch is
    that rule's recipe, not another rule's (find_string id 3983621302)."""
    argv, env = unpaste([MAKEFILE + run + "\n"])
    assert argv == ["--model-path", "qwen3-8b", "--tp-size", "1"]
    assert env == ["CUDA_VISIBLE_DEVICES=5"]


PD_PAGE = ("Prefill node\n```bash\nexport CUDA_VISIBLE_DEVICES=0,1,2,3\n"
           "python3 -m sglang.launch_server --model-path qwen3-8b --tp 4 "
           "--disaggregation-mode prefill\n```\n\nDecode node\n```bash\n"
           "python3 -m sglang.launch_server --model-path qwen3-8b --tp 8 "
           "--disaggregation-mode decode\n```\n")


def test_a_pages_launching_block_keeps_its_exports_to_itself():
    """A prefill/decode page gives each node's block with its own exports and launch: the
    decode launch does not inherit the prefill block's ``CUDA_VISIBLE_DEVICES`` (find_string
    id 29811406988, a GB200 1P12D page), while a block of exports alone still carries."""
    assert unpaste([PD_PAGE], launch=1)[1] == ["CUDA_VISIBLE_DEVICES=0,1,2,3"]
    assert unpaste([PD_PAGE], launch=2)[1] == []
    setup = "Setup\n```bash\nexport HF_TOKEN=hf_x\n```\n" + PD_PAGE
    assert unpaste([setup], launch=1)[1] == ["HF_TOKEN=hf_x", "CUDA_VISIBLE_DEVICES=0,1,2,3"]
    assert unpaste([setup], launch=2)[1] == ["HF_TOKEN=hf_x"]
    continued = PD_PAGE.replace("prefill\n```", "prefill \\\n```")  # a last line's ``\``
    assert unpaste([continued], launch=1)[0][-1] == "prefill"


def test_a_decode_block_after_a_prefill_block_is_planned_on_all_gpus(capsys):
    """The same page through the CLI: ``--launch 2`` sees the node's 8 GPUs."""
    assert main(["resolve", "--gpu", "h100", "--launch", "2", PD_PAGE]) == 0
    assert "preflight: starts" in capsys.readouterr().out


TABS = ("NVIDIA:\n```yaml\ntype: service\nimage: lmsysorg/sglang:latest\ncommands:\n"
        "  - python3 -m sglang.launch_server --model-path qwen3-8b --tp 2\nresources:\n"
        "  gpu: 24GB..80GB:2\n```\nAMD:\n```yaml\ntype: service\n"
        "image: lmsysorg/sglang:v0.5.21-rocm700-mi30x\ncommands:\n"
        "  - python3 -m sglang.launch_server --model-path qwen3-8b --tp 2\nresources:\n"
        "  gpu: MI300X:2\n```\n")


def test_a_vendor_tab_lends_its_gpu_and_release_to_no_other_launch(capsys):
    """A docs page with NVIDIA and AMD tabs, each a dstack task with its image and GPU:
    launch 1 (NVIDIA) names no GPU type and no release, so neither the AMD tab's MI300X nor
    its image's 0.5.21 plans it (find_string id 2028442403, dstack's SGLang page)."""
    assert main(["resolve", "--launch", "1", "--format", "json", TABS]) == 2
    assert "--gpu: required" in capsys.readouterr().err
    assert main(["resolve", "--gpu", "h100", "--launch", "1", "--format", "json", TABS]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compat"] == "default"
    assert not any("MI300X" in note or "0.5.21" in note for note in data["warnings"])
    assert main(["resolve", "--launch", "2", "--format", "json", TABS]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["compat"] == "0.5.21"
    assert any(note.startswith("--gpu mi300x: the pasted text asks for it") and
               note.endswith("give --gpu to plan on another") for note in data["warnings"])


def test_a_pasted_gpu_count_note_does_not_say_the_user_named_one(capsys):
    """With ``--gpu h100`` and no ``--gpu-count``, the task's count is noted as the task's,
    one GPU in the singular, with how to plan another (not "--gpu-count names another")."""
    text = TABS.replace("MI300X:2", "MI300X:1")
    assert main(["resolve", "--gpu", "h100", "--launch", "2", "--format", "json", text]) == 0
    notes = json.loads(capsys.readouterr().out)["warnings"]
    assert ("--gpu-count 1: the pasted text's task asks for 1 GPU (gpu: MI300X:1); "
            "give --gpu-count to plan another count") in notes


def test_a_launch_with_a_subset_of_anothers_flags_is_not_called_the_same(capsys):
    """DeepSeek pages list TP + DP attention beside pure TP: the summary says what the
    second goes without, not "the same flags as another" (SGLang's DeepSeek-V3.2 page)."""
    text = ("python -m sglang.launch_server --model-path qwen3-8b --tp 8 --dp 8 "
            "--enable-dp-attention\n\npython -m sglang.launch_server --model-path qwen3-8b "
            "--tp 8\n")
    assert main(["resolve", "--gpu", "h100", "--format", "json", text]) == 0
    notes = json.loads(capsys.readouterr().out)["warnings"]
    assert any("[2] without --dp --enable-dp-attention" in note for note in notes)
    same = text.replace(" --dp 8 --enable-dp-attention", "")
    assert main(["resolve", "--gpu", "h100", "--format", "json", same]) == 0
    notes = json.loads(capsys.readouterr().out)["warnings"]
    assert any("[2] the same flags as another" in note for note in notes)


def test_a_rust_raw_string_script_keeps_its_closing_quote_off_the_last_value():
    """A Rust function returns a bash script as ``r#"..."#``: the ``"#),`` after it is code,
    not part of ``--port``'s value (find_string id 52481207104, an install-script table)."""
    text = ('pub fn script(engine: &str) -> Option<&\'static str> {\n    match engine {\n'
            '        "sglang" => Some(r#"\n#!/bin/bash\n'
            'python3 -m sglang.launch_server --model-path qwen3-8b --port 30000 &\n'
            'echo "Started: python3 -m sglang.launch_server --model-path qwen3-8b --port 30000"\n'
            '        "#),\n        _ => None,\n    }\n}\n')
    # (the install table's own script only echoes its hint, which starts nothing: here it
    # runs the launch before it, as the table's other engines' scripts do)
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--port", "30000"]


def test_a_json_escaped_body_is_read_as_the_text_it_holds():
    """A pull request's body as ``gh api`` dumps it: line ends and continuation backslashes
    written as escapes (``\\\\\\r\\n``) are decoded, not read as words ``\\rn`` and values
    ``4rn`` (find_string id 70512782231, a JSON dump of a PR body)."""
    text = ("baseline\\r\\n  python3 -m sglang.launch_server \\\\\\r\\n    --model-path qwen3-8b"
            " \\\\\\r\\n    --tp 4\\r\\n")
    notes: list[str] = []
    assert unpaste([text], notes=notes)[0] == ["--model-path", "qwen3-8b", "--tp", "4"]
    assert any("JSON-escaped" in note for note in notes)
    lf = text.replace("\\r\\n", "\\n")
    assert unpaste([lf])[0] == ["--model-path", "qwen3-8b", "--tp", "4"]


def test_a_powershell_here_string_with_escaped_backticks_is_the_script_it_writes():
    """A PowerShell script writes its launch script from an expandable here-string, each
    line continued with an escaped backtick (```` `` ````) and its variables escaped
    (```` `$PORT ````): read as the script written, not ```` `` ```` as a positional argument
    (find_string id 19843744829, a ROCm Qwen2.5-VL deploy script)."""
    text = ('$s = @"\n`$PORT = 8000\npython -m sglang.launch_server ``\n'
            '  --model-path qwen3-8b ``\n  --port `$PORT ``\n  --tp 2\n"@\n'
            '$s | Out-File -FilePath "launch.ps1"\n')
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--port", "8000", "--tp", "2"]
