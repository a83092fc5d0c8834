"""Start-up logs of the fifth --from-log harvest (h17): a server_args line cut inside its
first field, SGLang's pool refusal quoted bare, a quote-reply, a failure-only tail planned
from the flags given, and memory figures no GPU of the target can hold."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main
from launchplan.errors import InputError
from launchplan.input.server_log import parse_log

# sgl-project/sglang#29562, dengni-10000's comment of 2026-06-28: the command, its rule
# warnings, then the server_args line where the excerpt ends (cut in its first field)
GLM52_CUT = """It's not lucky. Error still comes.
sglang serve \\
    --model /data/models/nvidia/GLM-5.2-NVFP4 \\
    --tensor-parallel-size 8 \\
    --quantization modelopt_fp4 \\
    --tool-call-parser glm47 \\
    --reasoning-parser glm45 \\
    --trust-remote-code \\
    --mem-fraction-static 0.8 \\
    --disable-shared-experts-fusion \\
    --disable-flashinfer-autotune
[2026-06-28 13:58:47] Setting page size to 64 for DeepSeek DSA.
[2026-06-28 13:58:47] Setting KV cache dtype to fp8_e4m3 for DeepSeek DSA on SM12 device.
[2026-06-28 13:58:50] server_args=ServerArgs(model_path='/da"""


@pytest.mark.parametrize("cut", ["server_args=ServerArgs(model_path='/da",
                                 "server_args=ServerArgs(model_",
                                 "server_args={'model_path': '/da"])
def test_a_line_cut_in_its_first_field_is_planned_from_the_command_above_it(cut) -> None:
    logged = parse_log(GLM52_CUT.replace("server_args=ServerArgs(model_path='/da", cut))
    assert logged.values == {} and logged.truncated and logged.line == 14
    assert logged.command is not None and logged.command[0] == 2
    assert any("cut off before its first complete field" in n for n in logged.notes)


def test_a_line_cut_in_its_first_field_with_no_command_names_the_cut_text() -> None:
    with pytest.raises(InputError) as caught:
        parse_log("[2026-06-28 13:58:50] server_args=ServerArgs(model_path='/da", "x.log")
    message = caught.value.message
    assert "'model_path=\\'/da'" in message or "model_path='/da" in message
    assert "x.log" not in message and "no launch command" in message


# a DGX Spark run journal, RUN-0005 (2026-09-20): SGLang's refusal quoted bare, wrapped by
# its author after "under"
RUN0005 = """## Error Or Observation

```text
ValueError: Loaded weights leave no GPU memory for the KV cache under
--mem-fraction-static=0.45.
```

The service's restart policy restarted the container after this scheduler startup failure.
"""


def test_the_pool_refusal_quoted_bare_is_the_failed_start_up() -> None:
    logged = parse_log(RUN0005)
    assert logged.memory.pool_made is False
    assert logged.failure == ("ValueError: Loaded weights leave no GPU memory for the KV cache "
                              "under --mem-fraction-static=0.45.")
    assert not logged.started


# sgl-project/sglang#9707 (rainj-me, turn 6): the end of a traceback quoted with GitHub's
# "Quote reply"; the command line is PR #9992's, quoted the same way
QUOTED = """> `python -m sglang.launch_server --model openai/gpt-oss-120b --tp 2 --attention-backend triton`
>
>   File "/usr/local/lib/python3.12/dist-packages/triton_kernels/matmul_ogs_details/opt_flags.py", line 286, in make_opt_flags
>     raise InapplicableConstraint("cannot enforce `is_persistent=True` constraint")
> triton_kernels.matmul_ogs_details.opt_flags.InapplicableConstraint: cannot enforce `is_persistent=True` constraint
>
> [2025-09-07 16:25:56] Received sigquit from a child process. It usually means the child failed.
"""  # noqa: E501


def test_a_quote_reply_is_read_as_the_text_it_quotes() -> None:
    logged = parse_log(QUOTED)
    assert logged.failure == ("a child process died: triton_kernels.matmul_ogs_details."
                              "opt_flags.InapplicableConstraint: cannot enforce "
                              "`is_persistent=True` constraint")
    assert logged.last_stamp == "2025-09-07"
    assert logged.command is not None and logged.command[0] == 1


# a committed GLM-5.2-FP8 Dynamo/SGLang run report (2026-08-31): `docker compose logs
# --tail=200 worker-longctx`, the launch in a compose file elsewhere (abridged frames)
COMPOSE_TAIL = (
    'worker-longctx-1  |   File "/home/dynamo/.local/lib/python3.12/site-packages/sglang/srt/'
    'model_executor/model_runner.py", line 2908, in init_device_graphs\n'
    "worker-longctx-1  |     self.graph_runner = graph_runners[self.device](self)\n"
    'worker-longctx-1  |   File "/home/dynamo/.local/lib/python3.12/site-packages/sglang/srt/'
    'model_executor/cuda_graph_runner.py", line 628, in __init__\n'
    "worker-longctx-1  |     raise Exception(\n"
    "worker-longctx-1  | Exception: Capture cuda graph failed: CUDA out of memory. Tried to "
    "allocate 1.50 GiB. GPU 5 has a total capacity of 139.80 GiB of which 488.19 MiB is free.\n"
    "\nPossible solutions:\n"
    "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)\n\n"
    "\x1b[2m2026-08-31T19:41:52.922414Z\x1b[0m \x1b[31mERROR\x1b[0m \x1b[2mengine."
    "launch_phase_sigquit_handler\x1b[0m\x1b[2m:\x1b[0m Received sigquit from a child process. "
    "It usually means the child failed.\n")


def test_a_failure_only_tail_is_a_log_whose_launch_is_the_flags_given() -> None:
    logged = parse_log(COMPOSE_TAIL)
    assert logged.command is None and logged.line == 0
    assert logged.failure is not None and "Capture cuda graph failed" in logged.failure


def test_a_failure_only_tail_is_planned_from_the_flags(capsys, tmp_path) -> None:
    path = tmp_path / "tail.log"
    path.write_text(COMPOSE_TAIL)
    assert main(["resolve", "--from-log", str(path), "--gpu", "h200", "--model-path",
                 "llama-3.1-8b", "--tp-size", "8", "--mem-fraction-static", "0.88",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "Capture cuda graph failed" in data["startup_failure"]


# sgl-project/sglang PR #28171 (2026-06-16): SGLang's CPU server, lines cut by the terminal
CPU_SERVER = """/sgl-workspace/sglang# python -m sglang.launch_server \\
    --model-path google/gemma-4-E2B-it \\
    --context-length 32768
[2026-06-16 11:23:49] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 20585625, K size: 137.42 GB, V size
[2026-06-16 11:23:49] SWAKVPool mem usage: 714.60 GB, swa size: 16468500, full size: 20585625
[2026-06-16 11:23:49] Memory pool end. avail mem=382.26 GB
[2026-06-16 11:23:49] max_total_num_tokens=20585625, chunked_prefill_size=16384, max_prefill_tokens=16384, max_r
"""  # noqa: E501


def test_memory_no_gpu_of_the_target_holds_is_said(capsys, tmp_path) -> None:
    assert parse_log(CPU_SERVER).largest_memory == (714.60, "SWAKVPool mem usage")
    path = tmp_path / "cpu.log"
    path.write_text(CPU_SERVER)
    assert main(["resolve", "--from-log", str(path), "--gpu", "h100", "--model-path",
                 "llama-3.1-8b", "--format", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any(n.startswith("the log's memory records state 714.60 GB (SWAKVPool mem usage), "
                            "more than the 80 GiB of one h100") for n in notes)
