"""Forms of pasted launches a harvest of Chinese and Japanese pages, issue bodies and tool
output showed launchplan misreading. Each test fails on the reader before its form was
handled.
"""

from __future__ import annotations

import re

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.pasted import unpaste

LAUNCH = "python3 -m sglang.launch_server --model-path qwen3-8b --tp 2"


@pytest.mark.parametrize("text, character", [
    (f"export CUDA_VISIBLE_DEVICES=0,1；{LAUNCH}", "U+FF1B"),
    (f"CUDA_VISIBLE_DEVICES=0,1；{LAUNCH}", "U+FF1B"),
    (f"cd /srv/models ＆＆ {LAUNCH}", "U+FF06"),
    (f"source .venv/bin/activate｜{LAUNCH}", "U+FF5C"),
])
def test_a_launch_only_a_full_width_operator_would_start_is_refused(text, character, capsys):
    # an input method's ； ＆ ｜ are letters to the shell: the command is export's (cd's,
    # source's), which fails on -m, and no launch runs; reading one would plan a launch
    # that never starts, and drop the environment the text meant to set
    with pytest.raises(InputError, match=re.escape(character)):
        unpaste([text])
    assert main(["resolve", "--gpu", "h100", text]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert character in first and "the shell runs" in first


@pytest.mark.parametrize("text, env", [
    (f"env NOTE=a；b {LAUNCH}", ["NOTE=a；b"]),  # env's value: env runs the launch
    (f"NOTE=a；b {LAUNCH}", ["NOTE=a；b"]),  # the command's own assignment
])
def test_a_full_width_operator_inside_a_value_leaves_the_launch_as_it_runs(text, env):
    assert unpaste([text]) == (["--model-path", "qwen3-8b", "--tp", "2"], env)


@pytest.mark.parametrize("text, character", [
    ("python3 -m sglang.launch_server ＼\n  --model-path qwen3-8b ＼\n  --tp 2", "U+FF3C"),
    (f"{LAUNCH} ＆", "U+FF06"),  # an input method's & to run it in the background
])
def test_a_flag_value_or_word_holding_a_full_width_operator_names_it(text, character, capsys):
    # the shell passes the character on inside the word: the error names it
    assert main(["resolve", "--gpu", "h100", text]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert character in first and "retype it as a plain" in first


DESCRIBED_POD = """\
Name:             sglang-7d9f8b-abcde
Namespace:        default
Containers:
  sglang:
    Container ID:  containerd://0f3c
    Image:         lmsysorg/sglang:latest
    Port:          30000/TCP
    Command:
      python3
      -m
      sglang.launch_server
    Args:
      --model-path
      qwen3-8b
      --tp
      2
      --json-model-override-args
      {"rope_scaling": null}
    State:          Running
    Environment:
      SGLANG_ENABLE_JIT_DEEPGEMM:  0
      HF_TOKEN:                    <set to the key 'token' in secret 'hf'>  Optional: false
      POD_IP:                       (v1:status.podIP)
    Mounts:
      /dev/shm from shm (rw)
"""


def test_kubectl_describe_lists_a_containers_words_one_a_line():
    # each Command/Args line is one argument (a value with spaces stays whole); the
    # Environment lines are the container's variables, those describe only names left out
    assert unpaste([DESCRIBED_POD]) == (
        ["--model-path", "qwen3-8b", "--tp", "2",
         "--json-model-override-args", '{"rope_scaling": null}'],
        ["SGLANG_ENABLE_JIT_DEEPGEMM=0"])


def test_kubectl_describe_of_a_shell_command_keeps_its_script_whole():
    # ``bash -c`` then the script: describe prints the script's lines under Args
    start = DESCRIBED_POD.index("    Command:")
    end = DESCRIBED_POD.index("    State:")
    text = DESCRIBED_POD[:start] + (
        "    Command:\n      /bin/bash\n      -c\n    Args:\n      export TP=2\n"
        "      python3 -m sglang.launch_server --model-path qwen3-8b --tp $TP\n"
    ) + DESCRIBED_POD[end:]
    assert unpaste([text]) == (["--model-path", "qwen3-8b", "--tp", "2"],
                               ["SGLANG_ENABLE_JIT_DEEPGEMM=0", "TP=2"])


SUPERVISOR = """\
[supervisord]
environment=HF_HOME="/data/hf"

[program:sglang]
command=/opt/conda/envs/sgl/bin/python -m sglang.launch_server --model-path qwen3-8b --tp 2
directory=/opt/sglang
environment=CUDA_VISIBLE_DEVICES="0,1",SGLANG_ENABLE_JIT_DEEPGEMM="0"
autorestart=true
"""


def test_a_supervisord_programs_environment_is_the_launchs():
    # environment=A="x",B="y" is supervisord's, not a shell variable named environment;
    # [supervisord]'s own environment= reaches every program, the program's after it
    assert unpaste([SUPERVISOR]) == (
        ["--model-path", "qwen3-8b", "--tp", "2"],
        ["HF_HOME=/data/hf", "CUDA_VISIBLE_DEVICES=0,1", "SGLANG_ENABLE_JIT_DEEPGEMM=0"])


def test_a_supervisord_command_is_run_without_a_shell():
    # supervisord splits command= itself: a $NAME in it reaches SGLang as written
    text = SUPERVISOR.replace("--tp 2", "--tp $TP")
    assert unpaste([text])[0] == ["--model-path", "qwen3-8b", "--tp", "$TP"]


def test_an_unset_variable_leaves_the_launchs_environment():
    # a script that exports a switch and unsets it again (an A/B arm, a cleanup step)
    # starts the launch without it
    text = ("export SGLANG_ENABLE_JIT_DEEPGEMM=0\nexport HF_HOME=/data/hf\n"
            "unset SGLANG_ENABLE_JIT_DEEPGEMM || true\n" + LAUNCH)
    assert unpaste([text]) == (["--model-path", "qwen3-8b", "--tp", "2"], ["HF_HOME=/data/hf"])


def test_a_page_showing_a_supervisord_section_beside_a_launch_reads_the_launch():
    # the page's shell block is its launch; its ini block only sketches supervisord
    page = ("```bash\nSGLANG_USE_MODELSCOPE=true " + LAUNCH + "\n```\n\n"
            "```ini\n[program:sglang]\ncommand=python -m sglang.launch_server ...\n"
            "autostart=true\n```\n")
    assert unpaste([page]) == (["--model-path", "qwen3-8b", "--tp", "2"],
                               ["SGLANG_USE_MODELSCOPE=true"])


KEY_SETTINGS_PAGE = """\
## 18. 当前 NPU smoke 配置

当前脚本：

```text
/srv/run_8p.sh
```

关键配置：

```bash
MODEL_PATH=/models/qwen3-8b

export SGLANG_RAGGED_VERIFY_MODE=static
export SGLANG_SIMULATE_ACC_LEN=4
unset SGLANG_SIMULATE_ACC_LEN

--tp-size 4
--chunked-prefill-size 2048
```

长度关系：

```text
gamma = 7
```
"""


def test_a_pages_block_of_flag_lines_is_read_without_its_prose_and_text_blocks():
    # no block starts a launch: the shell block's flag lines are the launch it describes,
    # its assignments the environment (less what it unsets); the page's captions, a
    # script's path and figures in text blocks are no arguments of it
    assert unpaste([KEY_SETTINGS_PAGE]) == (
        ["--tp-size", "4", "--chunked-prefill-size", "2048"],
        ["MODEL_PATH=/models/qwen3-8b", "SGLANG_RAGGED_VERIFY_MODE=static"])


def test_an_edit_of_a_value_that_is_itself_open_stays_open_as_written():
    # ``draft=${rest%%:*}`` of ``rest=${spec#*=}`` (spec from the loop over "$@"): the
    # edit applies to what rest becomes, not to its text; the open value keeps the edit
    text = ('for spec in "$@"; do\n  rest=${spec#*=}\n  draft=${rest%%:*}\n'
            '  python3 -m sglang.launch_server --model-path qwen3-8b '
            '--speculative-draft-model-path "$draft"\ndone\n')
    argv = unpaste([text])[0]
    assert argv[argv.index("--speculative-draft-model-path") + 1] == "${rest%%:*}"


def test_a_caption_ending_in_a_full_width_colon_is_prose_over_the_flags():
    # a Chinese page's "启动参数：" (U+FF1A) captions the flags as "Server args:" does
    notes: list[str] = []
    assert unpaste(["启动参数：\n--model-path qwen3-8b\n--tp 2\n"], notes=notes) == (
        ["--model-path", "qwen3-8b", "--tp", "2"], [])
    assert any("captions" in note for note in notes)
