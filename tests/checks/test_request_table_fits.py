"""Preflight's req-to-token-fits row and `--from-log`'s out-of-memory explanation.

SGLang 0.5.23 builds the request-to-token table after sizing the KV pool
(``mem_cache/kv_cache_configurator.py`` _build_req_to_token_pool; ``mem_cache/memory_pool.py``
ReqToTokenPool: (max_running_requests + 1) x (context length + 4) int32), out of what
mem_fraction_static keeps back; a launch whose table is larger dies there."""

from __future__ import annotations

import json

from launchplan import resolve
from launchplan.checks.preflight import preflight
from launchplan.commands.main import main
from launchplan.commands.resolve import _failure_against_preflight

SCOUT = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
SCOUT_ARGS = ["--trust-remote-code", "--tp", "8", "--disable-cuda-graph"]

# https://github.com/sgl-project/sglang/issues/5755 (hebiao064, 2025-04-25), as posted
LOG_5755 = """\
### Describe the bug

torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 80.04 GiB. GPU 3 has a total \
capacity of 79.10 GiB of which 20.08 GiB is free. Process 806478 has 59.01 GiB memory in use. \
Of the allocated memory 56.90 GiB is allocated by PyTorch, and 125.19 MiB is reserved by \
PyTorch but unallocated. If reserved but unallocated memory is large try setting \
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation \
for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)

### Reproduction

```
python3 -m sglang.launch_server --model meta-llama/Llama-4-Scout-17B-16E-Instruct \
--trust-remote-code --tp 8 --disable-cuda-graph
```

### Environment

latest main of sglang
"""


def problems(args, gpu="h100", model=SCOUT):
    return {p.requirement: p for p in preflight(resolve(args, gpu=gpu, model_path=model))
            .problems}


def test_scout_s_80_gib_table_fails_at_start_and_a_table_that_fits_does_not():
    found = problems(SCOUT_ARGS)
    row = found["req-to-token-fits"]
    assert row.severity.value == "fails-at-start" and row.decides
    assert "80.04 GiB" in row.why and "--context-length" in row.why
    assert "--max-running-requests" in row.why
    assert "_build_req_to_token_pool" in row.evidence
    # a table the reserve holds is no problem:
    # Scout at SGLang#6817's 1M context on 8 x H200: 7.6 GiB of table, within the reserve
    assert "req-to-token-fits" not in problems(["--trust-remote-code", "--tp", "8",
                                                "--context-length", "1000000"], gpu="h200")
    # a default 128K launch: 1 GiB
    assert "req-to-token-fits" not in problems([], model="llama-3.1-8b")


def test_the_cli_offers_a_shorter_context_or_fewer_requests(capsys):
    code = main(["resolve", "--gpu", "h100", "--model-path", SCOUT, *SCOUT_ARGS,
                 "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["preflight"]["verdict"] == "fails-at-start"
    row = next(p for p in data["preflight"]["problems"]
               if p["requirement"] == "req-to-token-fits")
    flags = " ".join(row["fixes"])
    assert "--context-length" in flags or "--max-running-requests" in flags


def test_from_log_names_the_table_as_the_failed_allocation(capsys, tmp_path):
    log = tmp_path / "issue5755.log"
    log.write_text(LOG_5755)
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100", "--format", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    said = next(n for n in notes if "start-up failed" in n)
    assert "req-to-token-fits" in said
    assert "is the size of SGLang's request-to-token table" in said
    assert "CUDA graph" not in said


def test_an_oom_with_graphs_disabled_gets_no_graph_advice():
    failure = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    off = resolve(["--disable-cuda-graph"], gpu="h100", model_path="llama-3.1-8b")
    said = _failure_against_preflight(failure, off, "default")
    assert "CUDA graphs" not in said and "captures no CUDA graph" in said
    on = resolve([], gpu="h100", model_path="llama-3.1-8b")
    assert "fewer or smaller CUDA graphs" in _failure_against_preflight(failure, on, "default")
    # the 128K table's own size, 1.00 GiB, is named as the table
    said = _failure_against_preflight(failure.replace("2.00", "1.00"), on, "default")
    assert "request-to-token table" in said
