"""Start-up logs of the fourth log harvest (h13): a serving crash's traceback, an AMD ATOM
image's release, an older build's dates and its pool laid out as one.

The excerpts are real, cut as they were posted; each names its source."""

from __future__ import annotations

import pytest

from launchplan.input.pasted_release import named_version
from launchplan.input.server_log import (
    last_stamp,
    parse_log,
    parse_memory,
    predates,
    startup_failure,
)

# sglang#14495 (2025-12-05, "deepseek v3.2 crash"): the command, then the scheduler's
# traceback, which the excerpt cuts after its first frame and the source line under it
COMMAND_14495 = (
    "python3 -m sglang.launch_server --model-path /home/jovyan/deepseek-ckpt/DeepSeek-V3.2 "
    "--trust-remote-code --tp-size 8 --pp-size 2 --dp-size 8 --enable-dp-attention "
    "--mem-fraction-static 0.73 --prefill-attention-backend nsa --decode-attention-backend nsa\n"
    "\n")
CRASH_14495 = (
    "[2025-12-05 09:06:37 DP4 PP0 TP4] Scheduler hit an exception: Traceback (most recent "
    "call last):\n"
    '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py", line '
    "2675, in run_scheduler_process\n"
    "    scheduler.event_loop_pp()\n"
    '  File "/usr/local/lib/python3.10/dist-packages/torch/util')
# the same traceback whole, as Python prints it for a decorated event loop
WHOLE_14495 = (
    "[2025-12-05 09:06:37 DP4 PP0 TP4] Scheduler hit an exception: Traceback (most recent "
    "call last):\n"
    '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py", line '
    "2675, in run_scheduler_process\n"
    "    scheduler.event_loop_pp()\n"
    '  File "/usr/local/lib/python3.10/dist-packages/torch/utils/_contextlib.py", line 116, in '
    "decorate_context\n"
    "    return func(*args, **kwargs)\n"
    '  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py", line '
    "1012, in event_loop_pp\n"
    "    result = self.run_batch(batch)\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n")
# ROCm/ATOM#797 (2026-05-15): a start-up death, the scheduler's construction in its frames
ATOM_797 = (
    "docker: atom-dev:sglang-v0.5.10-nightly_20260514\n\nrun command:\n"
    "`SGLANG_USE_AITER=1 SGLANG_EXTERNAL_MODEL_PACKAGE=atom.plugin.sglang.models python3 -m "
    "sglang.launch_server --model-path /root/DeepSeek-V3.2/ --trust-remote-code "
    "--tensor-parallel-size 8 --kv-cache-dtype fp8_e4m3 --mem-fraction-static 0.8`\n\n"
    "error log:\n```\n"
    "[2026-05-15 05:24:42 TP6] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/app/sglang/python/sglang/srt/managers/scheduler.py", line 3600, in '
    "run_scheduler_process\n"
    "    scheduler = Scheduler(\n"
    "                ^^^^^^^^^^\n"
    '  File "/app/sglang/python/sglang/srt/managers/scheduler.py", line 385, in __init__\n'
    "    self.init_model_worker()\n")


def test_a_scheduler_exception_cut_after_the_serving_loop_s_call_is_no_start_up_failure():
    """The source line under run_scheduler_process (``scheduler.event_loop_pp()``) says
    the scheduler was serving, though the excerpt ends before its next frame."""
    logged = parse_log(COMMAND_14495 + CRASH_14495)
    assert logged.failure is None
    assert any("serving loop (event_loop_pp())" in n and "died serving" in n
               for n in logged.notes), logged.notes
    assert startup_failure(CRASH_14495) is None


def test_a_whole_serving_traceback_is_no_start_up_failure():
    logged = parse_log(COMMAND_14495 + WHOLE_14495)
    assert logged.failure is None and not logged.started
    note = next(n for n in logged.notes if "died serving" in n)
    assert "an illegal memory access" in note


def test_a_scheduler_exception_in_its_construction_is_still_a_start_up_failure():
    logged = parse_log(ATOM_797)
    assert logged.failure is not None and logged.failure.startswith("Scheduler hit an exception")
    assert not any("died serving" in n for n in logged.notes)
    # cut right after the construction's source line: the wrapper still reads as start-up
    cut = ATOM_797[:ATOM_797.index("                ^^^")]
    assert startup_failure(cut) is not None


def test_a_serving_record_before_the_failure_still_decides_first():
    text = ("[2025-12-05 09:00:00 TP0] The server is fired up and ready to roll!\n"
            + CRASH_14495)
    assert startup_failure(text) is None
    assert not any("died serving" in n for n in parse_log(COMMAND_14495 + text).notes)


def test_an_out_of_memory_ending_a_traceback_through_run_batch_died_serving():
    # (made for the test from #14495's frames: torch's error line ends the traceback here)
    text = ("Traceback (most recent call last):\n"
            '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 900, in '
            "event_loop_normal\n"
            "    result = self.run_batch(batch)\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    assert startup_failure(text) is None
    # the same error under the model runner's construction is the start-up's
    startup = text.replace("event_loop_normal", "__init__").replace(
        "result = self.run_batch(batch)", "self.init_model_worker()")
    assert startup_failure(startup.replace("scheduler.py", "model_runner.py")) is not None


@pytest.mark.parametrize(("text", "version"), [
    ("docker: atom-dev:sglang-v0.5.10-nightly_20260514", "0.5.10"),  # ROCm/ATOM#797
    ("docker pull rocm/atom-dev:sglang-v0.5.22-nightly_20260514", "0.5.22"),
    ("image `rocm/atom-dev:sglang-v0.5.21`", "0.5.21"),
])
def test_an_atom_image_names_the_sglang_release_it_carries(text, version):
    assert named_version([text])[0] == version


def test_an_atom_image_without_a_release_names_none():
    assert named_version(["docker pull rocm/atom-dev:latest"]) is None


# sglang#9832 (2025-08-30): gpt-oss-20b's pool as one over all 24 layers, no hybrid line
POOL_9832 = (
    "[2025-08-30 16:41:17] Load weight end. type=GptOssForCausalLM, dtype=torch.bfloat16, "
    "avail mem=63.91 GB, mem usage=14.67 GB.\n"
    "[2025-08-30 16:41:17] KV Cache is allocated. #tokens: 1179579, K size: 27.00 GB, "
    "V size: 27.00 GB\n"
    "[2025-08-30 16:41:17] Memory pool end. avail mem=7.84 GB\n")
# sglang PR #18039 (2026-01-31, main before the fix): MiMo-V2-Flash's hybrid pool lines
HYBRID_18039 = (
    "[2026-01-31 13:50:39 TP0] Use sliding window memory pool. full_layer_tokens=375360, "
    "swa_layer_tokens=300288\n"
    "[2026-01-31 13:50:39 TP1] KV Cache is allocated. #tokens: 300288, K size: 8.38 GB, "
    "V size: 5.59 GB\n")


def test_a_pool_logged_as_one_keeps_its_tokens_and_sizes():
    memory = parse_memory(POOL_9832)
    assert memory.one_pool_tokens == 1179579 and memory.one_pool_gib == 54.0
    assert memory.max_total_num_tokens == 1179579


def test_a_hybrid_pool_s_lines_are_not_one_pool():
    memory = parse_memory(HYBRID_18039)
    assert memory.one_pool_tokens is None and memory.one_pool_gib is None
    assert memory.pools == {"swa_max_total_num_tokens": 300288}


def test_a_log_dated_before_the_first_modelled_release_says_so():
    older = predates(parse_log(COMMAND_14495 + CRASH_14495))
    assert "predates the releases launchplan models" in older and "stamped 2025-12-05" in older
    # a release named (ATOM's image) has its own note instead
    assert predates(parse_log(ATOM_797)) is None
    # a log of the modelled releases' time
    assert predates(parse_log(COMMAND_14495 + CRASH_14495.replace("2025-12-05", "2026-11-02"))) \
        is None


def test_the_latest_record_date_is_the_log_s():
    assert last_stamp(POOL_9832) == "2025-08-30"
    assert last_stamp(HYBRID_18039 + "2026-09-22T06:49:56.33Z [2026-09-22 06:49:56] x") \
        == "2026-09-22"
    assert last_stamp("W0830 16:40:57.585000 7191 cpp_extension.py:2425] no year") is None
    assert parse_log(COMMAND_14495 + CRASH_14495).last_stamp == "2025-12-05"


def test_another_traceback_before_a_cut_wrapper_is_not_its_own():
    # (made for the test: a traceback that ends before the wrapper record, whose own is cut)
    text = ("Traceback (most recent call last):\n"
            '  File "/x/sglang/srt/managers/scheduler.py", line 1, in event_loop_normal\n'
            "    self.run_batch(b)\n"
            "[2026-01-01 00:00:00] Scheduler hit an exception: Trace")
    assert startup_failure(text) == ("Scheduler hit an exception (the log ends its traceback "
                                     "before the error)")
