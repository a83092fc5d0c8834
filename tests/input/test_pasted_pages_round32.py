"""Pages copied whole: a block that only lists flags with prose after it, and a rendered
docs page (its fences gone) of prose and another tool's YAML that starts no launch."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.input.pasted import unpaste

FLAGS_BLOCK = "```\n--kv-cache-dtype fp8_e4m3\n--tp 2\n```\n"


@pytest.mark.parametrize("after", [
    # an inline code span in the sentence after the block: a backtick glued to a value
    "The MTP variant adds `--speculative-num-steps 3 --speculative-num-draft-tokens 4` and "
    "`--use-chat-template` on the bench client.",
    "Also add `--speculative-num-steps 3`.",
    "It crashes with the MTP flags on.\n\nAny idea?",
])
def test_prose_after_a_block_of_bare_flags_is_the_pages_text(after):
    assert unpaste([FLAGS_BLOCK + "\n" + after]) == (
        ["--kv-cache-dtype", "fp8_e4m3", "--tp", "2"], [])


def test_the_caption_over_a_flag_block_stays_a_caption_and_the_rest_is_text():
    notes: list[str] = []
    page = ("### Launch scripts\nServer args:\n\n" + FLAGS_BLOCK + "\nThe MTP variant adds "
            "`--speculative-num-steps 3`.\n\nEnv:\n```\nexport SGLANG_X=1\n```\n")
    assert unpaste([page], notes=notes) == (
        ["--kv-cache-dtype", "fp8_e4m3", "--tp", "2"], ["SGLANG_X=1"])
    assert any("captions" in note for note in notes)


def test_a_flag_line_or_launch_outside_the_block_is_still_read():
    # the page's lines that are commands, not sentences, stay as they were read
    assert unpaste(["--model-path m\n\n" + FLAGS_BLOCK + "\nthen it runs."])[0] == [
        "--model-path", "m", "--kv-cache-dtype", "fp8_e4m3", "--tp", "2"]


def test_a_page_of_bare_flags_plans_with_the_model_given(capsys):
    page = FLAGS_BLOCK + "\nThe MTP variant adds `--speculative-num-draft-tokens 4`.\n"
    assert main(["resolve", "--gpu", "h100", page, "--model-path", "qwen3-8b"]) == 0
    capsys.readouterr()
    assert main(["resolve", "--gpu", "h100", page]) == 2
    assert "--model-path: required" in capsys.readouterr().err  # not "got '4`'"


RENDERED_DOCS = """\
Configuration#

Required Settings#

See the complete configuration structure in configs/deployment/sglang.yaml.

deployment:
  type: sglang
  image: lmsysorg/sglang:latest
  hf_model_handle: hf-model/handle  # HuggingFace ID
  served_model_name: your-model-name

Required Fields:

  • served_model_name: Name for the served model

Optional Settings#

deployment:
  tensor_parallel_size: 8    # Default: 8
  extra_args: ""             # Extra SGLang server arguments
"""


def test_a_rendered_docs_page_without_a_launch_says_so_not_a_yaml_position(capsys):
    assert main(["resolve", "--gpu", "h100", RENDERED_DOCS]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected an SGLang launch" in err
    assert "got none: it is a page of prose ('See the complete" in err
    assert "line 7" not in err and "mapping values" not in err


def test_a_broken_manifest_that_launches_is_still_a_yaml_error(capsys):
    # a launch command in it: a manifest that fails to load, reported as one
    broken = RENDERED_DOCS.replace(
        '  extra_args: ""', "  command: python3 -m sglang.launch_server --model-path m")
    assert main(["resolve", "--gpu", "h100", broken]) == 2
    assert "expected YAML or a JSON array" in capsys.readouterr().err
