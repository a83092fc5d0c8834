"""The server_args=ServerArgs(...) start-up line read back safely from a pasted log."""

from __future__ import annotations

import pytest

from launchplan.errors import InputError
from launchplan.input.server_log import parse_log, parse_memory


def test_prefix_and_values_are_read_as_literals() -> None:
    text = ("[2026-01-01 00:00:00 TP0] INFO engine.py:1: server_args=ServerArgs("
            "model_path='m', tp_size=2, mem_fraction_static=0.8, page_size=None, "
            "cuda_graph_bs=[1, 2, 4], mm_process_config={}, enable_lora=True)\nnext line\n")
    logged = parse_log(text)
    assert logged.values == {"model_path": "m", "tp_size": 2, "mem_fraction_static": 0.8,
                             "page_size": None, "cuda_graph_bs": [1, 2, 4],
                             "mm_process_config": {}, "enable_lora": True}
    assert not logged.truncated and logged.line == 1


def test_a_wrapped_line_is_joined_back() -> None:
    logged = parse_log("server_args=ServerArgs(model_path='m', chunked_prefill_size\n=8192, "
                       "hf_chat_template_n\n  ame=None, tp_size=1)")
    assert logged.values["chunked_prefill_size"] == 8192
    assert logged.values["hf_chat_template_name"] is None and logged.values["tp_size"] == 1


def test_a_cut_off_line_keeps_what_came_before_the_cut() -> None:
    logged = parse_log("server_args=ServerArgs(model_path='m', tp_size=4, max_queued_requests=N")
    assert logged.truncated and logged.values == {"model_path": "m", "tp_size": 4}


@pytest.mark.parametrize(("tail", "kept"), [
    ("chunked_prefill_size=81", {}),  # of 8192
    ("mem_fraction_static=0.8", {}),  # of 0.874
    ("disable_radix_cache=True", {}),  # a bare name the cut may have ended on
    ("chunked_prefill_size=8192, ", {"chunked_prefill_size": 8192}),  # its comma came through
    ("served_model_name='m'", {"served_model_name": "m"}),  # a closing quote shows its end
    ("cuda_graph_bs=[1, 2]", {"cuda_graph_bs": [1, 2]}),
])
@pytest.mark.parametrize("form", ["repr", "dict"])
def test_a_bare_value_where_the_cut_fell_is_not_read(tail: str, kept: dict, form: str) -> None:
    """Where a cut-off line stops, a bare number may be the first digits of the logged value
    (sglang#1275's excerpt ends at ``random_seed=105``): it is dropped, not compared. A value
    whose comma, closing quote or bracket came through the cut is whole, and kept."""
    if form == "repr":
        text = "server_args=ServerArgs(model_path='m', tp_size=4, " + tail
    else:
        name, _, value = tail.partition("=")
        text = "server_args={'model_path': 'm', 'tp_size': 4, " + f"'{name}': {value}"
    logged = parse_log(text)
    assert logged.truncated and logged.unreadable == {}
    assert logged.values == {"model_path": "m", "tp_size": 4, **kept}


@pytest.mark.parametrize("after", [
    "[2026-01-14 05:29:02 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, "
    "avail mem=50.99 GB, mem usage=27.69 GB.\n[2026-01-14 05:29:40 TP0] max_total_num_tokens="
    "105600, chunked_prefill_size=4096, max_prefill_tokens=16384, max_running_requests=2048",
    "2026-09-22T06:49:56.336833841Z [2026-09-22 06:49:56] page_size=64, tp_size=8",
    "INFO 02-11 10:25:22 __init__.py:190] tp_size=8, page_size=64",
    "2025-03-07 23:50:27,531 - __main__ - INFO - tp_size=8",
    "```\ntp_size=8",
    "\ntp_size=8, page_size=64",
])
def test_records_after_a_cut_off_line_are_not_its_fields(after: str) -> None:
    """A start-up line the paste cut off (LMCache#2400 as excerpted) ends where the next log
    record, a blank line or the code fence begins: their ``name=value`` pieces are not read."""
    logged = parse_log("[2026-01-14 05:25:33] server_args=ServerArgs(model_path='m', "
                       "chunked_prefill_size=8192, max_prefill_tokens=1638\n4, enable_\n" + after)
    assert logged.truncated and logged.unreadable == {}
    assert logged.values == {"model_path": "m", "chunked_prefill_size": 8192,
                             "max_prefill_tokens": 16384}
    assert logged.memory.max_total_num_tokens == (105600 if "105600" in after else None)


@pytest.mark.parametrize("prefix", [
    "(SGLangEngine pid=322526) ",  # Ray, as slime#1300 pasted it
    "(WorkerDict pid=7, ip=10.0.0.2) ",
    "\x1b[36m(SGLangEngine pid=322526)\x1b[0m ",  # Ray's colours kept
    "[36m(SGLangEngine pid=322526)[0m ",  # and pasted without the escape character
    "sglang-1  | ",  # docker compose logs
    "Jun 05 12:36:11 gpu01 python3[25973]: ",  # journalctl
])
def test_records_a_log_collector_prefixed_do_not_continue_a_cut_off_line(prefix: str) -> None:
    """A log collected by Ray (verl, slime, AReaL run SGLang as a Ray actor), Docker Compose
    or journald prefixes every record: a start-up line cut off by the paste ends at the next
    prefixed record, whose ``name=value`` pieces (the scheduler's chunk and running
    requests) are not read as its fields, nor glued to the cut value."""
    logged = parse_log(
        f"{prefix}[2025-12-31 05:52:21] server_args=ServerArgs(model_path='m', tp_size=1, "
        "mem_fraction_static=0.25, chunked_prefill_size=81\n"
        f"{prefix}[2025-12-31 05:52:33 TP0] max_total_num_tokens=100, chunked_prefill_size="
        "8192, max_prefill_tokens=16384, max_running_requests=4096, context_len=32768\n")
    assert logged.truncated and logged.unreadable == {}
    assert logged.values == {"model_path": "m", "tp_size": 1, "mem_fraction_static": 0.25}
    assert logged.memory.max_total_num_tokens == 100
    # a piece the terminal wrapped carries no prefix: still joined back
    logged = parse_log(f"{prefix}[2025-12-31 05:52:21] server_args=ServerArgs(model_path='m', "
                       "enable_p\nriority_scheduling=False, tp_size=2)")
    assert logged.values == {"model_path": "m", "enable_priority_scheduling": False,
                             "tp_size": 2}


@pytest.mark.parametrize("marker", ["> ", ">", "> > "])
def test_a_log_quoted_in_a_reply_is_read_without_its_quote_markers(marker: str) -> None:
    """A reply quoting a log (a Markdown blockquote) marks every wrapped piece of the line:
    the pieces are joined without the markers, and the next quoted record (the scheduler's
    ``chunked_prefill_size=..., max_running_requests=...``) still ends the line."""
    lines = ["I got this when launching:", "```",
             "[2025-09-01 05:58:05] server_args=ServerArgs(model_path='m', skip_tokenize",
             "r_init=False, mem_fraction_static=0.9, chunked_prefil", "l_size=16384, tp_siz",
             "[2025-09-01 05:58:09 TP0] max_total_num_tokens=105600, chunked_prefill_size=4096, "
             "max_prefill_tokens=16384, max_running_requests=2048, context_len=163840", "```"]
    logged = parse_log("\n".join(marker + line for line in lines))
    assert logged.truncated and logged.unreadable == {}
    assert logged.values == {"model_path": "m", "skip_tokenizer_init": False,
                             "mem_fraction_static": 0.9, "chunked_prefill_size": 16384}
    assert logged.memory.max_total_num_tokens == 105600
    # a piece without the markers continues the quote (Markdown's lazy continuation)
    logged = parse_log("> server_args=ServerArgs(model_path='m', tp_size=2, page_\nsize=64)")
    assert logged.values == {"model_path": "m", "tp_size": 2, "page_size": 64}


def test_objects_and_code_are_never_evaluated() -> None:
    logged = parse_log("server_args=ServerArgs(model_path='m', lora_paths=[LoRARef(lora_id='x', "
                       "pinned=False)], port=__import__('os').getpid(), tp_size=1)")
    assert set(logged.unreadable) == {"lora_paths", "port"}
    assert logged.values == {"model_path": "m", "tp_size": 1}


def test_the_last_start_up_line_wins() -> None:
    logged = parse_log("server_args=ServerArgs(tp_size=1)\nrestart\n"
                       "server_args=ServerArgs(tp_size=2)")
    assert logged.values == {"tp_size": 2} and logged.line == 3


@pytest.mark.parametrize("text", ["no start-up line here", "server_args=ServerArgs("])
def test_a_log_without_the_line_is_bad_input(text: str) -> None:
    with pytest.raises(InputError) as err:
        parse_log(text, "x.log")
    assert err.value.subject == "--from-log"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@pytest.mark.parametrize("marker", ["server_args=ServerArgs(", "server_args={"])
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab_=,'\"()[]{}\\\n 0123.-:N")), max_size=120))
def test_any_damage_after_the_marker_reads_or_is_one_clear_error(marker: str, tail: str) -> None:
    """Either form SGLang logs (the dict from 0.5.21 on), cut or mangled anywhere."""
    try:
        logged = parse_log("[x] " + marker + tail)
    except InputError as exc:
        assert exc.subject == "--from-log"
        return
    assert all(k.isidentifier() for k in logged.values)


def test_memory_lines_of_newer_releases_are_read() -> None:
    from launchplan.input.server_log import parse_memory

    # PR #4760's TP0 lines (2025), after a TP1 line made up for the test with more free
    # memory: the rank SGLang sizes by (the least free) counts, not the first printed
    text = ("[2025-03-25 16:37:06 TP1] Load weight end. type=LlamaForCausalLM, "
            "dtype=torch.bfloat16, avail mem=63.50 GB, mem usage=15.11 GB.\n"
            "[2025-03-25 16:37:06 TP0] Load weight end. type=LlamaForCausalLM, "
            "dtype=torch.bfloat16, avail mem=63.48 GB, mem usage=15.11 GB.\n"
            "[2025-03-25 16:37:06 TP0] KV Cache is allocated. #tokens: 442750, "
            "K size: 27.02 GB, V size: 27.02 GB\n")
    memory = parse_memory(text)
    assert memory.weights_gib == 15.11 and memory.after_load_gib == 63.48
    assert memory.free_before_gib == pytest.approx(63.48 + 15.11)
    assert memory.max_total_num_tokens == 442750 and memory.max_running_requests is None
    assert memory.any() and not parse_memory("no memory lines here").any()


def test_a_multi_rank_log_is_read_at_the_rank_sglang_sizes_by() -> None:
    """SGLang sizes the pool by the least free memory over the ranks (before loading and
    after), whichever rank printed first: the 2 x RTX 3090 Gemma-4-26B log (mattbucci's
    sprint-2026-06-kv-decode, A2 ratio 0.25) has TP1's 23.06 GB before TP0's 22.91 GB, so the
    figures are TP0's, begin and end alike."""
    from launchplan.input.server_log import parse_memory

    text = ("[2026-06-10 03:15:59 TP1] Load weight begin. avail mem=23.06 GB\n"
            "[2026-06-10 03:15:59 TP0] Load weight begin. avail mem=22.91 GB\n"
            "[2026-06-10 03:16:06 TP0] Load weight end. elapsed=6.62 s, type=Gemma4ForConditional"
            "Generation, quant=awq, bits=4, avail mem=13.57 GB, mem usage=9.34 GB.\n"
            "[2026-06-10 03:16:06 TP1] Load weight end. elapsed=6.66 s, type=Gemma4ForConditional"
            "Generation, quant=awq, bits=4, avail mem=13.71 GB, mem usage=9.34 GB.\n")
    memory = parse_memory(text)
    assert memory.before_load_gib == 22.91 and memory.after_load_gib == 13.57
    assert memory.weights_gib == 9.34 and memory.loaded_gib == 9.34
    # the same with the ranks' end lines the other way round: still TP0's pair
    lines = text.splitlines(keepends=True)
    swapped = parse_memory("".join(lines[:2] + [lines[3], lines[2]]))
    assert swapped.before_load_gib == 22.91 and swapped.after_load_gib == 13.57
    # a release that logs no usage: TP0's begin minus TP0's end, not a mix of ranks
    older = parse_memory(text.replace(", mem usage=9.34 GB", ""))
    assert older.loaded_gib == pytest.approx(22.91 - 13.57)


def test_a_draft_s_weight_load_counts_with_the_target_s() -> None:
    """An EAGLE log loads the target, then the draft (the docs build of 2025-09-03): what the
    weights took is both loads, as the plan's weights are target and draft; a multi-rank log
    counts the first rank's loads only, and a release that logs no usage is read pair by
    pair (begin minus end)."""
    from launchplan.input.server_log import parse_memory

    one = ("[2025-09-03 04:13:20] Load weight begin. avail mem=78.58 GB\n"
           "[2025-09-03 04:13:35] Load weight end. type=LlamaForCausalLM, dtype=torch.float16,"
           " avail mem=63.52 GB, mem usage=15.06 GB.\n"
           "[2025-09-03 04:13:38] Load weight begin. avail mem=59.67 GB\n"
           "[2025-09-03 04:13:39] Load weight end. type=LlamaForCausalLMEagle, "
           "dtype=torch.float16, avail mem=57.97 GB, mem usage=1.70 GB.\n")
    memory = parse_memory(one)
    assert memory.loaded_gib == pytest.approx(15.06 + 1.70)
    assert memory.free_before_gib == 78.58 and memory.weights_gib == 15.06
    ranks = "".join(line.replace("] Load", f" {tag}] Load") + "\n"
                    for line in one.splitlines() for tag in ("TP1", "TP0"))
    assert parse_memory(ranks).loaded_gib == pytest.approx(15.06 + 1.70)
    older = one.replace(", mem usage=15.06 GB", "").replace(", mem usage=1.70 GB", "")
    assert parse_memory(older).loaded_gib == pytest.approx((78.58 - 63.52) + (59.67 - 57.97))
    # a second start-up pasted after the first one's scheduler line is not a draft
    scheduler = ("[2025-09-03 04:13:46] max_total_num_tokens=20480, chunked_prefill_size=8192,"
                 " max_prefill_tokens=16384, max_running_requests=128, context_len=8192\n")
    again = one.splitlines(keepends=True)
    assert parse_memory("".join(again[:2]) + scheduler + "".join(again)).loaded_gib == 15.06


def test_the_scheduler_line_wins_over_the_pool_line() -> None:
    from launchplan.input.server_log import parse_memory

    text = ("KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1000, KV size: 1.00 GB\n"
            "max_total_num_tokens=990, chunked_prefill_size=8192, max_prefill_tokens=16384, "
            "max_running_requests=48, context_len=4096, available_gpu_mem=3.10 GB\n")
    memory = parse_memory(text)
    assert (memory.max_total_num_tokens, memory.max_running_requests,
            memory.context_len) == (990, 48, 4096)


def test_the_cuda_graph_record_is_read_as_a_mapping() -> None:
    """SGLang 0.5.19 on logs cuda_graph_config by its repr; its keyword arguments are read."""
    logged = parse_log("server_args=ServerArgs(tp_size=1, cuda_graph_config=CudaGraphConfig("
                       "decode=PhaseConfig(backend='full', max_bs=8, bs=[1, 2, 4, 8]), "
                       "prefill=PhaseConfig(backend='disabled', max_bs=None)), page_size=1)")
    assert logged.values["cuda_graph_config"] == {
        "decode": {"backend": "full", "max_bs": 8, "bs": [1, 2, 4, 8]},
        "prefill": {"backend": "disabled", "max_bs": None}}
    assert logged.values["page_size"] == 1 and logged.unreadable == {}


@pytest.mark.parametrize("value", [
    "CudaGraphConfig(PhaseConfig(backend='full'))",  # positional: not a plain record
    "CudaGraphConfig(decode=Other(backend='full'))",  # a type launchplan does not read
    "CudaGraphConfig(decode=PhaseConfig(backend=__import__('os')))",  # code
])
def test_other_calls_inside_the_record_stay_unread(value: str) -> None:
    logged = parse_log(f"server_args=ServerArgs(tp_size=1, cuda_graph_config={value})")
    assert set(logged.unreadable) == {"cuda_graph_config"} and logged.values == {"tp_size": 1}


def test_a_record_cut_off_by_the_paste_is_dropped() -> None:
    logged = parse_log("server_args=ServerArgs(tp_size=1, cuda_graph_config=CudaGraphConfig("
                       "decode=PhaseConfig(backend='full', max_bs=2")
    assert logged.truncated and logged.values == {"tp_size": 1}


def test_the_dict_later_releases_log_is_read_item_by_item() -> None:
    """0.5.21 on logs ``server_args={...}`` (the resolved dict): nested records are plain
    dicts, a wrapped line is joined back, code is never evaluated."""
    logged = parse_log(
        "[2026-09-11 23:34:03] server_args={'model_path': '/models/m', 'tp_size': 3, "
        "'mem_fraction_static': 0.95, 'api_key': '[REDACTED]', 'lora_paths': __import__('os'), "
        "'cuda_graph_config': {'decode': {'backend': 'full', 'max_bs': 4, 'bs': [1, 2, 3, 4]},\n"
        "   'prefill': {'backend': 'disabled', 'max_bs': 1024}}, 'page_size': 256}\n"
        "[2026-09-11 23:34:04] Init torch distributed begin.")
    assert logged.form == "dict" and logged.line == 1 and not logged.truncated
    assert logged.values["tp_size"] == 3 and logged.values["page_size"] == 256
    assert logged.values["cuda_graph_config"] == {
        "decode": {"backend": "full", "max_bs": 4, "bs": [1, 2, 3, 4]},
        "prefill": {"backend": "disabled", "max_bs": 1024}}
    assert set(logged.unreadable) == {"lora_paths"}


def test_a_cut_off_dict_keeps_what_came_before_the_cut() -> None:
    logged = parse_log("server_args={'model_path': 'm', 'tp_size': 2, 'cuda_graph_config': "
                       "{'decode': {'backend': 'full', 'max_b")
    assert logged.truncated and logged.values == {"model_path": "m", "tp_size": 2}
    logged = parse_log("server_args={'model_path': 'm', 'tp_size': 2, 'page_si")
    assert logged.truncated and logged.values == {"model_path": "m", "tp_size": 2}


@pytest.mark.parametrize(("items", "kept"), [
    ("'attn_dp_size': 4, 'enable_dp_attention': True", False),  # 0.5.22 on: a report
    ("'attn_dp_size': 1, 'enable_dp_attention': False", False),
    ("'enable_dp_attention': True, 'dp_size': 4", True),  # 0.5.21: no attn_dp_size, the field
    ("'attn_dp_size': 1, 'enable_dp_attention': True", True),  # not the report: compared
])
def test_the_dict_s_attention_dp_report_is_set_aside(items: str, kept: bool) -> None:
    """From 0.5.22 the dict's enable_dp_attention is attn_dp_size > 1, not the field (which
    resolves false): it is set aside, not compared."""
    logged = parse_log("server_args={'model_path': 'm', " + items + "}")
    assert ("enable_dp_attention" in logged.values) is kept
    assert ("enable_dp_attention" in logged.set_aside) is not kept


def test_the_last_start_up_line_wins_whichever_its_form() -> None:
    logged = parse_log("server_args=ServerArgs(tp_size=1)\nrestart\nserver_args={'tp_size': 2}")
    assert logged.values == {"tp_size": 2} and logged.form == "dict" and logged.line == 3


@pytest.mark.parametrize(("tail", "made"), [
    ("[2026-04-23 00:09:41] Using KV cache dtype: torch.bfloat16\nRuntimeError: Not enough "
     "memory. Please try to increase --mem-fraction-static. Current value: "
     "mem_fraction_static=0.77\n", False),
    ("[2026-04-23 00:09:41] KV Cache is allocated. #tokens: 1000, K size: 1.00 GB, V size: "
     "1.00 GB\n", True),
    ("ValueError: Loaded weights leave no GPU memory for the KV cache under "
     "--mem-fraction-static=0.88. Raise --mem-fraction-static above 0.912\n", False),
    ("[2026-04-23 00:09:41] Using KV cache dtype: torch.bfloat16\n", None),
    # a hybrid model's state-cache refusals (0.5.23): no slot fits, or too few for a request
    ("RuntimeError: Not enough GPU memory for hybrid (mamba/linear-attention) state cache. "
     "Computed max_mamba_cache_size=-28 (total_rest_memory=-7.96 GB, mamba_cache_per_req="
     "146.81 MB).\n", False),
    ("RuntimeError: Hybrid (mamba/linear-attention) state cache is too small to serve any "
     "requests. max_mamba_cache_size=4, mamba_ratio=5, resulting max_num_reqs=0.\n", False),
])
def test_a_log_ending_in_not_enough_memory_is_read_as_no_pool(tail: str, made) -> None:
    """SGLang's "Not enough memory" error after loading, or 0.5.23's earlier "Loaded weights
    leave no GPU memory" refusal, means it made no KV pool; a pool or scheduler line means it
    did; a log cut before either says nothing."""
    from launchplan.input.server_log import parse_memory

    memory = parse_memory("[2026-04-23 00:09:31] Load weight begin. avail mem=78.50 GB\n"
                          "[2026-04-23 00:09:41] Load weight end. elapsed=10.36 s, "
                          "avail mem=16.21 GB, mem usage=62.29 GB.\n" + tail)
    assert memory.pool_made is made and memory.weights_gib == 62.29


def test_a_made_pool_is_shown_only_where_the_plan_finds_no_room() -> None:
    from types import SimpleNamespace

    from launchplan.checks.log_memory import memory_rows
    from launchplan.input.server_log import LoggedMemory

    def rows(made: bool | None, fits: bool) -> list[str]:
        plan = SimpleNamespace(fits=fits, max_total_num_tokens=0, max_running_requests=0,
                               context_len=0)
        return [r.figure for r in memory_rows(LoggedMemory(pool_made=made), plan)]

    assert rows(True, True) == [] and rows(None, False) == []
    assert rows(False, False) == rows(False, True) == rows(True, False) == ["KV pool made"]


@pytest.mark.parametrize("line", [
    "[2026-04-27 02:35:54] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', ...)\n",
    "server_args=ServerArgs(model_path='Qwen/Qwen3-8B', ..., tp_size=2)\n",
    "server_args={'model_path': 'Qwen/Qwen3-8B', …}\n",
])
def test_a_line_abridged_with_an_ellipsis_is_read_as_cut(line: str) -> None:
    """A poster who writes ``...`` in place of the fields they left out (SGLang's own
    clean-startup-log reference does) leaves those fields uncompared: the line counts as
    cut, the fields it does hold are read."""
    from launchplan.input.server_log import parse_log

    logged = parse_log(line)
    assert logged.truncated and logged.values["model_path"] == "Qwen/Qwen3-8B"
    assert logged.abridged  # left out on purpose, not lost to a cut: said so
    assert not parse_log(line.split(",")[0] + ", tp_si").abridged
    assert logged.unreadable == {}
    if "tp_size" in line:
        assert logged.values["tp_size"] == 2


@pytest.mark.parametrize(("line", "values"), [
    # the GLM-4.7-Flash load-failure notes (2026-07): ``...`` glued to the next field by a space
    ("server_args=ServerArgs(model_path='zai-org/GLM-4.7-Flash', ... context_length=32768, "
     "mem_fraction_static=0.85, ... reasoning_parser='glm45', tool_call_parser='glm47')",
     {"model_path": "zai-org/GLM-4.7-Flash", "context_length": 32768,
      "mem_fraction_static": 0.85, "reasoning_parser": "glm45", "tool_call_parser": "glm47"}),
    ("server_args=ServerArgs(model_path='m', ...tp_size=2, page_size=16 ...)",
     {"model_path": "m", "tp_size": 2, "page_size": 16}),
    ("server_args={'model_path': 'm', \u2026 'tp_size': 4, 'served_model_name': 'a ...'}",
     {"model_path": "m", "tp_size": 4, "served_model_name": "a ..."}),
    # a value left out is not Python's Ellipsis: the field is not compared
    ("server_args=ServerArgs(model_path='m', tp_size=..., page_size=16)",
     {"model_path": "m", "page_size": 16}),
])
def test_an_ellipsis_beside_a_field_leaves_the_field_read(line: str, values: dict) -> None:
    """An ellipsis written before or after a field in the same comma-separated piece marks the
    line cut and leaves that field read (it was dropped without a word: the plan of the
    GLM-4.7-Flash line ran at the model's own context length, its reasoning parser unread)."""
    from launchplan.input.server_log import parse_log

    logged = parse_log(line)
    assert logged.truncated and logged.unreadable == {}
    assert logged.values == values


def test_the_launch_command_before_the_line_is_kept_with_its_continuations():
    from launchplan.input.server_log import launch_command, parse_log

    text = ("$ python3 -m sglang.launch_server --model-path m \\\n  --tp 2 \\\n  --pp-size 2\n"
            "INFO detected platform cuda\n"
            "[2025-11-11 20:29:06] server_args=ServerArgs(model_path='m', tp_size=2, pp_")
    assert launch_command(text) == (1, "$ python3 -m sglang.launch_server --model-path m \\\n"
                                       "  --tp 2 \\\n  --pp-size 2")
    logged = parse_log(text)
    assert logged.truncated and logged.command is not None and logged.command[0] == 1
    assert launch_command("INFO nothing launched here\n") is None


def test_a_log_larger_than_the_bound_is_read_from_its_last_start(tmp_path, monkeypatch):
    """A server's log of weeks, or of a container restarted many times, holds its latest
    launch near the end: past the bound, the part from just before the last start-up line is
    read (its line numbers those of the whole file), not the beginning."""
    from launchplan.input import server_log

    monkeypatch.setattr(server_log, "MAX_LOG_BYTES", 64 << 10)
    monkeypatch.setattr(server_log, "_BEFORE_START", 4 << 10)
    filler = "[2026-01-01 00:00:00 TP0] Decode batch. #running-req: 1, #token: 10\n"
    first = "[2026-01-01 00:00:00] server_args=ServerArgs(model_path='a', tp_size=2)\n"
    last = "[2026-01-02 00:00:00] server_args=ServerArgs(model_path='b', tp_size=4)\n"
    path = tmp_path / "server.log"
    path.write_text(first + filler * 3000 + last + filler * 2000)
    logged = server_log.read_log(str(path))
    assert logged.values == {"model_path": "b", "tp_size": 4}
    assert logged.line == 3002
    path.write_text(first + filler * 3000)  # one start, at the top: read from there
    assert server_log.read_log(str(path)).values["model_path"] == "a"


# --- logs as container runtimes store and print them: a line over 16 KiB comes in parts ------

_ORACLE_LOG = (__import__("pathlib").Path(__file__).parent / "data" / "server_logs"
               / "oracle-h100-llama-3.1-8b.log").read_text()


def _startup_line(text: str) -> tuple[int, str]:
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if "server_args=ServerArgs(" in line)
    return at, lines[at]


def _split_at(line: str, key: str) -> tuple[str, str]:
    """The line cut inside ``key``'s name (where a 16 KiB boundary may fall)."""
    cut = line.index(key + "=") + 3
    return line[:cut], line[cut:]


def test_the_oracle_line_is_long_enough_to_be_split_by_a_container_runtime() -> None:
    assert len(_startup_line(_ORACLE_LOG)[1].encode()) > 16 * 1024  # Docker's and CRI's part size


@pytest.mark.parametrize("key", ["mem_fraction_static", "enable_encoder_swa_bounded_replay",
                                 "cuda_graph_config"])
def test_docker_json_file_parts_are_joined(key: str) -> None:
    import json

    whole = parse_log(_ORACLE_LOG)
    at, line = _startup_line(_ORACLE_LOG)
    head, tail = _split_at(line, key)
    records = [json.dumps({"log": text + "\n", "stream": "stderr", "time": "2026-12-01T09:20:00Z"})
               for text in _ORACLE_LOG.split("\n")[:at]]
    records.append(json.dumps({"log": head, "stream": "stderr", "time": "2026-12-01T09:20:00Z"}))
    records.append(json.dumps({"log": tail + "\n", "stream": "stderr",
                               "time": "2026-12-01T09:20:00Z"}))
    logged = parse_log("\n".join(records) + "\n")
    assert logged.values == whole.values and not logged.truncated and not logged.unreadable


@pytest.mark.parametrize("key", ["mem_fraction_static", "otlp_service_name"])
def test_cri_partial_records_are_joined(key: str) -> None:
    whole = parse_log(_ORACLE_LOG)
    at, line = _startup_line(_ORACLE_LOG)
    head, tail = _split_at(line, key)
    stamp = "2026-12-01T09:20:00.123456789Z stderr"
    text = (f"{stamp} F [oracle] start\n{stamp} P {head}\n{stamp} F {tail}\n")
    logged = parse_log(text)
    assert logged.values == whole.values and not logged.truncated


def test_docker_logs_timestamps_inside_a_split_line_are_taken_out() -> None:
    whole = parse_log(_ORACLE_LOG)
    _, line = _startup_line(_ORACLE_LOG)
    head, tail = _split_at(line, "mem_fraction_static")
    stamp = "2026-12-01T09:20:00.123456789Z "
    logged = parse_log(f"{stamp}[oracle] start\n{stamp}{head}{stamp}{tail}\n")
    assert logged.values == whole.values and not logged.unreadable
    # a stamp that is no part marker (no docker logs -t output around it) is left alone
    plain = parse_log("server_args=ServerArgs(model_path='m', served_model_name="
                      "'a2026-12-01T09:20:00.123456789Z b')")
    assert plain.values["served_model_name"] == "a2026-12-01T09:20:00.123456789Z b"


def test_a_memory_only_log_keeps_the_launch_command_it_shows() -> None:
    text = ("python -m sglang.launch_server --model-path qwen3-8b --tp-size 2\n"
            "[2026-04-14 16:08:44 TP0] Load weight begin. avail mem=22.93 GB\n")
    logged = parse_log(text)
    assert logged.line == 0 and logged.command is not None
    assert logged.command[0] == 1 and "--tp-size 2" in logged.command[1]


@pytest.mark.parametrize(("module", "own"), [
    ("sglang.bench_offline_throughput", "--num-prompts 10 --dataset-name random"),
    ("sglang.benchmark.one_batch", "--batch-size 4 8 --input-len 256"),
    ("sglang.benchmark.offline_throughput", "--num-prompts 10 --dataset-name random")])
def test_every_engine_benchmark_shows_its_runs_launch(module, own) -> None:
    """Each of SGLang's engine benchmarks (both module paths) starts the engine from the
    server flags it is given: its command is the launch of the memory lines it printed, its
    own options left out."""
    memory = ("[t TP0] Load weight begin. avail mem=78.50 GB\n"
              "[t TP0] KV Cache is allocated. #tokens: 399740, K size: 1.52 GB, V size: 1.52 GB\n")
    logged = parse_log(f"python3 -m {module} --model-path m {own} --tp-size 2\n" + memory)
    assert logged.command == (1, "python3 -m sglang.launch_server --model-path m --tp-size 2")


def test_a_benchmark_measuring_a_running_server_is_no_launch() -> None:
    memory = "[t TP0] KV Cache is allocated. #tokens: 399740, K size: 1.52 GB, V size: 1.52 GB\n"
    logged = parse_log("python -m sglang.bench_one_batch_server --base-url http://h:30000 "
                       "--batch-size 4\n" + memory)
    assert logged.command is None


def test_a_memory_only_logs_command_is_the_one_that_printed_its_memory_lines() -> None:
    """The shape of a 2026 note (blazingbhavneek/Obsidian-Notebook, Granite 4.0-H and LFM2
    PRs): a server launch up top, then ``sglang.bench_one_batch``, whose run prints the
    memory lines (and no server_args line); a launch after the memory lines is another run.
    Before, the last launch anywhere was read as the launch, its flags as the run's."""
    memory = ("[2026-02-01 00:05:02 TP0] Load weight begin. avail mem=15.24 GB\n"
              "[2026-02-01 00:05:03 TP0] KV Cache is allocated. #tokens: 399740, "
              "K size: 1.52 GB, V size: 1.52 GB\n")
    bench = ("❯ python -m sglang.bench_one_batch --model-path org/micro --batch 4 "
             "--input-len 2048 --output-len=1024 --correct --attention-backend triton\n")
    text = ("`python -m sglang.launch_server --model-path org/micro --tp-size 2`\n"
            + bench + memory + "To serve it: python -m sglang.launch_server --tp-size 8\n")
    logged = parse_log(text)
    assert logged.command is not None and logged.command[0] == 2
    # the benchmark's own options set aside, its server flags kept as a server launch
    assert logged.command[1] == ("❯ python -m sglang.launch_server --model-path org/micro "
                                 "--attention-backend triton")
    # the note's page wrapped the command inside an option's dashes: joined back
    wrapped = parse_log("python -m sglang.bench_one_batch --model-path m --batch 4 -\n"
                        "-input-len 2048 --tp-size 2\n" + memory)
    assert wrapped.command == (1, "python -m sglang.launch_server --model-path m --tp-size 2")
    # a launch after the memory lines only: no command shown for this run
    assert parse_log(memory + "python -m sglang.launch_server --tp-size 8\n").command is None
    # a launch before the memory lines, no benchmark between: still the launch
    served = parse_log("python -m sglang.launch_server --model-path m --tp-size 2\n" + memory)
    assert served.command == (1, "python -m sglang.launch_server --model-path m --tp-size 2")


def test_a_cut_log_of_a_sliding_window_pool_gives_the_full_layers_tokens() -> None:
    # before the Full/SWA labels, the unlabelled "KV Cache is allocated" line after the split
    # is the SWA layers' pool; max_total_num_tokens is the full layers'
    text = ("[TP0] Use sliding window memory pool. full_layer_tokens=375360, "
            "swa_layer_tokens=300288\n"
            "[TP0] KV Cache is allocated. #tokens: 300288, K size: 8.38 GB, V size: 5.59 GB\n")
    assert parse_memory(text).max_total_num_tokens == 375360
    # the scheduler's line, when the log has it, still decides
    done = text + "[TP0] max_total_num_tokens=375000, chunked_prefill_size=8192, " \
        "max_prefill_tokens=16384, max_running_requests=512, context_len=32768\n"
    assert parse_memory(done).max_total_num_tokens == 375000


def test_a_server_args_line_cut_down_to_its_fields_is_read_as_one() -> None:
    # a write-up's "key start-up lines": no ServerArgs( around the fields the poster kept
    text = ("server_args ... served_model_name='Qwen3-14B' ... tp_size=4 ... "
            "mem_fraction_static=0.8 ... enable_metrics=True\n"
            "KV Cache is allocated. #tokens: 298447, K size: 5.69 GB, V size: 5.69 GB\n")
    logged = parse_log(text)
    assert logged.values == {"served_model_name": "Qwen3-14B", "tp_size": 4,
                             "mem_fraction_static": 0.8, "enable_metrics": True}
    assert logged.truncated and logged.line == 1
    assert logged.memory.max_total_num_tokens == 298447


def test_sglang_s_own_hint_naming_sglang_serve_is_not_the_launch():
    """2026 builds print, first thing, a hint that quotes ``python -m sglang.launch_server``
    and an example ``sglang serve --model-path <model> [options]``: the launch pasted above it
    is the one that ran."""
    from launchplan.input.server_log import launch_command

    text = (
        "$ python -m sglang.launch_server --model-path Qwen/Qwen3.5-9B --tp-size 2\n"
        "/usr/lib/python3/site-packages/sglang/launch_server.py:71: UserWarning: 'python -m "
        "sglang.launch_server' is still supported, but 'sglang serve' is the recommended "
        "entrypoint.\n"
        "  Example: sglang serve --model-path <model> [options]\n"
        "  warnings.warn(\n"
        "[2026-04-14 10:00:00 TP0] Load weight begin. avail mem=22.93 GB\n")
    at, command = launch_command(text)
    assert at == 1 and command.endswith("--tp-size 2")
    assert launch_command(text.split("\n", 1)[1]) is None  # the hint alone is no launch


def test_a_command_a_terminal_wrapped_is_joined_back():
    """A terminal breaks a long command at its width, inside a token as often as between two,
    and a copy keeps the rows apart with no backslash: the rows are joined as it cut them."""
    from launchplan.input.server_log import launch_command

    prompt = "(env) root@host:/work/dir# CUDA_VISIBLE_DEVICES=0 python -m sglang.bench_one_batch"
    typed = (f"{prompt}   --model-path /models/gpt-oss-20b   --load-format dummy   --dtype "
             "bfloat16   --batch 1 --max-total-tokens 4096   --mem-fraction-static 0.12   "
             "--disable-cuda-graph   --json-model-override-args '{\"num_hidden_layers\": 1}'")
    for width in (97, 100, 113, 131, 162):
        rows = [typed[i:i + width].rstrip() for i in range(0, len(typed), width)]
        text = "\n".join(rows) + "\n[2025-09-28 17:07:10 TP0] Load weight begin. avail mem=94 GB\n"
        _, command = launch_command(text)
        words = command.split()
        for token in ("--load-format", "dummy", "0.12", "--disable-cuda-graph",
                      "--max-total-tokens", "4096", "--json-model-override-args"):
            assert token in words, (width, command)
    assert "--batch" not in words  # the benchmark's own option, set aside
    # a value broken by the wrap, and a break at the spaces between two tokens
    _, command = launch_command(f"{prompt} --model-path /models/llama-3.1-8b --load-format du\n"
                                "mmy --dtype bfloat16\n")
    assert "dummy" in command.split()
    _, command = launch_command(f"{prompt} --model-path /models/llama-3.1-8b --dtype\n"
                                "bfloat16 --tp-size 2\n")
    assert command.split()[-4:] == ["--dtype", "bfloat16", "--tp-size", "2"]


@pytest.mark.parametrize("after", [
    "launch_server.py: error: unrecognized arguments: --foo 1",  # output, a colon first
    "[2026-01-14 05:25:43 TP0] server_args --tp 2",  # a record of its own
    "",  # the command ended
    "python -m sglang.launch_server --model-path other --tp 2",  # another launch
])
def test_what_follows_a_command_is_not_taken_for_a_terminal_s_next_row(after):
    from launchplan.input.server_log import launch_command

    line = ("python -m sglang.launch_server --model-path /models/llama-3.1-8b --tp-size 2 "
            "--mem-fraction-static 0.8")
    at, command = launch_command(f"{line}\n{after}\n")
    assert (at, command) in ((1, line), (2, after))
    short = "python -m sglang.launch_server --tp 2"  # narrower than a terminal: it ended
    assert launch_command(f"{short}\nxyz --dtype half\n") == (1, short)


def test_a_manifest_s_launch_list_is_the_launch_command():
    """Kubernetes manifests give the launch one word per list item (or a flow list, with an
    ``args:`` list beside it): the list from its key on is handed to the paste reader."""
    from launchplan.input.pasted import unpaste
    from launchplan.input.server_log import launch_command

    block = ("spec:\n"
             "  containers:\n"
             "    - name: sglang\n"
             "      command:\n"
             "        - python3\n"
             "        - -m\n"
             "        - sglang.launch_server\n"
             "        - --model-path\n"
             "        - /work/models\n"
             "        - --tp\n"
             "        - \"16\" # Size of Tensor Parallelism\n"
             "        - --nnodes\n"
             "        - $(LWS_GROUP_SIZE)\n"
             "      ports:\n"
             "        - containerPort: 40000\n"
             "\n"
             "[2025-02-17 05:27:24 TP0] max_total_num_tokens=712400, max_running_requests=50\n")
    at, command = launch_command(block)
    assert at == 4 and "containerPort" not in command
    assert unpaste([command])[0] == ["--model-path", "/work/models", "--tp", "16",
                                     "--nnodes", "$(LWS_GROUP_SIZE)"]
    flow = ("      command: [\"python\", \"-m\", \"sglang.launch_server\"]\n"
            "      args:\n"
            "      - --model-path\n"
            "      - xai-org/grok-2\n"
            "      - --tp\n"
            "      - \"8\"\n"
            "      resources: {}\n")
    at, command = launch_command(flow)
    assert at == 1 and unpaste([command])[0] == ["--model-path", "xai-org/grok-2", "--tp", "8"]


def test_a_capped_hybrid_swa_log_s_pool_is_the_split_before_its_allocation():
    """0.5.23 prints the sliding-window split twice under --max-total-tokens (the profiled
    pool, then the capped one) before allocating: the labelled full pool, or else the last
    split before the allocation, is the pool."""
    profiled = ("[t TP0] Use sliding window memory pool. full_layer_tokens=1269577, "
                "swa_layer_tokens=1015661\n")
    capped = ("[t TP0] Use sliding window memory pool. full_layer_tokens=200000, "
              "swa_layer_tokens=160000\n")
    full = ("[t TP0] Full KV Cache is allocated. dtype: torch.bfloat16, #tokens: 200000, "
            "K size: 1 GB\n")
    assert parse_memory(profiled + capped + full).max_total_num_tokens == 200000
    assert parse_memory(profiled + capped).max_total_num_tokens == 200000  # cut there
    old = ("[t TP0] Use sliding window memory pool. full_layer_tokens=50000, "
           "swa_layer_tokens=40000\n"
           "[t TP0] KV Cache is allocated. #tokens: 40000, K size: 1 GB\n"  # the SWA pool
           "[t TP0] KV Cache is allocated. #tokens: 50000, K size: 1 GB\n")
    assert parse_memory(old).max_total_num_tokens == 50000


def test_the_swa_pool_s_own_line_and_a_wrapped_weight_record_are_read():
    text = ("Load weight end. elapsed=2415.46 s, type=Gemma4ForConditionalGeneration,\n"
            "avail mem=97.30 GB, mem usage=15.56 GB.\n"
            "SWAKVPool mem usage: 79.94 GB, swa size: 798276, full size: 997846\n")
    memory = parse_memory(text)
    assert memory.max_total_num_tokens == 997846 and memory.pool_made
    assert memory.after_load_gib == 97.30 and memory.weights_gib == 15.56
    # a record that only looks wrapped is not joined to a later one
    assert parse_memory("Load weight end. type=X\nsomething else\navail mem=1.00 GB"
                        ).after_load_gib is None


def test_the_mamba_cache_line_gives_the_state_slots():
    line = ("[2026-04-14 16:08:49 TP0] Mamba Cache is allocated. max_mamba_cache_size: 186, "
            "conv_state size: 0.10GB, ssm_state size: 4.38GB \n")
    memory = parse_memory(line)
    assert memory.max_mamba_cache_size == 186 and memory.any()
    assert parse_memory("nothing here").max_mamba_cache_size is None


def test_the_pools_beside_the_full_one_are_read_from_the_line_that_sized_them():
    split = parse_memory(
        "[t] Use sliding window memory pool. full_layer_tokens=1269577, swa_layer_tokens=1015661\n"
        "[t] Use sliding window memory pool. full_layer_tokens=200000, swa_layer_tokens=160000\n"
        "[t] Full KV Cache is allocated. dtype: torch.bfloat16, #tokens: 200000, K size: 1 GB\n")
    assert split.pools == {"swa_max_total_num_tokens": 160000}
    pool = parse_memory("SWAKVPool mem usage: 79.94 GB, swa size: 798276, full size: 997846\n")
    assert pool.pools == {"swa_max_total_num_tokens": 798276}
    assert parse_memory("KV Cache is allocated. #tokens: 5, K size: 1 GB").pools == {}


def test_deepseek_v4_s_pools_are_the_last_its_first_rank_printed():
    """Each rank prints its pools as profiled and, under a cap, again as capped; ranks
    interleave."""
    profiled = "full=852992, swa=85248, c4=213248, c128=6664, c4_state=5328, c128_state=0"
    capped = "full=32768, swa=3200, c4=8192, c128=256, c4_state=200, c128_state=0"
    text = "".join(f"[t DP{r} TP{r}] DSV4 pool sizes: {sizes}\n" for sizes, r in (
        (profiled, 0), (profiled, 3), (capped, 0), (profiled, 2), (capped, 3), (capped, 2)))
    memory = parse_memory(text)
    assert memory.max_total_num_tokens == 32768
    assert memory.pools == {"swa_max_total_num_tokens": 3200, "c4_max_total_num_tokens": 8192,
                            "c128_max_total_num_tokens": 256}
    uncapped = parse_memory(f"[t DP0 TP0] DSV4 pool sizes: {profiled}\n")
    assert uncapped.max_total_num_tokens == 852992


def test_the_profiled_value_line_gives_the_pool_and_a_draft_s_negative_one_none():
    line = ("[t TP0] max_total_tokens=900000 is larger than the profiled value 444500. "
            "Use the profiled value instead.\n")
    memory = parse_memory(line)
    assert memory.max_total_num_tokens == 444500 and memory.pool_made
    draft = ("[t TP0] max_total_tokens=20480 is larger than the profiled value -89624. "
             "Use the profiled value instead.\n")
    memory = parse_memory(draft)  # an older draft worker's: it sizes nothing
    assert memory.max_total_num_tokens is None and memory.pool_made is None


@pytest.mark.parametrize("line", [
    # cut inside the record, wrapped after a comma, a fork's record without the limit, and
    # a journal's ``grep -o`` quote
    "[2026-08-20 03:11:02 TP0] max_total_num_tokens=3228418, chunked_prefill_size=16384, max_pre",
    "[2026-08-20 03:11:02 TP0] max_total_num_tokens=3228418, chunked_prefill_size=16384,\n"
    "max_prefill_tokens=16384, max_running_requests=32, context_len=262144, "
    "available_gpu_mem=75.82 GB",
    "[2026-10-10 11:59:51] max_total_num_tokens=3228418, chunked_prefill_size=8192, "
    "context_len=262144, available_gpu_mem=10.39 GB",
    "max_total_num_tokens=3228418",
])
def test_the_scheduler_summary_is_read_field_by_field(line: str) -> None:
    memory = parse_memory(line + "\n")
    assert memory.max_total_num_tokens == 3228418 and memory.pool_made
    wrapped = "\n" in line
    assert memory.max_running_requests == (32 if wrapped else None)
    assert memory.context_len == (262144 if "context_len" in line else None)
    # a number cut short by the paste is not read: its digits may be fewer than printed
    assert parse_memory("max_total_num_tokens=32284 ...\n").max_total_num_tokens is None


def test_a_hybrid_models_state_cap_gives_the_requests_without_the_summary() -> None:
    text = ("[2026-08-20 03:11:00] max_running_requests is capped to 24 by the mamba state "
            "cache (max_mamba_cache_size=124, 5 state slots per request)\n")
    assert parse_memory(text).max_running_requests == 24
    summary = text + "max_total_num_tokens=330323, max_running_requests=25, context_len=4\n"
    assert parse_memory(summary).max_running_requests == 25  # the summary's own wins


@pytest.mark.parametrize("prefix", ["llm-1  | ", "2026-08-20T03:10:50.123456789Z ",
                                    "Aug 20 03:10:50 mi355 sglang-start.sh[4121]: "])
def test_a_launch_a_collector_prefixed_on_every_line_is_read_whole(prefix: str) -> None:
    text = "".join(prefix + line + "\n" for line in (
        "python -m sglang.launch_server \\", "    --model-path m --tp 2 \\",
        "    --port 8100", "[2026-08-20 03:11:02 TP0] max_total_num_tokens=1000, "
        "max_running_requests=32, context_len=4096"))
    out = parse_log(text)
    assert out.command is not None and "--tp 2" in out.command[1]
    assert prefix.strip() not in out.command[1].split("\n", 1)[1]


def test_post_capture_kv_sizing_gives_the_pool_kept_not_its_upper_bound() -> None:
    text = ("SWAKVPool VA upper bound: 40.00 GB, swa size: 211008, full size: 263761\n"
            "Post-capture KV sizing: full_layer_tokens=213761, swa_layer_tokens=171008\n"
            "Post-capture KV sizing: KV cache allocated. dtype: torch.bfloat16, #tokens: 213761, "
            "KV size: 30.00 GB, avail mem=5.00 GB\n")
    memory = parse_memory(text)
    assert memory.max_total_num_tokens == 213761
    assert memory.pools == {"swa_max_total_num_tokens": 171008}
    # cut before the kept pool's lines, the bound is all the log states
    assert parse_memory(text.split("Post")[0]).max_total_num_tokens == 263761


def _start(fraction: float, tokens: int, requests: int, ready: bool = True) -> str:
    line = ("[t] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B-Instruct', "
            f"mem_fraction_static={fraction}, tp_size=1)\n"
            "[t] Load weight begin. avail mem=78.50 GB\n"
            "[t] Load weight end. type=LlamaForCausalLM, avail mem=63.40 GB, mem usage=15.10 GB.\n"
            f"[t] KV Cache is allocated. #tokens: {tokens}, K size: 1 GB, V size: 1 GB\n"
            f"[t] max_total_num_tokens={tokens}, chunked_prefill_size=8192, "
            f"max_running_requests={requests}, context_len=131072, available_gpu_mem=9 GB\n")
    return line + ("[t] The server is fired up and ready to roll!\n" if ready else "")


def test_a_log_of_several_start_ups_reads_the_memory_of_the_one_its_line_is() -> None:
    """A log appended to by a restart (or a notebook's several servers): the last start-up's
    line is read, and so are its memory records, not the first start-up's."""
    logged = parse_log(_start(0.5, 200000, 2048) + _start(0.85, 420000, 4096))
    assert logged.values["mem_fraction_static"] == 0.85
    assert logged.memory.max_total_num_tokens == 420000
    assert logged.memory.max_running_requests == 4096
    # the retry failed: its own records say so, not the first start-up's pool
    failed = parse_log(_start(0.5, 200000, 2048) + _start(0.15, 0, 0).split("[t] KV")[0]
                       + "[t] RuntimeError: Not enough memory. Please try to increase "
                         "--mem-fraction-static.\n")
    assert failed.memory.pool_made is False and failed.memory.max_total_num_tokens is None
    assert not failed.started
    # one start-up: records anywhere in the paste count, as before
    one = parse_log("[t] Load weight begin. avail mem=78.50 GB\n" + _start(0.85, 420000, 4096))
    assert one.memory.before_load_gib == 78.5 and one.started


@pytest.mark.parametrize(("failure", "named"), [
    ("Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 672.00 MiB",
     "Capture cuda graph failed: CUDA out of memory. Tried to allocate 672.00 MiB"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."),
    ("[t] Scheduler hit an exception: Traceback (most recent call last):",
     "Scheduler hit an exception (the log ends its traceback before the error)"),
    ("[t] DetokenizerManager hit an exception: Traceback (most recent call last):\n"
     '  File "detokenizer_manager.py", line 124, in init_ipc_channels\n'
     "zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:29236')",
     "DetokenizerManager hit an exception: zmq.error.ZMQError: Address already in use "
     "(addr='tcp://127.0.0.1:29236')"),
    ("[t DP1 TP2] Scheduler hit an exception: Traceback (most recent call last):\n"
     '  File "model_runner.py", line 349, in init_torch_distributed\n'
     "    torch.get_device_module(self.device).set_device(self.gpu_id)\n"
     "RuntimeError: CUDA error: invalid device ordinal\n"
     "CUDA kernel errors might be asynchronously reported at some other API call",
     "Scheduler hit an exception: RuntimeError: CUDA error: invalid device ordinal"),
    ("2026-09-22T06:50:07.81Z zmq.error.ZMQError: Address already in use\n"
     "2026-09-22T06:50:07.81Z [t] Received sigquit from a child process. It usually means "
     "the child failed.",
     "a child process died: zmq.error.ZMQError: Address already in use"),
    ("[t] Received sigquit from a child process. It usually means the child failed.",
     "Received sigquit from a child process. It usually means the child failed."),
    ("Capture draft cuda graph failed: HIP out of memory.", "Capture draft cuda graph failed: "
                                                            "HIP out of memory."),
])
def test_a_start_up_that_died_past_the_pool_is_not_read_as_started(failure, named) -> None:
    logged = parse_log(_start(0.85, 420000, 4096, ready=False)
                       + "[t] Capture cuda graph begin. This can take up to several minutes.\n"
                       + failure + "\n[t] Rank 0 scheduler is dead.\n")
    assert logged.memory.pool_made is True
    assert logged.failure == named and not logged.started


def test_a_command_bash_prints_after_the_failure_is_the_launch() -> None:
    """bash prints a job's status line, its command included, after everything the job
    logged: that command is the launch, and its ``Killed`` says what the failure was."""
    logged = parse_log(
        "[2026-05-16 13:05:37] Received sigquit from a child process. It usually means the "
        "child failed.\n"
        "./serve.sh: line 28:  8891 Killed                  CUDA_VISIBLE_DEVICES=\"0\" python3 "
        "-m sglang.launch_server --model /m --tp-size 2 --max-total-tokens 25000\n")
    assert logged.command is not None and "--max-total-tokens 25000" in logged.command[1]
    assert logged.failure is not None and logged.failure.startswith("killed: the shell's job")


def test_a_failure_while_serving_is_not_the_start_ups() -> None:
    logged = parse_log(_start(0.85, 420000, 4096)
                       + "[t] Prefill batch. #new-seq: 1, #new-token: 7\n"
                       + "[t] Scheduler hit an exception: Traceback (most recent call last):\n")
    assert logged.failure is None and logged.started


@pytest.mark.parametrize("served", [
    "[t TP5] Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens). "
    "Use a shorter input or enable --allow-auto-truncate.",
    '[t] INFO:     10.0.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
])
def test_a_request_taken_before_a_crash_makes_it_the_servings(served) -> None:
    """A request the server took (its input checked, an answered POST) is serving: a crash
    after it, in a paste that starts past the ready line, is no start-up failure."""
    logged = parse_log(_start(0.85, 420000, 4096, ready=False) + served + "\n"
                       + "[t TP5] Scheduler hit an exception: Traceback (most recent call last):"
                       + "\n")
    assert logged.failure is None


def test_a_failed_warm_up_before_any_answered_request_is_the_start_ups() -> None:
    """Start-up's own calls (the model-info GET) are no served request."""
    logged = parse_log(_start(0.85, 420000, 4096, ready=False)
                       + '[t] INFO:     127.0.0.1:40 - "GET /get_model_info HTTP/1.1" 200 OK\n'
                       + "[t] Scheduler hit an exception: Traceback (most recent call last):\n"
                       + "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert logged.failure == ("Scheduler hit an exception: RuntimeError: CUDA error: an illegal "
                              "memory access was encountered")


def test_a_json_exports_records_keep_their_last_number() -> None:
    """Cloud Logging and CloudWatch export a record as a JSON string: the summary's last
    field is followed by the closing quote, not the line's end."""
    record = ('{"textPayload": "[t] max_total_num_tokens=105531, chunked_prefill_size=8192, '
              'max_running_requests=2049, context_len=131072", "severity": "INFO"}\n')
    memory = parse_memory(record)
    assert memory.max_total_num_tokens == 105531
    assert memory.max_running_requests == 2049 and memory.context_len == 131072


def test_a_log_windows_powershell_wrote_in_utf16_is_read(tmp_path) -> None:
    from launchplan.input.server_log import read_log

    text = ("server_args=ServerArgs(model_path='m', tp_size=2)\n"
            "[t] KV Cache is allocated. #tokens: 420000, K size: 1 GB, V size: 1 GB\n")
    for encoding in ("utf-16", "utf-16-be"):
        path = tmp_path / f"{encoding}.log"
        bom = "\ufeff" if encoding == "utf-16-be" else ""
        path.write_bytes((bom + text).encode(encoding))
        logged = read_log(str(path))
        assert logged.values == {"model_path": "m", "tp_size": 2}
        assert logged.memory.max_total_num_tokens == 420000


_RECORDS = ("[2026-03-02 10:11:12 TP0] Load weight begin. avail mem=78.62 GB\n"
            "[2026-03-02 10:11:40 TP0] Load weight end. elapsed=27.91 s, type=LlamaForCausalLM, "
            "dtype=torch.bfloat16, avail mem=63.47 GB, mem usage=15.15 GB.\n"
            "[2026-03-02 10:11:41 TP0] KV Cache is allocated. #tokens: 1664775, K size: "
            "25.40 GB, V size: 25.40 GB\n"
            "[2026-03-02 10:12:03 TP0] max_total_num_tokens=1664775, chunked_prefill_size=8192, "
            "max_prefill_tokens=16384, max_running_requests=4096, context_len=131072, "
            "available_gpu_mem=11.21 GB\n")


def _terminal(text: str, width: int) -> str:
    """``text`` as a terminal of ``width`` columns shows it and a copy keeps it: each
    line broken into rows of that width, the spaces a row ends in dropped."""
    rows = []
    for line in text.split("\n"):
        while len(line) > width:
            rows.append(line[:width].rstrip(" "))
            line = line[width:]
        rows.append(line)
    return "\n".join(rows)


@pytest.mark.parametrize("width", [72, 80, 100, 120])
def test_memory_records_a_terminal_wrapped_read_as_written(width):
    """A terminal breaks a record at its width, inside a number as often as not (80
    columns cut ``#tokens: 16647`` / ``75``): the rows are joined back, so every figure is
    the whole number, never its first digits."""
    assert parse_memory(_terminal(_RECORDS, width)).as_dict() == \
        parse_memory(_RECORDS).as_dict()


def test_a_number_cut_by_a_wrap_is_joined_even_with_no_other_wrapped_row():
    text = ("[2026-03-02 10:11:41 TP0] KV Cache is allocated. #tokens: 16647\n"
            "75, K size: 25.40 GB, V size: 25.40 GB\n")
    assert parse_memory(text).max_total_num_tokens == 1664775
    # a record that ends where its line does is not joined to the next record
    two = "KV Cache is allocated. #tokens: 1664775, K size: 25.40 GB, V size: 25.40\n" \
          "[2026-03-02 10:12:03 TP0] max_total_num_tokens=1664775, max_running_requests=8\n"
    assert parse_memory(two).max_running_requests == 8


def test_a_negative_profiled_pool_is_no_pool_in_a_launch_without_a_draft():
    """sgl-project/sglang#7691: the weights left the pool nothing ("larger than the profiled
    value -561981"), and SGLang stops with "Not enough memory" next; an older release's
    draft worker printed such a value too, so with a draft the line decides nothing."""
    line = ("[t] max_total_tokens=131072 is larger than the profiled value -561981. Use the "
            "profiled value instead.\n")
    head = "[t] server_args=ServerArgs(model_path='m', speculative_algorithm={})\n"
    memory = parse_log(head.format(None) + "[t] Load weight end. avail mem=21.73 GB, mem "
                       "usage=166.59 GB\n" + line).memory
    assert memory.pool_made is False and memory.max_total_num_tokens is None
    assert parse_log(head.format("'EAGLE'") + line).memory.pool_made is None
    # a log of memory records alone: the record after the rank's first and only load
    load = "[t TP0] Load weight end. avail mem=21.73 GB, mem usage=166.59 GB\n"
    assert parse_log(load + line.replace("[t]", "[t TP0]")).memory.pool_made is False
    assert parse_log(load + load + line.replace("[t]", "[t TP0]")).memory.pool_made is None


@pytest.mark.parametrize("said", ["not set", "not explicitly specified", "not specified"])
def test_the_backend_an_older_release_chose_after_its_line_is_the_logged_one(said):
    """Releases of 2025 logged ``attention_backend=None`` and chose the backend in the model
    runner, saying which; the launch ran with it. A value the line logs stands."""
    text = ("[t] server_args=ServerArgs(model_path='m', attention_backend=None, tp_size=1)\n"
            f"[t TP0] Attention backend {said}. Use flashinfer backend by default.\n")
    logged = parse_log(text)
    assert logged.values["attention_backend"] == "flashinfer"
    assert "chose by default" in logged.notes[0]
    given = parse_log(text.replace("attention_backend=None", "attention_backend='triton'"))
    assert given.values["attention_backend"] == "triton" and not given.notes
    cut = parse_log("[t] server_args=ServerArgs(model_path='m', tp_size=1, chunk\n"
                    "[t TP0] Attention backend not set. Use fa3 backend by default.\n")
    assert cut.values["attention_backend"] == "fa3" and "cut" in cut.notes[0]
    whole = parse_log("[t] server_args=ServerArgs(model_path='m', tp_size=1)\n"
                      "[t TP0] Attention backend not set. Use fa3 backend by default.\n")
    assert "attention_backend" not in whole.values  # a whole line without the field: as is


def test_an_npu_s_records_name_its_device_where_no_line_does():
    """An Ascend log of memory records alone ("Capture target decode NPU graph", its
    ascend backends) ran on an NPU, which the plan on a GPU target then says."""
    text = ("[t TP0] Load weight end. type=DeepseekV4ForCausalLM, avail mem=40.10 GB, mem "
            "usage=20.50 GB.\n[t TP0] Capture target decode NPU graph begin. backend=full\n")
    assert parse_log(text).device_named == "npu"
    assert parse_log(text.replace("NPU graph", "cuda graph")).device_named is None


@pytest.mark.parametrize("end", [
    "  warnings.warn('resource_tracker: There appear to be %d '\n",
    "Killed\n"])
def test_a_start_up_killed_in_its_weight_load_is_a_failure(end):
    """A DGX Spark log (sostrowsk/dgx-spark-local-llm) stops at shard 47 of 49 and ends in the
    resource tracker's warning: the kernel's OOM killer left no Python error to log."""
    text = ("[t] server_args=ServerArgs(model_path='m', tp_size=1)\n"
            "[t] Load weight begin. avail mem=97.70 GB\n"
            "Multi-thread loading shards:  96% Completed | 47/49 [02:10<00:05,  2.8s/it]\n" + end)
    assert parse_log(text).failure.startswith("killed during the weight load")
    loaded = text.replace("Multi-thread", "[t] Load weight end. avail mem=20.00 GB, mem usage="
                          "77.70 GB.\nMulti-thread")
    assert parse_log(loaded).failure is None  # loaded: whatever killed it came later
    assert parse_log(text.replace(end, "")).failure is None  # a paste cut in the load


def test_a_prose_line_naming_the_launcher_is_no_launch_command():
    """A note above a log ("launch: bare sglang.launch_server, TP4, GPUs 0-3", an AMD
    report) names the launcher in a sentence: no command, so no flags are taken from it."""
    from launchplan.input.server_log import launch_command

    assert launch_command("launch: bare sglang.launch_server, TP4, GPUs 0-3\n") is None
    assert launch_command("`python -m sglang.launch_server --tp 2`\n") == (
        1, "`python -m sglang.launch_server --tp 2`")


#: a launch command, then a scheduler's start-up records (the shape of sglang PR #8258's)
_RUN = ("$ python3 -m sglang.launch_server --model Qwen/Qwen3-30B-A3B --tp-size 8 \\\n"
        "    --port 30000\n"
        "......\n"
        "[2025-07-22 06:17:55 TP0] Load weight end. type=Qwen3MoeForCausalLM, avail mem=30.36 "
        "GB, mem usage=7.20 GB.\n"
        "[2025-07-22 06:18:34 TP0] max_total_num_tokens=6004242, chunked_prefill_size=16384, "
        "max_prefill_tokens=16384, max_running_requests=4096, context_len=40960, "
        "available_gpu_mem=23.00 GB\n"
        "[2025-07-22 06:18:35] INFO:     Started server process [163598]")


@pytest.mark.parametrize("mark", [" \u23ce ", " \u21b5 "])
def test_a_paste_a_dump_flattened_is_read_as_its_lines(mark) -> None:
    """A public issue dump writes each line break as a mark between spaces: the record reader
    found the records mid-line while the command finder, reading line starts, missed the
    command; both now read the lines the marks stand for, as in the paste itself."""
    lines = parse_log(_RUN)
    flat = parse_log(_RUN.replace("\n", mark))
    assert flat.command == lines.command and flat.command is not None
    assert "--tp-size 8" in flat.command[1] and "--port 30000" in flat.command[1]
    assert flat.memory == lines.memory and flat.memory.max_total_num_tokens == 6004242
    assert any(mark.strip() in note and "line breaks" in note for note in flat.notes)
    assert not lines.notes


def test_a_lone_or_line_leading_return_mark_is_no_flattened_paste() -> None:
    """A mark at a line's start (a dump's sign for a progress bar's carriage return) or a
    single one is some other use of it: the text is read as it is."""
    text = _RUN.replace("......", "\u23ce Loading shards: 100% 7/7 \u23ce done")
    logged = parse_log(text)
    assert logged.command is not None and logged.command[0] == 1
    assert not any("line breaks" in note for note in logged.notes)


def test_a_command_on_the_records_line_is_said_to_be_unread() -> None:
    """A paste that lost its line breaks some other way (escaped ``\\n``): its records still
    read; the command on their line is not read as the launch, and the notes say so."""
    logged = parse_log(_RUN.replace("\n", "\\n"))
    assert logged.command is None and logged.memory.max_total_num_tokens == 6004242
    assert any(note.startswith("line 1 shows an SGLang launch command") for note in logged.notes)
    assert not any("launch command" in note for note in parse_log(_RUN).notes)


_SGLANG = '  File "/sgl-workspace/sglang/python/sglang/srt/'
#: a scheduler's start-up traceback (sglang#4489), without the ``Scheduler hit an exception:``
#: record it was logged in, cut inside its last frame
_START_UP_TRACEBACK = (
    "Traceback (most recent call last):\n"
    + _SGLANG + 'managers/scheduler.py", line 1748, in run_scheduler_process\n'
    "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)\n"
    + _SGLANG + 'managers/scheduler.py", line 218, in __init__\n'
    "    self.tp_worker = TpWorkerClass(\n"
    + _SGLANG + 'managers/tp_worker.py", line 74, in __init__\n'
    "    self.model_runner = ModelRunner(\n"
    + _SGLANG + 'model_executor/model_runner.py", line 166, in __init__\n'
    "    self.initialize(min_per_gpu_memory)\n"
    + _SGLANG + 'model_executor/model_runner.py", line 207, in initialize\n'
    "    self.init_cu")
_COMMAND = ("docker run --gpus all lmsysorg/sglang:latest python3 -m sglang.launch_server "
            "--model-path /data/Qwen2.5-72B-Instruct --tp 2 --dp 2 --enable-dp-attention\n")


@pytest.mark.parametrize(("error", "named"), [
    ("", "a traceback through scheduler.py __init__ ... model_runner.py initialize, which the "
         "log ends before its error"),
    ("da_graphs()\nRuntimeError: CUDA error: out of memory\n[t] Rank 0 scheduler is dead.",
     "a traceback through scheduler.py __init__ ... model_runner.py initialize: RuntimeError: "
     "CUDA error: out of memory"),
])
def test_a_start_up_traceback_without_its_wrapper_record_is_the_failure(error, named) -> None:
    """Its own frames (the scheduler's, a worker's, the model runner's construction) show
    the start-up died: the command is planned and the failure named, its error line quoted
    when the paste holds it."""
    logged = parse_log("#### command\n" + _COMMAND + "\n#### Error\n" + _START_UP_TRACEBACK
                       + error + "\n")
    assert logged.command is not None and "--dp 2" in logged.command[1]
    assert logged.failure == named and not logged.started
    # beside the memory records of the same start-up too
    with_records = parse_log(_RUN + "\n" + _START_UP_TRACEBACK + error + "\n")
    assert with_records.failure == named and not with_records.started


def test_a_traceback_through_request_handling_is_no_start_up_failure() -> None:
    """A crash while serving goes through the event loop first, even where it then builds
    something (a request's own object): not a start-up's, and a launch command beside it
    alone is no log to plan; the error says why."""
    serving = ("Traceback (most recent call last):\n"
               + _SGLANG + 'managers/scheduler.py", line 1748, in run_scheduler_process\n'
               "    scheduler.event_loop_overlap()\n"
               + _SGLANG + 'managers/scheduler.py", line 500, in event_loop_overlap\n'
               "    self.process_input_requests(recv_reqs)\n"
               + _SGLANG + 'managers/schedule_batch.py", line 50, in __init__\n'
               "    self.origin_input_ids = origin_input_ids\n"
               "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert parse_log(_RUN + "\n" + serving).failure is None
    with pytest.raises(InputError, match="runs through no start-up of SGLang's"):
        parse_log(_COMMAND + serving)
    with pytest.raises(InputError) as raised:  # no traceback at all: no such reason given
        parse_log(_COMMAND)
    assert "start-up of SGLang's" not in raised.value.message


@pytest.mark.parametrize("draft_class", ["LlamaForCausalLMEagle3", "DeepseekV3ForCausalLMNextN",
                                         "Qwen3ForCausalLMDFlashDraftModel"])
def test_a_drafts_load_alone_is_not_the_targets(draft_class) -> None:
    """A paste that kept only the draft's weight load (SGLang loads the draft after the
    target): neither its usage nor the free memory around it is the target's."""
    memory = parse_memory(
        "[t] Load weight begin. avail mem=57.37 GB\n"
        f"[t] Load weight end. type={draft_class}, dtype=torch.float16, avail mem=55.60 GB, "
        "mem usage=1.77 GB.\n"
        "[t] KV Cache is allocated. #tokens: 20480, K size: 1 GB, V size: 1 GB\n")
    assert memory.draft_load_only == draft_class
    assert memory.weights_gib is None and memory.before_load_gib is None
    assert memory.free_before_gib is None and memory.max_total_num_tokens == 20480


def test_a_targets_begin_before_the_drafts_load_stays() -> None:
    """The target's begin record, its end cut away, then the draft's load: the free memory
    before loading is the target's begin; no weights figure is the target's."""
    memory = parse_memory(
        "[t] Load weight begin. avail mem=78.58 GB\n"
        "[t] Load weight begin. avail mem=61.30 GB\n"
        "[t] Load weight end. type=LlamaForCausalLMEagle3, avail mem=59.53 GB, "
        "mem usage=1.77 GB.\n")
    assert memory.before_load_gib == 78.58 and memory.weights_gib is None
    assert memory.draft_load_only == "LlamaForCausalLMEagle3"


def test_a_targets_load_then_a_drafts_counts_both() -> None:
    memory = parse_memory(
        "[t] Load weight begin. avail mem=78.58 GB\n"
        "[t] Load weight end. type=LlamaForCausalLM, avail mem=63.44 GB, mem usage=15.14 GB.\n"
        "[t] Load weight begin. avail mem=61.30 GB\n"
        "[t] Load weight end. type=LlamaForCausalLMEagle3, avail mem=59.53 GB, "
        "mem usage=1.77 GB.\n")
    assert memory.draft_load_only is None
    assert memory.weights_gib == 15.14 and memory.more_weights_gib == 1.77


def test_a_paste_of_a_drafts_load_alone_says_so() -> None:
    from launchplan.errors import InputError

    with pytest.raises(InputError) as caught:
        parse_log("[t TP0] Load weight end. type=Glm5NextForConditionalGenerationNextN, "
                  "quant=fp8, avail mem=16.18 GB, mem usage=2.39 GB.\n", "issue.log")
    assert "a speculative draft's weight load (type=Glm5NextForConditionalGenerationNextN)" \
        in caught.value.message
