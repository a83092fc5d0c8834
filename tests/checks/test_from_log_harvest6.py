"""The sixth --from-log harvest (h22): preflight's verdict set against a failure the log
shows happened after its KV pool was made."""

from __future__ import annotations

import json

from launchplan.commands.main import main

# kvcache-ai/ktransformers#2007 (usrlocalben, 2026-05-16): Kimi-K2.5 on a KTransformers
# fork, its experts on the CPU (flags not pasted): the pool made, then the scheduler's
# exception at CUDA-graph capture, cut in its traceback (abridged)
KIMI_KT = """```
[2026-05-15 19:00:54] Load weight end. elapsed=152.31 s, type=KimiK25ForConditionalGeneration, dtype=torch.bfloat16, avail mem=52.58 GB, mem usage=41.59 GB.
[2026-05-15 19:00:54] Using KV cache dtype: torch.bfloat16
[2026-05-15 19:00:54] KV Cache is allocated. #tokens: 260000, KV size: 17.02 GB
[2026-05-15 19:00:54] Memory pool end. avail mem=35.54 GB
[2026-05-15 19:00:54] Capture cuda graph begin. This can take up to several minutes. avail mem=35.10 GB
[2026-05-15 19:00:54] Capture cuda graph bs [1]
[2026-05-15 19:00:54] Scheduler hit an exception: Traceback (most recent call last):
  File "/home/kt-test/.venv/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py", line 3207, in run_scheduler_process
    scheduler = Scheduler(
                ^^^^^^^^^^
  File "/home/kt-test/.venv/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py", line 367, in __init__
    self.init_model_worker()
"""  # noqa: E501


def test_a_memory_fits_verdict_is_not_agreement_with_a_failure_after_the_pool(
        capsys, tmp_path) -> None:
    path = tmp_path / "kt.log"
    path.write_text(KIMI_KT)
    assert main(["resolve", "--from-log", str(path), "--gpu", "rtx-pro-6000-ws",
                 "--model-path", "moonshotai/Kimi-K2.5", "--max-total-tokens", "260000",
                 "--cuda-graph-max-bs-decode", "1", "--format", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    failed = [n for n in notes if n.startswith("the log's start-up failed")]
    assert len(failed) == 1
    assert "after it made its KV pool (260,000 tokens)" in failed[0]
    assert "which the log contradicts" in failed[0] and "too" not in failed[0]
    # the same failure with no pool record: nothing contradicts preflight's verdict
    path = tmp_path / "kt.log"
    path.write_text("\n".join(line for line in KIMI_KT.split("\n")
                              if "KV Cache is allocated" not in line
                              and "Memory pool end" not in line))
    assert main(["resolve", "--from-log", str(path), "--gpu", "rtx-pro-6000-ws",
                 "--model-path", "moonshotai/Kimi-K2.5", "--cuda-graph-max-bs-decode", "1",
                 "--format", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("fails at start-up too (memory-fits" in n for n in notes)
