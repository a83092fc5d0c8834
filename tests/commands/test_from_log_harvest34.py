"""`resolve --from-log` on the fourth log harvest's texts (h13): an older build's log says
so, its pool laid out whole is named as such, an ATOM image's release plans it, and a crash
while serving is no failed start-up.

The logs are real excerpts, inline, each with its source."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from launchplan.commands.main import main

# sglang#9832 (chenhao862, 2025-08-30): gpt-oss-20b with torch compile on an H100, two
# excerpts of the issue joined; the server_args line is cut where the excerpt ends
LOG_9832 = """\
python3 -m sglang.launch_server --model openai/gpt-oss-20b --enable-torch-compile
[2025-08-30 16:40:58] server_args=ServerArgs(model_path='unsloth/gpt-oss-20b', \
tokenizer_path='unsloth/gpt-oss-20b', tokenizer_mode='auto', skip_tokenizer_init=False, \
load_format='auto', model_loader_extra_config='{}', trust_remote_code=False, \
context_length=None, is_embedding=False, enable_multimodal=None, revision=None, \
model_impl='auto', host='127.0.0.1', port=30000, skip_server_warmup=False, warmups=None, \
nccl_port=None, dtype='bfloat16', quantization=None, quantization_param_path=None, \
kv_cache_dtype='auto', mem_fraction_static=0.874, max_runnin
[2025-08-30 16:41:17] Load weight end. type=GptOssForCausalLM, dtype=torch.bfloat16, \
avail mem=63.91 GB, mem usage=14.67 GB.
[2025-08-30 16:41:17] KV Cache is allocated. #tokens: 1179579, K size: 27.00 GB, V size: 27.00 GB
[2025-08-30 16:41:17] Memory pool end. avail mem=7.84 GB
"""
# sglang PR #18039 (2026-01-31, the "main branch" block before its fix): MiMo-V2-Flash TP4
LOG_18039 = """\
python3 -m sglang.launch_server --model-path XiaomiMiMo/MiMo-V2-Flash --tp-size 4 \
--trust-remote-code --mem-fraction-static 0.7 --page-size 64
[2026-01-31 13:50:39 TP0] Use sliding window memory pool. full_layer_tokens=375360, \
swa_layer_tokens=300288
[2026-01-31 13:50:39 TP1] KV Cache is allocated. #tokens: 300288, K size: 8.38 GB, V size: 5.59 GB
"""
# ROCm/ATOM#797 (LoadingZhang, 2026-05-15): the image, the command, the start-up traceback
LOG_ATOM_797 = """\
docker: atom-dev:sglang-v0.5.10-nightly_20260514

run command:
`SGLANG_USE_AITER=1 SGLANG_EXTERNAL_MODEL_PACKAGE=atom.plugin.sglang.models \
NCCL_DEBUG=WARN python3 -m sglang.launch_server --model-path /root/DeepSeek-V3.2/ --host \
0.0.0.0 --port 80 --trust-remote-code     --tensor-parallel-size 8     --kv-cache-dtype \
fp8_e4m3     --mem-fraction-static 0.8     --page-size 1     --disable-radix-cache`

error log:
```
[2026-05-15 05:24:42 TP6] Scheduler hit an exception: Traceback (most recent call last):
  File "/app/sglang/python/sglang/srt/managers/scheduler.py", line 3600, in run_scheduler_process
    scheduler = Scheduler(
                ^^^^^^^^^^
  File "/app/sglang/python/sglang/srt/managers/scheduler.py", line 385, in __init__
    self.init_model_worker()
"""
# sglang#14495 (MichoChan, 2025-12-05, "deepseek v3.2 crash"), the excerpt as cut
LOG_14495 = """\
python3 -m sglang.launch_server --model-path /home/jovyan/deepseek-ckpt/DeepSeek-V3.2 \
--nccl-init-addr $MASTER_IP:20000 --nnodes 2 --node-rank $RANK --trust-remote-code --host \
0.0.0.0 --tp-size 8 --pp-size 2 --dp-size 8 --enable-dp-attention --max-running-requests 4096 \
--chunked-prefill-size 16384 --mem-fraction-static 0.73 --prefill-attention-backend nsa \
--decode-attention-backend nsa

[2025-12-05 09:06:37 DP4 PP0 TP4] Scheduler hit an exception: Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/scheduler.py", line 2675, \
in run_scheduler_process
    scheduler.event_loop_pp()
  File "/usr/local/lib/python3.10/dist-packages/torch/util"""


def report(capsys, tmp_path, text: str, *args: str) -> dict:
    log = tmp_path / "pasted.log"
    log.write_text(text)
    code = main(["resolve", "--from-log", str(log), *args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_an_older_build_s_log_says_it_predates_the_modelled_releases(capsys, tmp_path):
    data = report(capsys, tmp_path, LOG_9832, "--gpu", "h100", "--model-path", "gpt-oss-20b")
    older = [n for n in data["notes"] if "predates the releases launchplan models" in n]
    assert len(older) == 1 and "2025-08-30" in older[0] and "2026-10-01" in older[0]


def test_a_hybrid_model_s_pool_logged_over_every_layer_is_named_on_its_row(capsys, tmp_path):
    """gpt-oss-20b: 1,179,579 tokens x 24 layers x 8 KV heads x 64 x 2 B = 27.00 GiB of K,
    every layer held as full; the plan's hybrid SWA pool differs by that layout."""
    data = report(capsys, tmp_path, LOG_9832, "--gpu", "h100", "--model-path", "gpt-oss-20b")
    row = next(r for r in data["memory"] if r["figure"] == "max_total_num_tokens")
    assert row["logged"] == 1179579 and row["error"] > 0.1  # noted, not refitted
    assert "pooled every layer as full" in row["note"] and "hybrid SWA memory off" in row["note"]
    # the other rows carry no such note
    assert all(r["note"] is None for r in data["memory"] if r["figure"] != row["figure"])


def test_a_hybrid_pool_logged_with_its_split_gets_no_layout_note(capsys, tmp_path):
    data = report(capsys, tmp_path, LOG_18039, "--gpu", "h200")
    assert all(r["note"] is None for r in data["memory"])
    # the stamp (2026-01-31) is what dates it
    assert any("stamped 2026-01-31" in n for n in data["notes"])


def test_a_log_dated_after_the_first_modelled_release_gets_no_such_note(capsys, tmp_path):
    later = LOG_9832.replace("2025-08-30", "2026-11-20")
    data = report(capsys, tmp_path, later, "--gpu", "h100", "--model-path", "gpt-oss-20b")
    assert not any("predates" in n for n in data["notes"])


def test_an_undated_repr_line_with_fields_no_modelled_release_has_predates_them(
        capsys, tmp_path):
    # SGLang's docs of 2025-01-23 (tests/input/data/server_logs), its stamps taken off
    data_dir = Path(__file__).parents[1] / "input" / "data" / "server_logs"
    text = (data_dir / "docs-2025-01-23-llama-3.1-8b.log").read_text()
    undated = re.sub(r"^\[2025-01-23 [\d:]+(?: TP\d+)?\] ", "", text, flags=re.MULTILINE)
    assert "[2025" not in undated
    data = report(capsys, tmp_path, undated, "--gpu", "h100", "--model-path", "llama-3.1-8b")
    assert any("predates" in n and "ServerArgs(...) repr" in n for n in data["notes"])
    # the same repr line with only fields the modelled releases have says nothing of its age
    line = "server_args=ServerArgs(model_path='llama-3.1-8b', tp_size=1)\n"
    data = report(capsys, tmp_path, line, "--gpu", "h100")
    assert not any("predates" in n for n in data["notes"])


@pytest.mark.parametrize(("tag", "release", "said"), [
    ("atom-dev:sglang-v0.5.10-nightly_20260514", "0.5.23", "names SGLang 0.5.10"),
    ("rocm/atom-dev:sglang-v0.5.22-nightly_20260514", "0.5.22", "--compat 0.5.22"),
])
def test_an_atom_image_s_release_is_the_log_s(capsys, tmp_path, tag, release, said):
    text = LOG_ATOM_797.replace("atom-dev:sglang-v0.5.10-nightly_20260514", tag)
    data = report(capsys, tmp_path, text, "--gpu", "mi300x", "--model-path",
                  "deepseek-ai/DeepSeek-V3.2")
    assert data["release"] == release
    assert any(said in n for n in data["notes"]), data["notes"]
    assert not any("predates" in n for n in data["notes"])  # named: that note says it
    assert data["startup_failure"].startswith("Scheduler hit an exception")


def test_a_crash_while_serving_is_no_failed_start_up(capsys, tmp_path):
    data = report(capsys, tmp_path, LOG_14495, "--gpu", "h200", "--model-path",
                  "deepseek-ai/DeepSeek-V3.2")
    assert data["startup_failure"] is None
    assert any("died serving" in n for n in data["notes"])
    assert not any("start-up failed" in n for n in data["notes"])
