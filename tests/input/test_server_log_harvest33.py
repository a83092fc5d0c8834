"""Start-up log reading, third log harvest (h8): the launch a log text shows is read as the
pasted-text reader reads it (its script's variables, colour codes, test-helper calls and
flag lists), a cut traceback header is a cut traceback, and a source build's version names
no release."""

from __future__ import annotations

import pytest

from launchplan.input.pasted import unpaste
from launchplan.input.pasted_release import named_version, source_build
from launchplan.input.server_log import parse_log, shell_assignments, shown_launch

# A committed Chinese test record "PD分离：deepseek-r1-fp8测试记录" (find_string id 54673115369,
# synced 2026-06-07 from a Feishu wiki; Hygon DCU, sglang 0.5.10rc0+das fork): the decode
# node's start script (lines as posted, a few left out), then its log.
HYGON_SCRIPT = (
    "HOST=$(hostname -I 2>/dev/null | awk '{print $1}')\n"
    'if [ -z "${HOST}" ]; then\n'
    "    HOST=$(hostname -i 2>/dev/null | awk '{print $1}')\n"
    "fi\n"
    "HOST=192.168.1.3\n"
    'PORT="30003"\n'
    "\n"
    "MASTER_IP=192.168.1.2\n"
    'DIST_PORT="5000"\n'
    'DIST_INIT_ADDR="${MASTER_IP}:${DIST_PORT}"\n'
    "\n"
    "model_path=/model/DeepSeek-R1-Channel-FP8\n"
    "model=${model_path##*/}\n"
    "tp=16\n"
    "pp=1\n"
    "nodes=2\n"
    "rank=1\n"
    "max_model_len=12400\n"
    "gpu_mem=0.9\n"
    'option="--numa-node 0 0 0 0 1 1 1 1"\n'
    'option+=" --disable-radix-cache "\n'
    'option+=" --chunked-prefill-size -1"\n'
    'option+=" --max-running-requests 256 "\n'
    'option+=" --speculative-algorithm EAGLE --speculative-num-steps 2  --speculative-ea'
    'gle-topk 1  --speculative-num-draft-tokens 1 "\n'
    "#SGLANG_HIP_PROF=1 hipprof --hip-trace --trace-off\n"
    "python3 -m sglang.launch_server --model-path $model_path ${option} --context-length"
    " $max_model_len \\\n"
    "                                --quantization w8a8_fp8 --kv-cache-dtype fp8_e4m3 \\\n"
    "                                --host $HOST  --port $PORT --trust-remote-code  \\\n"
    "                                --dist-init-addr ${DIST_INIT_ADDR} --nnodes $nodes "
    "--node-rank $rank \\\n"
    "                                --dtype bfloat16  --tp-size $tp --pp-size $pp \\\n"
    "                                --disaggregation-mode decode \\\n"
    "                                --mem-fraction-static $gpu_mem --attention-backend "
    "dcu_mla \\\n"
    "                                2>&1 | tee  ${LOG_FILE}\n"
)
HYGON_RECORDS = (
    "```bash {wrap}\n"
    "[2026-05-08 14:34:30 TP0] Load weight end. elapsed=32.67 s, type=DeepseekV3ForCausa"
    "lLM, quant=compressed-tensors, avail mem=101.38 GB, mem usage=41.72 GB.\n"
    "[2026-05-08 14:34:32 TP0] KV Cache is allocated. #tokens: 2659072, KV size: 87.01 GB\n"
    "[2026-05-08 14:34:32 TP0] Memory pool end. avail mem=14.15 GB\n"
    "KeyError: 'BLOCK_SIZE_M'\n"
    "\n"
    "[2026-05-08 14:34:42] Received sigquit from a child process. It usually means the c"
    "hild failed.\n"
)


def test_a_start_script_s_assignments_are_the_command_s_context() -> None:
    logged = parse_log(HYGON_SCRIPT + "\n" + HYGON_RECORDS)
    assert logged.command is not None and logged.command[0] == 26
    context = logged.command_context
    # every line that only sets a variable, in order; the `if` and the comment are not
    assert context.splitlines()[0].startswith("HOST=$(hostname -I")
    assert "tp=16" in context and 'option+=" --max-running-requests 256 "' in context
    assert "if [" not in context and "#SGLANG" not in context and "fi" not in context.split()
    argv, _ = unpaste([context + "\n" + logged.command[1]])
    assert argv[argv.index("--tp-size") + 1] == "16"
    assert argv[argv.index("--host") + 1] == "192.168.1.3"
    assert argv[argv.index("--dist-init-addr") + 1] == "192.168.1.2:5000"
    assert argv[argv.index("--max-running-requests") + 1] == "256"


def test_a_command_without_variables_pays_for_no_context() -> None:
    logged = parse_log("TP=2\npython -m sglang.launch_server --model-path m --tp 2\n"
                       "[2025-01-23 19:35:15 TP0] Load weight begin. avail mem=78.81 GB\n")
    assert logged.command is not None and logged.command_context == ""


@pytest.mark.parametrize(("text", "kept"), [
    ("export TP=2\nMEM=0.8; PORT=1\n", ["export TP=2", "MEM=0.8; PORT=1"]),
    ("declare -i N=4\nlocal X=1\n", ["declare -i N=4", "local X=1"]),
    ('OPTS="--a \\\n  --b"\n', ['OPTS="--a \\\n  --b"']),
    ("TP=2 python serve.py\nMODEL='open quote\n", []),  # a command besides; an open quote
    ("A=$(nproc)\n", ["A=$(nproc)"]),  # set by a command: kept, its reference left open
])
def test_only_lines_that_set_variables_are_taken(text: str, kept: list[str]) -> None:
    lines = text + "python -m sglang.launch_server --tp $TP\n"
    assert shell_assignments(lines, lines.count("\n")) == "\n".join(kept)


# GitHub Actions' raw log of a `run:` step (its script echoed in cyan, a reset after each
# line's backslash): h8's probe built from the Qwen3.8-27B-FP8 bring-up README's MI355X TP2
# command and records (find_string id 65830671609), byte for byte.
GHA_LOG = (
    "2026-08-20T03:10:01.4000001Z ##[group]Run python -m sglang.launch_server \\\n"
    "2026-08-20T03:10:02.4000002Z \x1b[36;1mpython -m sglang.launch_server \\\x1b[0m\n"
    "2026-08-20T03:10:03.4000003Z \x1b[36;1m  --model-path Qwen/Qwen3.8-27B-FP8 "
    "--mem-fraction-static 0.85 --max-running-requests 32 \\\x1b[0m\n"
    "2026-08-20T03:10:04.4000004Z \x1b[36;1m  --tp 2 --host 0.0.0.0 --port 8100\x1b[0m\n"
    "2026-08-20T03:10:05.4000005Z shell: /usr/bin/bash -e {0}\n"
    "2026-08-20T03:10:08.4000008Z ##[endgroup]\n"
    "2026-08-20T03:10:09.4000009Z [2026-08-20 03:10:54 TP0] Load weight end. elapsed=4.76 s, "
    "type=Qwen3_5ForConditionalGeneration, quant=fp8, fmt=e4m3, avail mem=264.75 GB, "
    "mem usage=14.49 GB.\n"
    "2026-08-20T03:10:11.4000011Z [2026-08-20 03:11:02 TP0] max_total_num_tokens=3228418, "
    "chunked_prefill_size=16384, max_prefill_tokens=16384, max_running_requests=32, "
    "context_len=262144, available_gpu_mem=75.82 GB\n")


def test_colour_codes_are_no_part_of_the_command_s_words() -> None:
    logged = parse_log(GHA_LOG)
    assert logged.command is not None and "\x1b" not in logged.command[1]
    argv, _ = unpaste([logged.command[1]])
    assert argv[argv.index("--tp") + 1] == "2" and argv[-1] == "8100"
    assert logged.memory.max_total_num_tokens == 3228418


def test_a_command_coloured_as_one_block_reads_whole() -> None:
    block = ("\x1b[36;1mpython -m sglang.launch_server \\\n  --model-path Qwen/Qwen3.8-27B-FP8 "
             "--tp 2 \\\n  --mem-fraction-static 0.85 --max-running-requests 32\x1b[0m\n"
             + GHA_LOG.split("\n", 7)[7])
    argv, _ = unpaste([parse_log(block).command[1]])  # type: ignore[index]
    assert argv[-2:] == ["--max-running-requests", "32"]


# sglang PR #18263 (fxmarty-amd, "Example crash" on MI355X): the search excerpt ends inside
# the traceback header the scheduler's record opens.
PR18263 = ("[2026-07-15 09:39:22] KV Cache is allocated. dtype: torch.bfloat16, #tokens: "
           "2227073, K size: 101.95 GB, V size: 101.95 GB\n"
           "[2026-07-15 09:39:22] Memory pool end. avail mem=60.65 GB\n"
           "[2026-07-15 09:39:24] Scheduler hit an exception: ")


@pytest.mark.parametrize("cut", ["T", "Trace", "Traceback (most rec", "", "Traceback (most "
                                 "recent call last):"])
def test_a_traceback_header_cut_anywhere_is_a_cut_traceback(cut: str) -> None:
    logged = parse_log(PR18263 + cut)
    assert logged.failure == ("Scheduler hit an exception (the log ends its traceback before "
                              "the error)")


def test_a_wrapper_record_with_text_after_it_is_still_quoted() -> None:
    logged = parse_log(PR18263 + "T\nsome later line\n")
    assert logged.failure == "Scheduler hit an exception: T"


# A committed test-failure report for SGLang's test/srt/xpu/test_nvidia_nemotron_3_nano.py on
# 4 x Intel Arc Pro B60 (find_string id 56880170874): the test's flag list, then the boot
# lines the author wrapped over two rows.
XPU_LIST = """\
XPU_SERVER_ARGS = [
    "--device", "xpu",
    "--tp=4",
    "--trust-remote-code",
    "--disable-radix-cache",           # NEW
    "--page-size", "64",
    "--mem-fraction-static", "0.85",    # CHANGED: 0.92 \u2192 0.85
    "--context-length", "8192",
    "--max-running-requests", "8",
]
```
"""
XPU_BOOT = """\
```
[TP0..3] Load weight end. elapsed=36.9 s, type=NemotronHForCausalLM,
         avail mem=7.95 GB, mem usage=14.76 GB
[TP0..3] KV Cache is allocated. #tokens: 1557504,
         K size: 2.23 GB, V size: 2.23 GB
```
"""
# the test's own call (test_nvidia_nemotron_3_nano.py), as h8's probe adds it to the report
XPU_CALL = ('process = popen_launch_server("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", '
            "DEFAULT_URL_FOR_TEST, timeout=600, other_args=XPU_SERVER_ARGS)\n```\n")


def test_a_flag_list_before_the_records_is_the_launch() -> None:
    logged = parse_log(XPU_LIST + "\nRun 3 boots:\n\n" + XPU_BOOT)
    assert logged.command is not None and logged.command[0] == 1
    argv, _ = unpaste([logged.command[1]])
    assert argv[:3] == ["--device", "xpu", "--tp=4"] and argv[-2:] == ["--max-running-requests",
                                                                      "8"]


def test_a_test_helper_call_is_read_as_plain_resolve_reads_it() -> None:
    text = "```python\n" + XPU_LIST.replace("```\n", "") + "\n" + XPU_CALL + "\n" + XPU_BOOT
    logged = parse_log(text)
    assert logged.command is not None and logged.command[0] == 13
    argv, _ = unpaste([logged.command[1]])
    assert argv[:2] == ["--model-path", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"]
    assert "--tp=4" in argv


def test_a_manifest_args_list_is_the_launch() -> None:
    args = ('args:\n  - "--device"\n  - "xpu"\n  - --tp=4\n  - "--mem-fraction-static"\n'
            '  - "0.85"\n\n')
    found = shown_launch(args)
    assert found is not None and found[0] == 1
    assert found[1] == "python -m sglang.launch_server --device xpu --tp=4 " \
                       "--mem-fraction-static 0.85"


@pytest.mark.parametrize("text", ['ARGS = ["--tp", "2"]  # one line\n',
                                  'args: ["--tp", "2"]\n'])
def test_a_list_on_one_line_is_the_launch(text: str) -> None:
    assert shown_launch(text) == (1, "python -m sglang.launch_server --tp 2")


@pytest.mark.parametrize("text", ["ITEMS = [\n  'a', 'b',\n]\n", "args:\n  - serve\n",
                                  "no list here -- at all\n"])
def test_a_list_of_no_flags_is_no_launch(text: str) -> None:
    assert shown_launch(text) is None


# sglang#26039 (8 x B300, nightly image nightly-dev-cu13-20260520-425dffbd): its check_env
# line; and an issue report's (find_string id 71227185424) of a source install.
@pytest.mark.parametrize(("version", "commit"), [("0.0.0.dev1+g0c8049d9b", "0c8049d9b"),
                                                 ("0.0.0.dev1+g4ccff141d", "4ccff141d"),
                                                 ("0.5.20.dev728", None), ("0.5.22", None)])
def test_setuptools_scm_s_placeholder_names_a_commit(version: str, commit: str | None) -> None:
    assert source_build(version) == commit


def test_a_placeholder_version_beside_a_release_leaves_the_release() -> None:
    text = "sglang: 0.0.0.dev1+g0c8049d9b\nimage: lmsysorg/sglang:v0.5.22-cu129\n"
    assert named_version([text]) == ("0.5.22", "lmsysorg/sglang:v0.5.22")
    assert named_version(["sglang: 0.0.0.dev1+g0c8049d9b\n"])[0] == "0.0.0.dev1+g0c8049d9b"


# The same report's serve command, its paths elided (`--lora-paths <7 adapters>`).
def test_a_placeholder_with_a_count_in_it_is_one_value() -> None:
    argv, _ = unpaste(["sglang serve --model-path <nvfp4-checkpoint> --enable-lora "
                       "--max-lora-rank 32 --max-loras-per-batch 7 --lora-paths <7 adapters> "
                       "--enable-hierarchical-cache"])
    assert argv[argv.index("--lora-paths") + 1] == "<7 adapters>"
    assert "adapters>" not in argv and argv[-1] == "--enable-hierarchical-cache"
