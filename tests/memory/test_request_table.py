"""The request-to-token table in the memory plan.

SGLang 0.5.23 builds ``ReqToTokenPool`` after sizing the KV pool
(``mem_cache/kv_cache_configurator.py`` _build_req_to_token_pool): an int32 tensor of
(max_running_requests per attention-DP worker + 1 padding row) x (context length + extra)
(``mem_cache/memory_pool.py`` ReqToTokenPool; extra from ``mem_cache/allocation_sizing.py``
get_req_to_token_extra_context_len: 4 + the draft tokens, more under speculative decoding
with pages; ``disaggregation/decode.py`` DecodeReqToTokenPool adds the pre-allocation slots).
"""

from __future__ import annotations

import json

from launchplan import resolve
from launchplan.commands.main import main
from launchplan.memory.plan import QUANTITIES, memory_plan

SCOUT = "meta-llama/Llama-4-Scout-17B-16E-Instruct"
GIB = 1 << 30


def plan_of(args, gpu="h100", model="llama-3.1-8b"):
    plan = memory_plan(resolve(args, gpu=gpu, model_path=model))
    assert plan is not None and plan.fits
    return plan


def test_scout_s_10m_context_table_is_the_80_gib_of_sglang_5755():
    # sglang#5755 (Llama-4-Scout, --tp 8 --disable-cuda-graph): "Tried to allocate
    # 80.04 GiB" = 2,049 rows x (10,485,760 + 4) int32 slots
    plan = plan_of(["--trust-remote-code", "--tp", "8", "--disable-cuda-graph"], model=SCOUT)
    assert plan.max_running_requests == 2048 and plan.context_len == 10_485_760
    assert plan.req_to_token_bytes == 2049 * (10_485_760 + 4) * 4
    assert f"{plan.req_to_token_bytes / GIB:.2f}" == "80.04"
    assert plan.to_dict()["req_to_token_bytes"] == plan.req_to_token_bytes


def test_a_128k_default_launch_takes_about_a_gib_of_the_reserve():
    # PR #4760's Llama-3.1-8B H100 log: free after the weights 63.48 GiB - pool 54.04 GiB -
    # free after the pool 8.26 GiB = 1.18 GiB taken, of which the table is 1.00 GiB
    plan = plan_of([])
    assert plan.req_to_token_bytes == 2049 * (131_072 + 4) * 4
    assert plan.req_to_token_bytes < plan.reserved_bytes
    assert "req_to_token_bytes" in QUANTITIES


def test_attention_dp_sizes_one_worker_s_rows():
    # resolve_max_num_reqs: --max-running-requests 1024 over 8 attention-DP workers = 128
    plan = plan_of(["--tp", "8", "--dp", "8", "--enable-dp-attention",
                    "--max-running-requests", "1024"], gpu="h200", model="deepseek-v3")
    assert plan.max_running_requests == 128
    assert plan.req_to_token_bytes == 129 * (163_840 + 4) * 4


def test_a_pd_decode_pool_adds_its_pre_allocation_rows():
    # handle_pd_disaggregation: 16 requests per worker (<= 32) reserve 2 x 16 extra slots
    plan = plan_of(["--disaggregation-mode", "decode", "--max-running-requests", "16"])
    assert plan.req_to_token_bytes == (16 + 32 + 1) * (131_072 + 4) * 4


def test_speculative_decoding_widens_each_row():
    spec = ["--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path",
            "llama-3.1-8b-eagle3", "--speculative-num-steps", "3"]
    # page 1: 4 + 4 draft tokens
    plan = plan_of([*spec, "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens",
                    "4"])
    assert plan.req_to_token_bytes == (plan.max_running_requests + 1) * (131_072 + 8) * 4
    # page 16, topk 1: twice a decode step's max(3 x 1, 4) plus 15
    plan = plan_of([*spec, "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens",
                    "4", "--page-size", "16"])
    assert plan.req_to_token_bytes == (plan.max_running_requests + 1) * (131_072 + 23) * 4
    # page 16, topk 4: ceil((15 + 3 + 15) / 16) = 2 pages per branch, 2 x 16 x 4 = 128 a step
    plan = plan_of([*spec, "--speculative-eagle-topk", "4", "--speculative-num-draft-tokens",
                    "8", "--page-size", "16"])
    assert plan.req_to_token_bytes == (plan.max_running_requests + 1) * (131_072 + 271) * 4


def test_explain_sweep_and_the_outputs_show_it(capsys):
    assert main(["explain", "req_to_token_bytes", "--gpu", "h100", "--model-path",
                 "llama-3.1-8b", "--format", "json"]) == 0
    explained = json.loads(capsys.readouterr().out)
    assert explained["resolved"] == 2049 * 131_076 * 4
    label, value = explained["steps"][-1]
    assert label.startswith("request-to-token table = 2,049 rows") and "131,076 slots" in label
    assert value == explained["resolved"]
    assert main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b"]) == 0
    out = capsys.readouterr().out
    assert "of the reserve, the request-to-token table: 1.00 GiB" in out
    assert main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                 "--format", "markdown"]) == 0
    assert "request-to-token table: 1.00 GiB" in capsys.readouterr().out
    # a 4K context's table (32 MiB) is not worth a line
    assert main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                 "--context-length", "4096"]) == 0
    assert "request-to-token table" not in capsys.readouterr().out


def test_sweep_columns_show_it_by_context(capsys):
    assert main(["sweep", "--gpu", "h100", "--model-path", "llama-3.1-8b", "--axis",
                 "context_length=8192,131072", "--columns", "req_to_token_bytes",
                 "--format", "json"]) == 0
    groups = json.loads(capsys.readouterr().out)["distinct"]
    by_context = {g["config"]["context_length"]: g["columns"]["req_to_token_bytes"]
                  for g in groups}
    assert by_context[131072] == 2049 * 131_076 * 4
    assert by_context[8192] < by_context[131072]
