"""`launchplan resolve --from-log`: real start-up logs planned again and compared.

The logs and their sources are in tests/input/data/server_logs/sources.json. The oracle-*
logs are SGLang 0.5.23's own resolution: launchplan must agree with every one of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.commands.main import main

DATA = Path(__file__).parents[1] / "input" / "data" / "server_logs"
ROOT = Path(__file__).resolve().parents[2]
SOURCES = json.loads((DATA / "sources.json").read_text())["logs"]


def model_path(entry: dict) -> str:
    """A bundled model's name, or a config folder of the repository (tests/parity/models)."""
    folder = ROOT / entry["model"]
    return str(folder) if folder.is_dir() else entry["model"]


def run(capsys, entry, *extra):
    code = main(["resolve", "--from-log", str(DATA / entry["file"]), "--gpu", entry["gpu"],
                 "--model-path", model_path(entry), "--format", "json",
                 *entry.get("flags", []), *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_every_log_has_a_source_and_a_file():
    for entry in SOURCES:
        assert entry["source"] and (DATA / entry["file"]).is_file()


@pytest.mark.parametrize("entry", [e for e in SOURCES if e["release"] == "0.5.23"],
                         ids=lambda e: e["file"])
def test_launchplan_agrees_with_logs_sglang_0_5_23_printed(capsys, entry):
    data = run(capsys, entry)
    assert data["agrees"] and data["differences"] == [], data["differences"]
    assert data["compared"] > 400 and data["unknown_fields"] == []
    explicit = [d["field"] for d in data["agrees_if_passed_explicitly"]]
    assert explicit == entry.get("explicit", [])


@pytest.mark.parametrize("entry", [e for e in SOURCES if e["release"] != "0.5.23"],
                         ids=lambda e: e["file"])
def test_public_logs_of_older_releases_are_planned_and_explained(capsys, entry):
    data = run(capsys, entry)
    assert data["truncated"] == entry["truncated"]
    # a log cut down to its memory lines, or whose line was abridged to a field or two,
    # compares its memory figures instead; one whose start-up died before any (a launch
    # command and the failure) names that failure as recorded
    if "startup_failure" in entry:
        assert data["startup_failure"] == entry["startup_failure"]
    else:
        assert data["compared"] >= 15 or (
            (data["log"]["line"] is None or data["truncated"]) and data["memory"])
    # whatever differs names the field and the rule (or default) that decided it
    for d in data["differences"] + data["agrees_if_passed_explicitly"]:
        assert d["field"] and d["rule"]


@pytest.mark.parametrize("entry", [e for e in SOURCES if "differences_classified" in e],
                         ids=lambda e: e["file"])
def test_real_logs_plan_with_only_their_classified_differences(capsys, entry):
    """Each public log's outcome, as recorded in sources.json: the values that agree once
    given, and every remaining difference with its class (an older release or the log's
    environment; none is launchplan's)."""
    data = run(capsys, entry)
    assert data["truncated"] == entry["truncated"] and data["unreadable_fields"] in (
        [], ["lora_paths"])
    assert {d["field"] for d in data["differences"]} == set(entry["differences_classified"])
    assert sorted(d["field"] for d in data["agrees_if_passed_explicitly"]) == \
        entry["explicit_set"]
    # an older default 0.5.23 refuses is named as such
    refused = {f for f, why in entry["differences_classified"].items() if "refuse" in why}
    assert set(data["refused_if_given"]) == refused
    if "compat_too" in entry:
        again = run(capsys, entry, "--compat", entry["compat_too"])
        assert again["agrees"] and again["release"] == entry["compat_too"]


@pytest.mark.parametrize("entry", SOURCES, ids=lambda e: e["file"])
def test_a_log_s_context_is_the_stand_in_s(capsys, entry):
    """The model planned (bundled, shipped or a parity config standing in for the log's) must
    carry the context the log's scheduler line reports: its RoPE table, counted with the
    weights, is max_position_embeddings long, so another context sizes weights and pool."""
    rows = {r["figure"]: r for r in run(capsys, entry)["memory"]}
    if "context_len" in rows:
        assert rows["context_len"]["planned"] == rows["context_len"]["logged"]


def test_the_dict_later_releases_log_is_compared_like_the_repr(capsys, tmp_path):
    """0.5.21 on, SGLang logs server_args={...} (its resolved dict), where enable_dp_attention
    is the report attn_dp_size > 1 (true here, though the field resolves false): the oracle's
    attention-DP resolution written that way plans exactly as its ServerArgs(...) line."""
    from launchplan.input.server_log import parse_log

    entry = next(e for e in SOURCES if e["file"] == "oracle-h100-llama-3.1-8b-attn-dp.log")
    values = parse_log((DATA / entry["file"]).read_text()).values
    assert values["attn_dp_size"] == 2 and values["enable_dp_attention"] is False
    values["enable_dp_attention"] = True
    log = tmp_path / "dict.log"
    log.write_text(f"[2026-12-01 09:20:00] server_args={values!r}\n")
    as_repr = run(capsys, entry)
    as_dict = run(capsys, {**entry, "file": str(log)})
    assert as_dict["agrees"] and as_dict["differences"] == [] and not as_dict["truncated"]
    assert as_dict["compared"] == as_repr["compared"] - 1  # the report is not compared
    assert as_dict["agrees_if_passed_explicitly"] == as_repr["agrees_if_passed_explicitly"]
    assert as_dict["log"]["line"] == 1 and as_dict["unknown_fields"] == []


def test_an_older_log_s_attention_dp_is_read_as_attn_dp_size(capsys):
    """Before 0.5.22 attention DP was logged as dp_size 4 with enable_dp_attention True
    (sglang#25118, DeepSeek-V4-Flash on MI300X): it is read as 0.5.23's attn_dp_size 4, so
    the launch planned is the one the log ran; the chunk attention DP divided (2048) is given
    as the user's 8192, and --disable-cuda-graph with the mem_fraction_static it moves."""
    entry = next(e for e in SOURCES if e["file"].startswith("issue25118"))
    data = run(capsys, entry)
    assert data["respelled"] and "attn_dp_size 4" in data["respelled"][0]
    explicit = {d["field"]: d for d in data["agrees_if_passed_explicitly"]}
    assert explicit["attn_dp_size"]["logged"] == 4 and "dp_size" not in explicit
    assert explicit["chunked_prefill_size"]["logged"] == 2048
    assert explicit["chunked_prefill_size"]["given"] == 8192
    assert data["inputs"]["chunked_prefill_size"] == 8192
    assert {"disable_cuda_graph", "mem_fraction_static"} <= set(explicit)
    # schedule_conservativeness 0.3 is attention DP's, planned without being given
    assert "schedule_conservativeness" not in explicit
    assert [d["field"] for d in data["differences"]] == ["attention_backend"]


def _plan(capsys, *argv):
    assert main(["resolve", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_value_given_before_attention_dp_is_given_again_unscaled(capsys, tmp_path):
    """Attention DP scales the chunk and the conservativeness even when given: a log whose
    chunk and mem_fraction_static are explained first (each as logged) is still read as the
    attention-DP launch it ran, the chunk then given as the value before the division."""
    values = _plan(capsys, "--gpu", "h100", "--model-path", "llama-3.1-8b", "--tp", "2",
                   "--attn-dp-size", "2", "--chunked-prefill-size", "128",
                   "--mem-fraction-static", "0.828")["resolved"]
    assert values["chunked_prefill_size"] == 64 and values["schedule_conservativeness"] == 0.3
    del values["attn_dp_size"]  # as a release before 0.5.22 logs attention DP
    values.update(dp_size=2, enable_dp_attention=True)
    log = tmp_path / "old.log"
    log.write_text(f"[2025-12-01 00:00:00] server_args={values!r}\n")
    data = _plan(capsys, "--from-log", str(log), "--gpu", "h100", "--model-path", "llama-3.1-8b")
    assert data["differences"] == [], data["differences"]
    explicit = {d["field"]: d for d in data["agrees_if_passed_explicitly"]}
    assert explicit["attn_dp_size"]["logged"] == 2
    assert explicit["chunked_prefill_size"]["given"] == 128
    # listed once, with the plan as first made (no attention DP): the default 8192
    assert [d["field"] for d in data["agrees_if_passed_explicitly"]].count(
        "chunked_prefill_size") == 1
    assert explicit["chunked_prefill_size"]["planned"] == 8192
    assert data["inputs"]["chunked_prefill_size"] == 128
    # 0.3 is attention DP's from the default 1.0: not given
    assert "schedule_conservativeness" not in explicit
    assert "schedule_conservativeness" not in data["inputs"]


def test_an_older_attention_dp_log_on_b200_plans_its_weights(capsys):
    """DeepSeek-V3.2 at attention DP 4 on 4 x B200 (December 2025): read as that launch,
    the attention weights are replicated and the weights agree within 1%."""
    entry = next(e for e in SOURCES if e["file"].startswith("attnrepro-deepseek-v3.2"))
    data = run(capsys, entry)
    explicit = {d["field"]: d for d in data["agrees_if_passed_explicitly"]}
    assert explicit["attn_dp_size"]["logged"] == 4
    assert explicit["chunked_prefill_size"]["given"] == 512
    weights = next(m for m in data["memory"] if m["figure"] == "weights as loaded")
    assert abs(weights["error"]) < 0.01
    made = next(m for m in data["memory"] if m["figure"] == "KV pool made")
    assert made["logged"] is False and made["planned"] is False  # both out of memory


def test_a_log_that_ran_out_of_memory_is_planned_out_of_memory_too(capsys):
    """Qwen3-VL-32B on an H100 at mem_fraction_static 0.772 (April 2026): SGLang loaded the
    weights and stopped with "Not enough memory"; the plan of the same launch makes no pool
    either, from the target's free memory and from the log's."""
    entry = next(e for e in SOURCES if e["file"].endswith("not-enough-memory.log"))
    rows = {m["figure"]: m for m in run(capsys, entry)["memory"]}
    made = rows["KV pool made"]
    assert made["logged"] is False and made["planned"] is False
    assert made["planned_from_logged_free_memory"] is False and made["error"] is None
    assert abs(rows["weights as loaded"]["error"]) < 0.01


def test_a_log_with_attn_dp_size_is_not_respelled(capsys):
    entry = next(e for e in SOURCES if e["file"] == "oracle-h100-llama-3.1-8b-attn-dp.log")
    assert run(capsys, entry)["respelled"] == []


def test_a_recent_log_compares_its_cuda_graph_config(capsys, tmp_path):
    """0.5.19 and later log the CUDA-graph settings as CudaGraphConfig(decode=PhaseConfig(...),
    ...): read as a mapping, compared; a decode max_bs changed by hand is a difference."""
    entry = next(e for e in SOURCES if e["file"].startswith("vllm-hybrid"))
    data = run(capsys, entry)
    assert "cuda_graph_config" not in data["unreadable_fields"] and data["agrees"]
    decode = "decode=PhaseConfig(backend='full', max_bs="
    text = (DATA / entry["file"]).read_text().replace(decode + "256,", decode + "96,")
    log = tmp_path / "edited.log"
    log.write_text(text)
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100", "--model-path",
                 entry["model"], "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["field"] for d in data["differences"]] == ["cuda_graph_config"]


def test_values_given_together_explain_what_neither_does_alone(capsys):
    """An explicit --max-running-requests and --disable-cuda-graph each move
    mem_fraction_static: alone each trades one difference for another, together they
    explain both (the docs CI's launch helper passes both)."""
    entry = next(e for e in SOURCES if e["file"] == "docs-2026-03-offline-engine-qwen2.5-0.5b.log")
    data = run(capsys, entry)
    assert data["agrees"]
    assert {"max_running_requests", "disable_cuda_graph"} <= {
        d["field"] for d in data["agrees_if_passed_explicitly"]}


def test_a_rule_s_sibling_outputs_are_given_with_a_value_it_would_refuse_alone(capsys):
    """--speculative-eagle-topk 8 alone is refused (it needs --speculative-num-steps given,
    which the log shows at its auto value 5): tried again with the steps, it agrees."""
    entry = next(e for e in SOURCES if e["file"] == "docs-2025-08-eagle3-llama-3.1-8b.log")
    data = run(capsys, entry)
    explicit = {d["field"]: d for d in data["agrees_if_passed_explicitly"]}
    assert explicit["speculative_eagle_topk"]["logged"] == 8
    assert explicit["speculative_eagle_topk"]["rule"] == "eagle_auto_params"
    assert data["inputs"]["speculative_num_steps"] == 5


def test_fields_0_5_23_does_not_have_are_reported(capsys):
    entry = next(e for e in SOURCES if e["file"].startswith("issue7883"))
    data = run(capsys, entry)
    assert {"impl", "hybrid_kvcache_ratio"} <= set(data["unknown_fields"])
    # the value wrapped across two lines was read and compared (it agrees)
    assert data["truncated"] and all(d["field"] != "chunked_prefill_size"
                                     for d in data["differences"])


def test_an_older_default_is_named_with_the_rule_that_decides_it_now(capsys):
    entry = next(e for e in SOURCES if e["file"].startswith("docs-lora"))
    data = run(capsys, entry)
    explicit = {d["field"]: d for d in data["agrees_if_passed_explicitly"]}
    assert explicit["mem_fraction_static"]["logged"] == 0.841
    assert explicit["mem_fraction_static"]["rule"] == "mem_fraction_default"
    assert "lora_paths" in data["unreadable_fields"]
    assert "cuda_graph_max_bs" in data["unknown_fields"]


def test_table_output_says_agreement(capsys):
    entry = next(e for e in SOURCES if e["file"] == "oracle-b200-deepseek-v3-tp8.log")
    code = main(["resolve", "--from-log", str(DATA / entry["file"]), "--gpu", "b200",
                 "--model-path", "deepseek-v3"])
    out, _ = capsys.readouterr()
    assert code == 0 and "differences: none" in out


def test_a_logged_model_that_is_not_here_asks_for_model_path(capsys, tmp_path):
    log = tmp_path / "x.log"
    log.write_text("server_args=ServerArgs(model_path='/nowhere/model', tp_size=1)\n")
    code = main(["resolve", "--from-log", str(log), "--gpu", "h100"])
    _, err = capsys.readouterr()
    assert code == 2 and "--model-path" in err and err.count("\n") == 1


def test_a_file_without_the_line_is_one_line_of_bad_input(capsys, tmp_path):
    log = tmp_path / "x.log"
    log.write_text("nothing\n")
    code = main(["resolve", "--from-log", str(log), "--gpu", "h100"])
    _, err = capsys.readouterr()
    assert code == 2 and "ServerArgs" in err


def test_a_refused_logged_launch_is_one_line_and_valid_json(capsys, tmp_path):
    log = tmp_path / "x.log"
    log.write_text("server_args=ServerArgs(model_path='m', tp_size=1)\n")
    # a flag given with the log wins over it: trtllm_mha is refused on an A100
    code = main(["resolve", "--from-log", str(log), "--gpu", "a100", "--model-path",
                 "llama-3.1-8b", "--attention-backend", "trtllm_mha", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 3 and err.count("\n") == 1
    assert json.loads(out)["error"]["source"]


def test_explain_reads_the_same_launch_from_the_log(capsys):
    entry = next(e for e in SOURCES if e["file"] == "oracle-h100-llama-3.1-8b-attn-dp.log")
    code = main(["explain", "chunked_prefill_size", "--from-log", str(DATA / entry["file"]),
                 "--gpu", "h100", "--model-path", "llama-3.1-8b", "--format", "json"])
    out, _ = capsys.readouterr()
    data = json.loads(out)
    # the divided chunk the log shows, with the rule that divided it
    assert code == 0 and data["resolved"] == 4096
    assert [s["source"] for s in data["steps"]][-1] == "attention_dp_adjustments"


def test_a_log_with_memory_lines_gets_the_plan_beside_them(capsys):
    entry = next(e for e in SOURCES if e["file"] == "docs-2025-01-23-llama-3.1-8b.log")
    rows = {r["figure"]: r for r in run(capsys, entry)["memory"]}
    assert set(rows) == {"free before loading", "weights as loaded", "max_total_num_tokens",
                         "max_running_requests", "context_len"}
    tokens = rows["max_total_num_tokens"]
    assert tokens["logged"] == 444500  # the log's own figure, read back
    # planned twice: with the target's assumption and with the log's 78.81 GiB
    assert tokens["planned"] != tokens["planned_from_logged_free_memory"]
    for key in ("error", "error_from_logged_free_memory"):
        assert abs(tokens[key]) < 0.10
        assert tokens[key] == pytest.approx(
            (tokens[key.replace("error", "planned")] - 444500) / 444500, abs=1e-4)
    weights = rows["weights as loaded"]  # this release logged no usage: before minus after
    assert weights["logged"] == pytest.approx(78.81 - 63.72) and weights["unit"] == "GiB"
    assert rows["context_len"]["planned"] == 131072


def test_the_table_shows_the_memory_figures(capsys):
    entry = next(e for e in SOURCES if e["file"] == "docs-2025-01-23-llama-3.1-8b.log")
    assert main(["resolve", "--from-log", str(DATA / entry["file"]), "--gpu", "h100",
                 "--model-path", "llama-3.1-8b"]) == 0
    out = capsys.readouterr().out
    assert "memory per GPU" in out and "444,500" in out and "78.81 GiB" in out


def test_a_log_without_memory_lines_has_no_memory_rows(capsys):
    entry = next(e for e in SOURCES if e["file"] == "oracle-h100-llama-3.1-8b.log")
    assert run(capsys, entry)["memory"] == []


def test_a_log_piped_on_standard_input_is_read(capsys, monkeypatch):
    import io

    text = (DATA / "docs-2025-01-23-llama-3.1-8b.log").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    assert main(["resolve", "--from-log", "-", "--gpu", "h100", "--model-path",
                 "llama-3.1-8b", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["log"]["path"] == "-" and data["memory"][2]["logged"] == 444500


def test_a_log_cut_down_to_its_memory_lines_plans_the_flags_given(capsys, tmp_path):
    log = tmp_path / "memory.log"
    # PR #4760's lines (2025): no server_args line, so the launch is the flags given
    log.write_text("[2025-03-25 16:37:06 TP0] Load weight end. type=LlamaForCausalLM, "
                   "dtype=torch.bfloat16, avail mem=63.48 GB, mem usage=15.11 GB.\n"
                   "[2025-03-25 16:37:06 TP0] KV Cache is allocated. #tokens: 442750, "
                   "K size: 27.02 GB, V size: 27.02 GB\n")
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100", "--model-path",
                 "llama-3.1-8b", "--mem-fraction-static", "0.88", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["log"]["line"] is None and data["compared"] == 0
    rows = {r["figure"]: r for r in data["memory"]}
    assert rows["max_total_num_tokens"]["logged"] == 442750
    assert abs(rows["max_total_num_tokens"]["error_from_logged_free_memory"]) < 0.02
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100"]) == 2
    err = capsys.readouterr().err
    assert "--model-path" in err and "server_args" in err and len(err.splitlines()) == 1


def test_a_memory_only_log_is_planned_with_the_launch_command_it_shows(capsys, tmp_path):
    # the shape of a 2026 note (Qwen3.5-9B on two RTX 4090s): the command, then the key
    # lines; without it the plan was one GPU at the defaults, "+100% weights, no KV pool"
    log = tmp_path / "memory.log"
    head = ("CUDA_VISIBLE_DEVICES=0,2 python -m sglang.launch_server --model-path llama-3.1-8b "
            "--tp-size 2 --mem-fraction-static 0.8\n")
    lines = ("[2025-03-25 16:37:06 TP0] Load weight end. type=LlamaForCausalLM, "
             "dtype=torch.bfloat16, avail mem=70.11 GB, mem usage=7.56 GB.\n")
    log.write_text(head + lines)
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"]["tp_size"] == 2 and data["inputs"]["mem_fraction_static"] == 0.8
    assert any("no server_args line" in n and "(line 1)" in n for n in data["notes"])
    rows = {r["figure"]: r for r in data["memory"]}
    assert abs(rows["weights as loaded"]["error"]) < 0.05  # half the model a GPU, as logged
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100", "--tp-size", "1",
                 "--format", "json"]) == 0  # a flag given here still wins over the command
    assert json.loads(capsys.readouterr().out)["inputs"]["tp_size"] == 1
    log.write_text(lines)  # no command: the flags given alone, as before
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100"]) == 2


def test_a_log_of_an_older_release_names_it_and_agrees_under_its_rules(capsys):
    entry = next(e for e in SOURCES if e["file"] == "oracle-0.5.22-h100-llama-3.1-8b-tp2.log")
    data = run(capsys, entry)  # the default rules: 0.5.23's fields
    assert data["release_hint"] == "0.5.22" and data["release"] == "0.5.23"
    assert data["unknown_fields"] == ["speculative_skip_dp_mlp_sync"]
    data = run(capsys, entry, "--compat", "0.5.22")  # its own release: every field known
    assert data["release"] == "0.5.22" and data["unknown_fields"] == []
    assert data["agrees"] and data["agrees_if_passed_explicitly"] == []
    assert data["compared"] > 400 and data["release_hint"] is None


@pytest.mark.parametrize("named", ["sglang: 0.5.22", "SGLang Version 0.5.22",
                                   "docker run --gpus all lmsysorg/sglang:v0.5.22-cu129 bash"])
def test_a_log_that_names_its_release_is_planned_with_that_release(capsys, tmp_path, named):
    """An issue's environment report, the image a container ran or NVIDIA's container
    banner above the log names the release; without --compat, its rules plan the log."""
    entry = next(e for e in SOURCES if e["file"] == "oracle-0.5.22-h100-llama-3.1-8b-tp2.log")
    log = tmp_path / "issue.log"
    log.write_text(f"{named}\n" + (DATA / entry["file"]).read_text())
    data = run(capsys, {**entry, "file": str(log)})
    assert data["release"] == "0.5.22" and data["unknown_fields"] == []
    assert data["agrees"] and any(n.startswith("--compat 0.5.22: the log names")
                                  for n in data["notes"])
    data = run(capsys, {**entry, "file": str(log)}, "--compat", "0.5.23")  # --compat wins
    assert data["release"] == "0.5.23"


@pytest.mark.parametrize(("named", "why"), [
    ("SGLang Version 0.5.11+05fb6a52", "older than the releases launchplan models"),
    ("sglang: 0.5.21", "but it logs fields that release does not have"),
    ("sglang: 0.6.0", "a release or build launchplan does not model")])
def test_a_log_naming_a_release_its_fields_do_not_fit_keeps_the_default_rules(
        capsys, tmp_path, named, why):
    """A release launchplan does not model, or one without the logged fields (a build
    past its tag), keeps the default rules, and the note says why."""
    entry = next(e for e in SOURCES if e["file"] == "oracle-h100-llama-3.1-8b.log")
    log = tmp_path / "issue.log"
    log.write_text(f"{named}\n" + (DATA / entry["file"]).read_text())
    data = run(capsys, {**entry, "file": str(log)})
    assert data["release"] == "0.5.23"
    assert any(why in n for n in data["notes"]), data["notes"]


def test_a_log_naming_two_releases_names_none(capsys, tmp_path):
    entry = next(e for e in SOURCES if e["file"] == "oracle-0.5.22-h100-llama-3.1-8b-tp2.log")
    log = tmp_path / "issue.log"
    log.write_text("sglang: 0.5.22\npip install sglang==0.5.23\n"
                   + (DATA / entry["file"]).read_text())
    data = run(capsys, {**entry, "file": str(log)})
    assert data["release"] == "0.5.23" and not any("names SGLang" in n or "log names" in n
                                                  for n in data["notes"])


def test_a_logged_hub_cache_path_is_planned_as_the_bundled_model_it_names(capsys, tmp_path):
    """A log's model path is the poster's Hugging Face cache snapshot; the line is that of
    sgl-project/sglang#7883 (Qwen3-8B, cut off as posted)."""
    snapshot = ("/home/u/hf/models--Qwen--Qwen3-8B/snapshots/"
                "2069b3fae1114555f3c020c81410e51fa0f656f2")
    log = tmp_path / "server.log"
    log.write_text(f"[2025-07-09 11:52:19] server_args=ServerArgs(model_path='{snapshot}', "
                   f"tokenizer_path='{snapshot}', dtype='auto', kv_cache_dtype='auto', "
                   "mem_fraction_static=0.874, chunked_prefill_size=8192, page_size=1, "
                   "tp_size=1, pp_size=1, random_seed=514484705, constrained_json_whi\n")
    code = main(["resolve", "--from-log", str(log), "--gpu", "h100"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "planned with the bundled model qwen3-8b" in out


def test_a_recent_real_log_s_pool_is_planned_within_a_percent(capsys):
    """Qwen3-30B-A3B-FP8 on an H100 (August 2026): weights and the KV pool as logged."""
    entry = next(e for e in SOURCES if e["file"].startswith("vllm-hybrid"))
    rows = {r["figure"]: r for r in run(capsys, entry)["memory"]}
    assert abs(rows["weights as loaded"]["error"]) < 0.01
    tokens = rows["max_total_num_tokens"]
    assert tokens["logged"] == 392920 and abs(tokens["error_from_logged_free_memory"]) < 0.01


@pytest.mark.parametrize("name", ["amdissues-glm-5-fp8-mi355x.log",
                                  "amdissues-kimi-k2.5-mi355x.log"])
def test_an_amd_log_s_pool_is_planned_within_half_a_percent(capsys, name):
    """8xMI355X (ajith-sirra-amd/Issues, 2026-02, ROCm images): the weights as loaded
    within 1% and the KV pool, planned from the log's own free memory, within 0.5%."""
    entry = next(e for e in SOURCES if e["file"] == name)
    rows = {r["figure"]: r for r in run(capsys, entry)["memory"]}
    assert abs(rows["weights as loaded"]["error"]) < 0.01
    assert abs(rows["max_total_num_tokens"]["error_from_logged_free_memory"]) < 0.005


@pytest.mark.parametrize(("name", "tokens"), [("llms-in-clouds-qwq-32b-4xl4.log", 46611),
                                              ("issue12726-qwen3-4b-lora-ngram.log", 421472)])
def test_pools_of_this_round_s_logs_are_planned_within_a_percent(capsys, name, tokens):
    """QwQ-32B at TP4 on 4 x L4 (0.4.3.post4) and Qwen3-4B on an assumed H100 (0.5.4.post3):
    the pool planned with the target's assumption within 1% of the logged one."""
    entry = next(e for e in SOURCES if e["file"] == name)
    rows = {r["figure"]: r for r in run(capsys, entry)["memory"]}
    assert rows["max_total_num_tokens"]["logged"] == tokens
    assert abs(rows["max_total_num_tokens"]["error"]) < 0.01
    if "weights as loaded" in rows:
        assert abs(rows["weights as loaded"]["error"]) < 0.01


@pytest.mark.parametrize(("name", "tokens"), [
    ("pr12978-qwen3-30b-a3b-fp8-tp2-h20.log", 1443316),
    ("pr11716-llama-3.3-70b-tp8-h200.log", 2795207),
    ("sglang-perf-test-qwen3-14b-tp4-4xrtx4090.log", 298447)])
def test_memory_line_logs_are_planned_within_a_percent(capsys, name, tokens):
    """Logs cut down to their memory lines (no server_args line; the launch is the flags
    their source gives): Qwen3-30B-A3B-FP8 at TP2 on two H20, Llama-3.3-70B at TP8 on eight
    H200 and Qwen3-14B at TP4 on four RTX 4090 (whose author cut the server_args line down
    to 'server_args ... tp_size=4 ... mem_fraction_static=0.8 ...': those fields are read
    and compared), the pool within 1% both from the target's assumption and from the
    logged free memory before loading."""
    entry = next(e for e in SOURCES if e["file"] == name)
    data = run(capsys, entry)
    abridged = name.startswith("sglang-perf-test")
    assert (data["log"]["line"] is None) != abridged
    assert (data["compared"] == 0) != abridged
    rows = {r["figure"]: r for r in data["memory"]}
    pool = rows["max_total_num_tokens"]
    assert pool["logged"] == tokens and abs(pool["error"]) < 0.01
    assert abs(pool["error_from_logged_free_memory"]) < 0.01


def test_a_log_refused_by_the_kv_cache_configurator_is_read_as_no_pool(capsys):
    """DeepSeek-V4-Pro at TP8 on 8 x H200 (InferenceX#2128): the image's weights left the
    0.88 budget no room and SGLang refused ("Loaded weights leave no GPU memory for the KV
    cache"), read as no KV pool made, beside the plan's answer."""
    entry = next(e for e in SOURCES if e["file"].startswith("inferencex2128"))
    rows = {r["figure"]: r for r in run(capsys, entry)["memory"]}
    assert rows["KV pool made"]["logged"] is False
    assert rows["weights as loaded"]["logged"] == 125.65


def test_a_logged_feature_the_plan_left_unset_is_given_though_it_moves_what_the_log_left_unset(
        capsys):
    """Llama-2-7B with EAGLE in SGLang's docs build of February 2025: no rule turns on a
    speculative algorithm by itself, so the logged EAGLE was the user's. Given, it moves
    max_running_requests (0.5.23's 48 for the EAGLE family, which the release left unset),
    a trade of one difference for another; the plan must still be made with EAGLE (its draft
    and the draft's pool), the moved value left as the release's difference."""
    entry = next(e for e in SOURCES if e["file"].startswith("docs-2025-02-eagle"))
    data = run(capsys, entry)
    assert "speculative_algorithm" in [d["field"] for d in data["agrees_if_passed_explicitly"]]
    assert [d["field"] for d in data["differences"]] == ["max_running_requests"]
    assert data["inputs"]["speculative_algorithm"] == "EAGLE"


def test_the_gpu_a_log_names_picks_the_target_when_gpu_is_not_given(capsys, monkeypatch):
    import io

    # a tuned-kernel config file SGLang loads or misses names the device as CUDA reports it
    log = (DATA / "docs-2025-09-native-api-qwen1.5-moe-a2.7b.log").read_bytes()
    assert b"device_name=NVIDIA_H100_80GB_HBM3" in log
    model = "tests/parity/models/qwen1.5-moe-a2.7b"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(log)))  # read once
    assert main(["resolve", "--from-log", "-", "--model-path", model, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["notes"][-1] == ("--gpu h100: the log names its GPU (NVIDIA H100 80GB HBM3); "
                                 "give --gpu to plan on another")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(log)))
    assert main(["explain", "attention_backend", "--from-log", "-", "--model-path", model,
                 "--format", "json"]) == 0
    # the backend the log says that build chose (0.5.23's Hopper default is fa3): the logged
    # launch is explained, its older default given as it ran
    assert json.loads(capsys.readouterr().out)["resolved"] == "flashinfer"
    # --gpu names another: planned there, and the report says where the log ran
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(log)))
    assert main(["resolve", "--from-log", "-", "--model-path", model, "--gpu", "b200"]) == 0
    assert "the log ran on NVIDIA H100 80GB HBM3 (h100); planned on --gpu b200" in \
        capsys.readouterr().out


def test_a_log_naming_no_known_gpu_asks_for_gpu_saying_what_it_names(capsys, tmp_path):
    line = "server_args=ServerArgs(model_path='llama-3.1-8b', tp_size=1)\n"
    moe = ("Config file not found at /x/E=256,N=256,device_name=NVIDIA_H20-3e,dtype=fp8_w8a8,"
           "block_shape=[128, 128].json\n")
    for text, said in ((line, "the log names no GPU"),
                       (line + moe, "the log ran on NVIDIA H20-3e, which no target describes"),
                       (line + moe + "GPU 0,1: NVIDIA H200\n",
                        "the log names several GPUs: NVIDIA H20-3e, NVIDIA H200")):
        log = tmp_path / "x.log"
        log.write_text(text)
        assert main(["resolve", "--from-log", str(log)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("launchplan: --gpu: required (") and said in err
        assert err.count("\n") == 1
    # sglang.check_env's GPU line pasted beside the log names the device too
    log.write_text(line + "GPU 0,1,2,3,4,5,6,7: NVIDIA H200\n")
    assert main(["resolve", "--from-log", str(log), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"][0].startswith("--gpu h200:")


def test_a_log_naming_no_gpu_but_its_memory_total_names_the_closest_targets(capsys, tmp_path):
    # GB10: nvidia-smi has no memory total, so SGLang prints torch's and names no device
    log = tmp_path / "x.log"
    log.write_text("[2026-08-01 23:37:38] Failed to get GPU memory capacity from nvidia-smi. "
                   "Falling back to torch.cuda.mem_get_info(). Reported total GPU memory per "
                   "device (MiB): [124546], using min: 124546 MiB.\n"
                   "server_args=ServerArgs(model_path='llama-3.1-8b', tp_size=1)\n")
    assert main(["resolve", "--from-log", str(log)]) == 2
    err = capsys.readouterr().err
    assert "124,546 MiB per GPU, closest to gb10 (122,548 MiB)" in err
    assert "--gpu gb10 --gpu-memory-mib 124546" in err and err.count("\n") == 1
    assert main(["resolve", "--from-log", str(log), "--gpu", "gb10", "--gpu-memory-mib",
                 "124546"]) == 0
    log.write_text(log.read_text().replace("124546", "7"))  # no target that small: as before
    assert main(["resolve", "--from-log", str(log)]) == 2
    assert "the closest with --gpu-memory-mib" in capsys.readouterr().err


def test_a_log_from_a_device_launchplan_has_no_target_for_says_so(capsys, tmp_path):
    """A log of a launch on another device (an Ascend NPU's device='npu', as sglang#29853 posts
    one) is planned on the GPU given, as any log is; the report now says the log ran elsewhere,
    in the table and in the JSON, where before it read as plain agreement."""
    from launchplan.input.server_log import parse_log

    entry = next(e for e in SOURCES if e["file"] == "oracle-h100-llama-3.1-8b-attn-dp.log")
    values = parse_log((DATA / entry["file"]).read_text()).values
    quiet = run(capsys, entry)
    assert not any("device" in note for note in quiet["notes"])
    values["device"] = "npu"
    log = tmp_path / "npu.log"
    log.write_text(f"[2026-12-01 09:20:00] server_args={values!r}\n")
    report = run(capsys, {**entry, "file": str(log)})
    assert any("device 'npu'" in note and "not on the log's hardware" in note
               for note in report["notes"])


def test_a_location_named_field_the_plan_reads_is_taken_as_input(capsys, tmp_path):
    """A field named like a location is compared by no one, but when a rule or the memory
    plan reads it, the logged value is input all the same: KTransformers' --kt-weight-path
    puts the routed experts on the CPU (the log's 2.14 GB of weights, not the checkpoint's
    29 GiB), and some such names hold no location at all (an int, a bool)."""
    entry = next(e for e in SOURCES if e["file"].startswith("vllm-hybrid-qwen3-30b-a3b-fp8-kt"))
    data = run(capsys, entry)
    assert data["inputs"]["kt_weight_path"] == "/models/kt/qwen3-30b-a3b-int8"
    weights = next(r for r in data["memory"] if r["figure"] == "weights as loaded")
    assert abs(weights["planned"] / weights["logged"] - 1) < 0.03
    log = tmp_path / "x.log"
    log.write_text("server_args=ServerArgs(model_path='qwen3-8b', mamba_max_states_per_path=4, "
                   "export_metrics_to_file=True, served_model_name='x', port=1234, "
                   "tokenizer_path='/elsewhere', random_seed=7)\n")
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100", "--format", "json"]) == 0
    inputs = json.loads(capsys.readouterr().out)["inputs"]
    assert inputs["mamba_max_states_per_path"] == 4 and inputs["export_metrics_to_file"] is True
    assert not {"served_model_name", "port", "tokenizer_path", "random_seed"} & set(inputs)


def test_a_ktransformers_launch_keeps_the_fused_shared_expert_off_the_gpu(capsys):
    """DeepSeek-R1 fuses its shared expert into the MoE as the last expert id; with every
    routed expert on the CPU (--kt-num-gpu-experts 0) KTransformers takes it too, so a GPU
    holds attention and the dense layers only (the log's 3.23 GB a rank at TP8)."""
    entry = next(e for e in SOURCES if e["file"].startswith("vllm-hybrid-deepseek-r1-0528-kt"))
    rows = {r["figure"]: r for r in run(capsys, entry)["memory"]}
    weights = rows["weights as loaded"]
    assert abs(weights["planned"] / weights["logged"] - 1) < 0.02


def test_a_logged_value_a_rule_replaces_even_when_given_is_named(capsys):
    """An older release kept the user's value where 0.5.23 rescales even an explicit one
    (aiter's workspace scaling of mem_fraction_static on ROCm, a 0.4.6 MI308X log): beside
    the difference, the report says what the logged value becomes when given and which rule
    makes it so, and nothing once the release's backend is given too."""
    entry = next(e for e in SOURCES if e["file"].startswith("issue6001"))
    data = run(capsys, entry)
    logged = {d["field"]: d["logged"] for d in data["differences"]}
    how = data["overridden_if_given"]["mem_fraction_static"]
    assert how["rule"] == "aiter_memory_scaling"
    assert how["value"] == pytest.approx(logged["mem_fraction_static"] * 0.85)
    assert "mem_fraction_static" not in data["refused_if_given"]
    again = run(capsys, entry, "--attention-backend", "triton")
    assert again["agrees"] and again["overridden_if_given"] == {}
    main(["resolve", "--from-log", str(DATA / entry["file"]), "--gpu", entry["gpu"],
          "--model-path", model_path(entry), *entry["flags"]])
    assert "still replaced by 0.5.23's aiter_memory_scaling with 0.595" in " ".join(
        capsys.readouterr().out.split())


def test_a_cut_off_line_takes_what_it_lost_from_the_command_the_log_shows(capsys):
    """The pull request's paste ends its server_args line before tp_size: the launch command
    two lines up (``--tp 2 --pp-size=2``) says what they were, so the plan splits the model
    as the log's server did, and says where the values came from. A flag given here wins."""
    entry = next(e for e in SOURCES if e["file"].startswith("pr13075"))
    data = run(capsys, entry)
    assert data["truncated"] and data["inputs"]["tp_size"] == 2
    assert data["inputs"]["pp_size"] == 2
    assert any("taken from the launch command the log shows (line 2)" in n
               for n in data["notes"])
    again = run(capsys, entry, "--tp-size", "4")
    assert again["inputs"]["tp_size"] == 4 and again["inputs"]["pp_size"] == 2


def test_a_whole_line_takes_nothing_from_the_command_before_it(capsys, tmp_path):
    """A whole server_args line is the launch as SGLang resolved it: a command printed
    above it (perhaps another launch's) adds nothing."""
    entry = next(e for e in SOURCES if e["file"] == "oracle-h100-llama-3.1-8b-attn-dp.log")
    log = tmp_path / "with-command.log"
    log.write_text("$ python -m sglang.launch_server --model-path m --pp-size 4\n"
                   + (DATA / entry["file"]).read_text())
    data = run(capsys, {**entry, "file": str(log)})
    assert data["agrees"] and data["inputs"].get("pp_size") is None
    assert not any("launch command" in n for n in data["notes"])


def test_a_command_this_release_cannot_read_is_named_not_used(capsys, tmp_path):
    """A cut-off line above which the log shows a command with a flag 0.5.23 lacks: nothing
    is taken from it, and the notes say why the fields after the cut stay unset."""
    entry = next(e for e in SOURCES if e["file"].startswith("pr13075"))
    text = (DATA / entry["file"]).read_text().replace("--pp-size=2", "--pp-size=2 --no-such 1")
    log = tmp_path / "odd-command.log"
    log.write_text(text)
    data = run(capsys, {**entry, "file": str(log)})
    assert "tp_size" not in data["inputs"] and "pp_size" not in data["inputs"]
    assert any("does not read as this release's" in n and "--no-such" in n
               for n in data["notes"])


# GLM-4.7-Flash in BF16 on an RTX 5090 (a mid-2026 bake-off's load-failure notes, the
# poster's "key lines" as posted): loading filled the 32 GB card, so the logged usage is what
# the card held, not what the weights need.
FULL_CARD_LOG = (
    "server_args=ServerArgs(model_path='zai-org/GLM-4.7-Flash', ... context_length=32768, "
    "mem_fraction_static=0.85, ... reasoning_parser='glm45', tool_call_parser='glm47')\n"
    "Load weight begin. avail mem=30.06 GB\n"
    "Load weight end. elapsed=269.29 s, type=Glm4MoeLiteForCausalLM, avail mem={after} GB, "
    "mem usage={usage} GB.\n"
    "ValueError: Loaded weights leave no GPU memory for the KV cache under "
    "--mem-fraction-static=0.85.\n")


def _full_card(capsys, tmp_path, *extra, after="0.00", usage="30.06"):
    log = tmp_path / "glm.log"
    log.write_text(FULL_CARD_LOG.format(after=after, usage=usage))
    code = main(["resolve", "--from-log", str(log), "--gpu", "rtx5090", "--model-path",
                 str(ROOT / "tests" / "parity" / "models" / "glm-4.7-flash"), *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_weights_logged_on_a_full_card_are_a_lower_bound_not_an_error(capsys, tmp_path):
    """Nothing free after loading: the logged usage is capped by the card, so the plan's
    56 GiB is not "+87.5%" wrong; the row says the card was full and states no error."""
    data = json.loads(_full_card(capsys, tmp_path, "--format", "json"))
    rows = {r["figure"]: r for r in data["memory"]}
    weights = rows["weights as loaded"]
    assert weights["logged"] == 30.06 and weights["planned"] > 50
    assert weights["error"] is None  # not +87.5%: the card, not the plan, set the figure
    assert weights["logged_is_lower_bound"] is True
    assert "GPU was full after loading" in weights["note"] and "lower bound" in weights["note"]
    assert "exceed" in weights["note"]
    free = rows["free before loading"]  # the other rows are read as before
    assert free["logged_is_lower_bound"] is False and free["note"] is None
    assert free["error"] is not None
    for fmt in ("table", "markdown"):
        out = " ".join(_full_card(capsys, tmp_path, "--format", fmt).split())
        assert "weights as loaded >=30.06 GiB" in out and "+87.5%" not in out
        assert "GPU full" in out and "the GPU was full after loading (0.00 GiB free)" in out


def test_weights_logged_with_memory_left_are_compared_as_before(capsys, tmp_path):
    """The same lines with memory left after loading: the usage is what the weights took,
    compared with a relative error and no note."""
    data = json.loads(_full_card(capsys, tmp_path, "--format", "json", after="2.00"))
    weights = next(r for r in data["memory"] if r["figure"] == "weights as loaded")
    assert weights["logged_is_lower_bound"] is False and weights["note"] is None
    assert weights["error"] == pytest.approx((weights["planned"] - 30.06) / 30.06, abs=1e-4)


def test_a_plan_under_what_a_full_card_held_is_under_by_at_least_the_error():
    """A full card's figure is a floor: a plan below it is wrong by at least that much, and
    says so; a plan above it states no error."""
    from types import SimpleNamespace

    from launchplan.checks.log_memory import memory_rows
    from launchplan.input.server_log import LoggedMemory

    def weights(planned_gib: float) -> object:
        plan = SimpleNamespace(weights_bytes=int(planned_gib * (1 << 30)),
                               draft_weights_bytes=0, before_load_bytes=30 << 30, fits=False)
        logged = LoggedMemory(before_load_gib=30.0, after_load_gib=0.0, weights_gib=30.0)
        target = SimpleNamespace(load_overhead_mib=0)
        return next(r for r in memory_rows(logged, plan, None, target)
                    if r.figure == "weights as loaded")

    under = weights(24.0)
    assert under.lower_bound and under.error(under.planned) == pytest.approx(-0.2)
    assert "under it, by at least 20.0%" in under.note
    over = weights(40.0)
    assert over.lower_bound and over.error(over.planned) is None
    assert over.to_dict()["error"] is None


def test_a_logged_draft_path_that_is_the_model_path_follows_model_path(capsys, tmp_path):
    """A DSpark draft sharing the target's checkpoint is logged with the model's own path (on
    the poster's machine). --model-path replaces the model, and the draft with it: the logged
    DSPARK is then planned (not refused for want of a draft), with a note."""
    log = tmp_path / "dspark.log"
    log.write_text("server_args=ServerArgs(model_path='/models/DeepSeek-V4.1-Flash/', "
                   "tokenizer_path='/models/DeepSeek-V4.1-Flash', tp_size=1, "
                   "speculative_algorithm='DSPARK', "
                   "speculative_draft_model_path='/models/DeepSeek-V4.1-Flash', "
                   "speculative_num_steps=1, speculative_eagle_topk=1, "
                   "speculative_num_draft_tokens=6)\n")
    model = "deepseek-ai/DeepSeek-V4-Flash"
    args = ["resolve", "--from-log", str(log), "--gpu", "b200", "--model-path", model]
    data = _plan(capsys, *args[1:])
    assert data["agrees"] and data["refused_if_given"] == {}, data["differences"]
    assert data["inputs"]["speculative_draft_model_path"] == model
    assert any("speculative_draft_model_path" in n and f"--model-path {model}" in n
               for n in data["notes"])
    assert main(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "differences: none" in out and f"planned as --model-path {model}" in out
    # a draft path given here wins over the logged one
    given = _plan(capsys, *args[1:], "--speculative-draft-model-path", model)
    assert given["agrees"] and not any("draft" in n for n in given["notes"])
    # another draft path stays on the poster's machine: not taken from the log
    log.write_text(log.read_text().replace("draft_model_path='/models/DeepSeek-V4.1-Flash'",
                                           "draft_model_path='/models/other-draft'"))
    other = _plan(capsys, *args[1:])
    assert "speculative_draft_model_path" not in other["inputs"]
    assert "/models/other-draft" in other["not_planned"]["speculative_algorithm"]
    assert other["refused_if_given"] == {}  # no decision of another release


def test_a_rule_that_runs_only_once_a_field_is_set_writes_nothing_the_log_left_unset():
    """The diffusion-LLM rules run only with --dllm-algorithm: on a log whose dllm_algorithm
    is None they never ran, so enable_lora, pp_size and the rest they could switch off hold
    what the user typed (taken as input), unless another rule writes them too."""
    from launchplan.checks.from_log import written_fields
    from launchplan.rulesets import get_ruleset

    rules = get_ruleset("default").rules()
    only_dllm = {name for name in ("enable_lora", "pp_size", "disaggregation_mode")
                 if all(s.name.startswith("dllm_") for s in rules if name in s.writes)}
    assert only_dllm == {"enable_lora", "pp_size", "disaggregation_mode"}
    unset = written_fields(rules, {"dllm_algorithm": None, "enable_lora": True})
    assert not only_dllm & unset and "enable_mixed_chunk" not in unset
    # enable_mixed_chunk is the speculative rules' too: they ran on a speculative launch
    assert "enable_mixed_chunk" in written_fields(rules, {"speculative_algorithm": "EAGLE"})
    assert only_dllm <= written_fields(rules, {"dllm_algorithm": "LowConfidence"})
    assert only_dllm <= written_fields(rules)  # with no log, every rule may write


def test_a_later_weight_load_counts_only_against_a_plan_that_loads_a_draft():
    """A log's second load on the same rank (a draft's) is part of what loading took when
    the plan holds a draft; planned without one, the target's own load is compared."""
    from types import SimpleNamespace

    from launchplan.checks.log_memory import memory_rows
    from launchplan.input.server_log import LoggedMemory

    logged = LoggedMemory(before_load_gib=100.0, after_load_gib=50.0, weights_gib=40.0,
                          more_weights_gib=3.0)
    target = SimpleNamespace(load_overhead_mib=0)

    def row(draft_gib: float) -> object:
        plan = SimpleNamespace(weights_bytes=40 << 30,
                               draft_weights_bytes=int(draft_gib * (1 << 30)),
                               before_load_bytes=100 << 30, fits=True)
        return next(r for r in memory_rows(logged, plan, None, target)
                    if r.figure == "weights as loaded")

    assert row(3.0).logged == 43.0 and row(3.0).planned == 43.0
    assert row(0.0).logged == 40.0 and row(0.0).planned == 40.0


def test_a_bench_one_batch_run_is_planned_with_its_own_server_flags(capsys, tmp_path):
    """A note that shows a server launch, then the one-batch benchmark whose memory lines it
    pastes: the benchmark's server flags are the run's (not the launch's --tp-size 2), its
    own options (--batch, --input-len) set aside."""
    log = tmp_path / "note.md"
    log.write_text(
        "`python -m sglang.launch_server --model-path llama-3.1-8b --tp-size 2`\n\n"
        "```bash\npython -m sglang.bench_one_batch --model-path llama-3.1-8b --batch 4 "
        "--input-len 2048 --mem-fraction-static 0.8\n"
        "[2026-02-01 00:05:03 TP0] Load weight end. type=LlamaForCausalLM, "
        "dtype=torch.bfloat16, avail mem=70.11 GB, mem usage=14.99 GB.\n```\n")
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"]["mem_fraction_static"] == 0.8
    assert data["inputs"].get("tp_size", 1) == 1
    assert any("no server_args line" in n and "(line 4)" in n for n in data["notes"])


def test_a_logged_command_with_an_older_releases_flag_is_read_as_this_releases(
        capsys, tmp_path):
    """A log whose launch command holds a flag this release retired (``--cuda-graph-max-bs``,
    split by CUDA-graph phase in 0.5.20): the command is moved to this release's flags, as
    ``launchplan migrate`` moves it, and its other flags are the launch, not lost with it."""
    entry = next(e for e in SOURCES if e["file"].startswith("pr13075"))
    text = (DATA / entry["file"]).read_text().replace(
        "--pp-size=2", "--pp-size=2 --cuda-graph-max-bs 32")
    log = tmp_path / "older-command.log"
    log.write_text(text)
    data = run(capsys, {**entry, "file": str(log)})
    assert data["inputs"]["tp_size"] == 2 and data["inputs"]["pp_size"] == 2
    assert any("holds flags of an older release" in n and "--cuda-graph-max-bs-decode 32" in n
               for n in data["notes"])


def test_a_terminal_wrapped_bench_one_batch_run_plans_its_one_layer(capsys):
    """A pull request's run pasted from a terminal at its width (rows broken inside
    ``--load-f``/``ormat`` and ``0.1``/``2``): its command is read whole, so the one-layer
    dummy load and the 4,096-token cap are planned as the log shows them."""
    entry = next(e for e in SOURCES if e["file"].startswith("pr11018-"))
    data = run(capsys, entry)
    rows = {r["figure"]: r for r in data["memory"]}
    assert abs(rows["weights as loaded"]["error"]) < 0.02
    tokens = rows["max_total_num_tokens"]
    assert tokens["logged"] == tokens["planned"] == 4096
    read = " ".join(data["notes"])
    assert "load_format='dummy'" in read and "mem_fraction_static=0.12" in read


def test_a_memory_only_log_under_a_manifest_list_plans_its_launch(capsys, tmp_path):
    """SGLang's Kubernetes guide shows the launch as a ``command:`` list and then the pod's
    log: the list is the launch, and a flag whose value the pod's environment fills
    (``$(LWS_GROUP_SIZE)``) is left unset and named, not a reason to lose the others."""
    log = tmp_path / "pod.md"
    log.write_text(
        "```yaml\n"
        '            command: ["python3", "-m", "sglang.launch_server"]\n'
        "            args:\n"
        "              - --mem-fraction-static\n"
        "              -  \"0.93\"\n"
        "              - --tp\n"
        "              - \"2\" # Size of Tensor Parallelism\n"
        "              - --nnodes\n"
        "              - $(LWS_GROUP_SIZE)\n"
        "              - --model-path\n"
        "              - /work/models\n"
        "```\n\n"
        "```text\n"
        "[2025-02-17 05:27:24 TP0] max_total_num_tokens=712400, chunked_prefill_size=8192, "
        "max_prefill_tokens=16384, max_running_requests=50, context_len=131072\n"
        "```\n")
    notes = " ".join(_from_log(capsys, log, "h100", "llama-3.1-8b")["notes"])
    assert "tp_size=2" in notes and "mem_fraction_static=0.93" in notes
    assert "--nnodes $(LWS_GROUP_SIZE)" in notes


def test_a_hybrid_model_s_state_slots_are_compared_and_their_ratio_explained(capsys, tmp_path):
    """A Qwen3.5 log (lines of a real TP 2 run on two RTX 4090s, April 2026) prints its
    recurrent-state slots: they are set beside the plan's, and the log's 3 slots a running
    request against the plan's 5 (0.5.23's extra buffer with the overlap scheduler) are named
    as what moves max_running_requests."""
    log = tmp_path / "qwen35.log"
    log.write_text(
        "python -m sglang.launch_server --model-path Qwen/Qwen3.5-9B --tp-size 2 "
        "--mem-fraction-static 0.8 --context-length 262144\n"
        "[2026-04-14 16:08:44 TP0] Load weight begin. avail mem=22.93 GB\n"
        "[2026-04-14 16:08:49 TP0] Load weight end. elapsed=5.54 s, "
        "type=Qwen3_5ForConditionalGeneration, avail mem=14.08 GB, mem usage=8.85 GB.\n"
        "[2026-04-14 16:08:49 TP0] Mamba Cache is allocated. max_mamba_cache_size: 186, "
        "conv_state size: 0.10GB, ssm_state size: 4.38GB \n"
        "[2026-04-14 16:08:49 TP0] KV Cache is allocated. #tokens: 327310, K size: 2.50 GB, "
        "V size: 2.50 GB\n"
        "[2026-04-14 16:08:52 TP0] max_total_num_tokens=327310, chunked_prefill_size=2048, "
        "max_prefill_tokens=16384, max_running_requests=62, context_len=262144, "
        "available_gpu_mem=4.49 GB\n")
    rows = {r["figure"]: r for r in _from_log(capsys, log, "rtx4090", "Qwen/Qwen3.5-9B")["memory"]}
    slots = rows["max_mamba_cache_size"]
    assert slots["logged"] == 186 and abs(slots["error"]) < 0.05
    assert "3.0 state slots per running request" in slots["note"]
    assert "holds 5" in slots["note"]
    given = _from_log(capsys, log, "rtx4090", "Qwen/Qwen3.5-9B",
                      "--mamba-radix-cache-strategy", "no_buffer", "--disable-overlap-schedule")
    rows = {r["figure"]: r for r in given["memory"]}
    assert rows["max_mamba_cache_size"]["note"] is None  # the log's strategy: 3 a request
    assert abs(rows["max_running_requests"]["error"]) < 0.05


@pytest.mark.parametrize(("flag", "field"), [
    ("--speculative-draft-model-path ${DRAFT}", "speculative_draft_model_path"),
    ("--kt-weight-path $MODEL", "kt_weight_path"),
    ("--chat-template $(TPL)", "chat_template"),
])
def test_a_variable_in_a_logged_command_is_unset_even_where_its_flag_would_parse(
        capsys, tmp_path, flag, field):
    """A shell variable the log never shows the value of is the launch's environment's: a
    string flag holding it is unset and named, not planned with the variable's name as its
    value (as it is when some other flag's variable fails to parse)."""
    log = tmp_path / "cmd.log"
    log.write_text(f"python3 -m sglang.launch_server --model /m {flag} --tp 1\n"
                   "[2026-05-16 13:05:37] Received sigquit from a child process. It usually "
                   "means the child failed.\n")
    data = _from_log(capsys, log, "h100", "llama-3.1-8b")
    assert field not in data["inputs"]
    assert any(flag in n and "variables this text does not set" in n for n in data["notes"])


def test_a_draft_path_of_the_posters_machine_in_a_logged_command_is_set_aside(
        capsys, tmp_path):
    """A log with no server_args line, whose launch command names a draft checkpoint on the
    poster's disk: the path is the poster's file, as a logged one is, not input this release
    refuses."""
    log = tmp_path / "cmd.log"
    log.write_text(
        "python3 -m sglang.launch_server --model-path /m --tp 8 --speculative-algorithm EAGLE "
        "--speculative-draft-model-path /mnt/nowhere/llama-eagle --speculative-num-steps 2 "
        "--speculative-eagle-topk 1 --speculative-num-draft-tokens 3\n"
        "[2026-05-16 13:05:37] Received sigquit from a child process. It usually means the "
        "child failed.\n")
    data = _from_log(capsys, log, "h100", "llama-3.1-8b")
    assert "speculative_draft_model_path" not in data["not_accepted"]
    assert any("'/mnt/nowhere/llama-eagle') is a file of the machine that ran the log" in n
               for n in data["notes"])


def _from_log(capsys, log, gpu: str, model: str, *flags: str) -> dict:
    """``resolve --from-log`` of a log written for the test, its JSON report."""
    code = main(["resolve", "--from-log", str(log), "--gpu", gpu, "--model-path", model,
                 "--format", "json", *flags])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_an_abridged_line_is_said_to_be_abridged_not_cut(capsys):
    # SGLang's own clean-startup reference writes ``ServerArgs(model_path=..., ...)``
    entry = next(e for e in SOURCES if e["file"] == "sglang-skill-clean-startup-qwen3-8b-b200.log")
    code = main(["resolve", "--from-log", str(DATA / entry["file"]), "--gpu", "b200",
                 "--model-path", entry["model"]])
    out, _ = capsys.readouterr()
    assert code == 0 and "the logged line is abridged" in out and "is cut off" not in out
    main(["resolve", "--from-log", str(DATA / entry["file"]), "--gpu", "b200",
          "--model-path", entry["model"], "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["abridged"] and report["truncated"]


def test_a_log_that_started_where_preflight_says_it_fails_is_noted(capsys, tmp_path):
    # tp 3 does not split Qwen3-8B's heads: upstream fails at start-up, a fork may boot
    line = "[2026-07-21 08:21:50] server_args=ServerArgs(model_path='qwen3-8b', tp_size=3)\n"
    started = "[2026-07-21 08:22:00 TP0] Capture cuda graph end. Time elapsed: 4.56 s\n"
    for text, noted in ((line + started, True), (line, False)):
        log = tmp_path / "fork.log"
        log.write_text(text)
        assert main(["resolve", "--from-log", str(log), "--gpu", "h100"]) == 0
        out = capsys.readouterr().out
        assert ("the log shows the server started, yet preflight says" in out) is noted
        assert noted is False or "attention-heads-split" in out


def test_a_started_multi_gpu_log_on_a_one_gpu_target_names_the_gpu_count(capsys, tmp_path):
    """A workstation target describes one GPU; a TP 2 log that came up ran on a node of two
    (sglang-perf-test's four RTX 4090s, KTransformers' two): the note names --gpu-count,
    which plans that node, instead of blaming the build."""
    log = tmp_path / "tp2.log"
    log.write_text("[2026-07-21 08:21:50] server_args=ServerArgs(model_path='qwen3-8b', "
                   "tp_size=2)\n[2026-07-21 08:22:00 TP0] Capture cuda graph end. Time "
                   "elapsed: 4.56 s\n")
    assert main(["resolve", "--from-log", str(log), "--gpu", "rtx4090"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "its node held the 2 GPUs its ranks bind, where rtx4090 describes 1: " \
           "--gpu-count 2 plans the node it ran on" in out
    assert "yet preflight says" not in out
    assert main(["resolve", "--from-log", str(log), "--gpu", "rtx4090", "--gpu-count", "2"]) == 0
    assert "GPUs its ranks bind" not in capsys.readouterr().out


def test_an_older_load_record_without_usage_compares_what_loading_left_free(capsys, tmp_path):
    """0.4.3's "Load weight end ... avail mem=36.48 GB" (sgl-project/sglang#4161's excerpt)
    has neither the usage nor a begin record: what loading left free is set beside the
    target's free memory less the planned weights and loading's overhead."""
    log = tmp_path / "old.log"
    log.write_text("[2025-03-07 09:25:11 TP0] Load weight end. type=LlamaForCausalLM, "
                   "dtype=torch.bfloat16, avail mem=63.40 GB\n"
                   "[2025-03-07 09:25:12 TP0] Memory pool end. avail mem=22.03 GB\n")
    data = _from_log(capsys, log, "h100", "llama-3.1-8b")
    rows = {r["figure"]: r for r in data["memory"]}
    assert rows["free after loading"]["logged"] == 63.4
    assert abs(rows["free after loading"]["error"]) < 0.05  # 78.5 GiB free less ~15 GiB


def test_a_launch_command_and_the_error_its_start_up_died_of_is_a_log(capsys, tmp_path):
    """The report an issue template asks for (sgl-project/sglang#16757): the launch command,
    then SGLang's own failure record and its traceback, the server_args line left out: the
    command is planned and the failure reported, not refused as no log."""
    log = tmp_path / "report.log"
    log.write_text(
        "`python3 -m sglang.launch_server --model-path /shared/gpt-oss-120b/ --tp 2 "
        "--reasoning-parser gpt-oss`\nWithout the change:\n```\n"
        "[2026-01-08 23:03:49 TP0] Scheduler hit an exception: Traceback (most recent call "
        "last):\n  File \"scheduler.py\", line 2936, in run_scheduler_process\n"
        "    scheduler = Scheduler(\nAttributeError: 'NoneType' object has no attribute 'x'\n```\n")
    data = _from_log(capsys, log, "h100", "openai/gpt-oss-120b")
    assert data["inputs"]["tp_size"] == 2
    assert data["startup_failure"] == ("Scheduler hit an exception: AttributeError: 'NoneType' "
                                       "object has no attribute 'x'")
    log.write_text("[t TP0] Scheduler hit an exception: Traceback (most recent call last):\n")
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100"]) == 2  # no launch shown


def test_a_logged_draft_not_here_leaves_the_speculation_unplanned_and_says_so(capsys,
                                                                              tmp_path):
    """A DFLASH or EAGLE3 log names its draft as a path of the poster's machine (DGX Spark
    logs of Laguna with a DFlash draft): the draft is not planned, which the notes say, and
    the logged speculation is listed as not planned, not as a decision of another release."""
    log = tmp_path / "draft.log"
    log.write_text("[t] server_args=ServerArgs(model_path='llama-3.1-8b', speculative_algorithm="
                   "'DFLASH', speculative_draft_model_path='/home/u/eagle3-draft', "
                   "speculative_num_steps=3, speculative_eagle_topk=1, "
                   "speculative_num_draft_tokens=4)\n")
    data = _from_log(capsys, log, "h100", "llama-3.1-8b")
    assert "speculative_algorithm" in data["not_planned"]
    assert "/home/u/eagle3-draft" in data["not_planned"]["speculative_algorithm"]
    assert data["refused_if_given"] == {} and data["differences"] == []
    assert any("the draft, its weights and its pool are not planned" in n
               for n in data["notes"])


def test_a_start_up_that_died_in_graph_capture_is_named_beside_the_plan(tmp_path, capsys):
    log = tmp_path / "oom.log"
    log.write_text(
        "[t] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B-Instruct', tp_size=1)\n"
        "[t] Load weight begin. avail mem=78.50 GB\n"
        "[t] Load weight end. type=LlamaForCausalLM, avail mem=63.40 GB, mem usage=15.10 GB.\n"
        "[t] KV Cache is allocated. #tokens: 420000, K size: 25 GB, V size: 25 GB\n"
        "[t] Capture cuda graph begin. This can take up to several minutes.\n"
        "Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 672 MiB\n")
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100", "--model-path",
                 "llama-3.1-8b", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["startup_failure"].startswith("Capture cuda graph failed: CUDA out of memory")
    assert any("start-up failed" in n and "does not size" in n for n in report["notes"])
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100", "--model-path",
                 "llama-3.1-8b"]) == 0
    assert "the log's start-up failed (Capture cuda graph failed" in capsys.readouterr().out


@pytest.mark.parametrize(("logged", "read_as"), [
    ("kv_cache_dtype='fp4_e2m1', attention_backend='triton'", {"kv_cache_dtype": "fp4_mx_block16"}),
    ("attention_backend='dual_chunk_flash_attn'", {}),
])
def test_a_logged_value_an_older_release_took_is_read_in_the_modelled_releases_terms(
        tmp_path, capsys, logged, read_as):
    """0.5.11 logged kv_cache_dtype fp4_e2m1, which 0.5.21 on calls fp4_mx_block16: the
    launch is planned with that cache (not the model's 16-bit one), and says so; a value
    retired with no successor is named as not accepted."""
    log = tmp_path / "old.log"
    log.write_text("[t] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B-Instruct', "
                   f"tp_size=1, {logged})\n")
    assert main(["resolve", "--from-log", str(log), "--gpu", "h100", "--model-path",
                 "llama-3.1-8b", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    name, value = logged.split("=")[0], logged.split("'")[1]
    assert any(f"{name} {value!r} is an older SGLang value" in r for r in report["respelled"]) \
        or f"{name} {value!r} is an older SGLang value" in report["not_accepted"].get(name, "")
    for field, new in read_as.items():
        assert report["inputs"][field] == new
    if not read_as:
        assert name in report["not_accepted"] and name not in report["inputs"]


def test_an_npu_logs_missing_gpu_is_explained_by_its_device(tmp_path, capsys):
    log = tmp_path / "npu.log"
    log.write_text("[t] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-R1', "
                   "device='npu', tp_size=16)\n")
    assert main(["resolve", "--from-log", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--gpu: required (the log ran with device 'npu'" in err


def test_a_log_a_dump_flattened_is_planned_as_the_log_itself(capsys, tmp_path):
    """sglang PR #8258's log as a public dump keeps it, its line breaks written `` \u23ce ``:
    its launch command (TP8, the retired MoE flag) is planned, as in the log itself, not the
    flags given alone against the records read mid-line (a TP1 plan, its pool -82.7%)."""
    entry = next(e for e in SOURCES if e["file"].startswith("pr8258-"))
    text = (DATA / entry["file"]).read_text()
    log = tmp_path / "flattened.log"
    log.write_text(text.rstrip("\n").replace("\n", " \u23ce ") + "\n")
    itself = run(capsys, entry)
    flat = _from_log(capsys, log, entry["gpu"], entry["model"])
    assert flat["inputs"]["tp_size"] == 8 == itself["inputs"]["tp_size"]
    assert flat["memory"] == itself["memory"]
    assert any("marks stand for its line breaks" in note for note in flat["notes"])


def test_a_command_and_a_start_up_traceback_without_its_wrapper_is_a_log(capsys, tmp_path):
    """sglang#4489: the command, then the scheduler's traceback from its first line, the
    ``Scheduler hit an exception:`` record it was logged in not pasted, cut in the model
    runner's initialisation: the command is planned and the start-up said to have failed."""
    sglang = '  File "/sgl-workspace/sglang/python/sglang/srt/'
    log = tmp_path / "report.log"
    log.write_text(
        "#### command\npython3 -m sglang.launch_server --model-path /data/Llama-3.1-8B "
        "--tp 2 --mem-fraction-static 0.8\n\n#### Error\nTraceback (most recent call last):\n"
        + sglang + 'managers/scheduler.py", line 1748, in run_scheduler_process\n'
        "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)\n"
        + sglang + 'managers/scheduler.py", line 218, in __init__\n'
        "    self.tp_worker = TpWorkerClass(\n"
        + sglang + 'model_executor/model_runner.py", line 207, in initialize\n'
        "    self.init_cu\n")
    data = _from_log(capsys, log, "h100", "llama-3.1-8b")
    assert data["inputs"]["tp_size"] == 2
    assert data["startup_failure"] == ("a traceback through scheduler.py __init__ ... "
                                       "model_runner.py initialize, which the log ends before "
                                       "its error")
