"""Preflight: every plan gets a verdict, with severity, evidence and the changes that avoid it.

The launches are the ones a new user tried (issue 9); each verdict is checked in JSON and in
the table, and ``--strict`` exits 3 on each.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan import resolve
from launchplan.checks.preflight import preflight
from launchplan.checks.requirements import REQUIREMENTS, Severity
from launchplan.commands.main import main

DRAFTS = Path(__file__).resolve().parents[1] / "parity" / "models"


def cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def plan_json(argv, capsys):
    code, out, err = cli(["resolve", *argv, "--format", "json"], capsys)
    assert code in (0, 3), err
    return code, json.loads(out, parse_constant=_reject)


def _reject(token):
    raise AssertionError(f"invalid JSON token {token}")


FAILING = [
    (["--gpu", "mi300x", "--model-path", "llama-3.1-8b", "--attention-backend", "fa3"],
     "fa3-gpu"),
    (["--gpu", "b200", "--model-path", "llama-3.1-8b", "--attention-backend", "fa3"], "fa3-gpu"),
    (["--gpu", "mi300x", "--model-path", "llama-3.1-8b", "--attention-backend", "fa4"],
     "fa4-gpu"),
    (["--gpu", "h100", "--model-path", "llama-3.1-8b", "--tp-size", "16"], "gpus-on-node"),
    (["--gpu", "h100", "--model-path", "llama-3.1-8b", "--tp-size", "3"],
     "attention-heads-split"),
    (["--gpu", "rtx5090", "--model-path", "llama-3.1-8b", "--tp-size", "2"], "gpus-on-node"),
    (["--gpu", "h100", "--model-path", "llama-3.1-8b", "--mem-fraction-static", "1.5"],
     "mem-fraction-range"),
    (["--gpu", "h100", "--model-path", "llama-3.1-8b", "--page-size", "-16"],
     "page-size-positive"),
    # recorded: wild/found/142 (SGLang 0.5.23 resolves --context-length 0 as given)
    (["--gpu", "h100", "--model-path", "llama-3.1-8b", "--context-length", "0"],
     "context-length-above-one"),
    (["--gpu", "h100", "--model-path", "llama-3.1-8b", "--context-length", "1"],
     "context-length-above-one"),
    (["--gpu", "h100", "--model-path", "llama-3.1-8b", "--speculative-algorithm", "EAGLE",
      "--speculative-draft-model-path", "llama-3.1-8b-eagle"], "draft-context"),
    # the schedulers parse --hisparse-config when they build the pools (factory.py)
    (["--gpu", "h200", "--model-path", "deepseek-ai/DeepSeek-V3.2", "--tp-size", "8",
      "--enable-hisparse", "--disable-radix-cache", "--hisparse-config",
      '{"top_k": 4096, "device_buffer_size": 1024}'], "hisparse-config"),
    (["--gpu", "b200", "--model-path", "deepseek-ai/DeepSeek-V4-Flash", "--tp-size", "4",
      "--enable-hisparse", "--disable-radix-cache", "--hisparse-config",
      '{"host_to_device_ratio": 0.5}'], "hisparse-config"),
]


@pytest.mark.parametrize(("argv", "requirement"), FAILING)
def test_launches_that_cannot_start_say_so_with_evidence(argv, requirement, capsys):
    code, data = plan_json(argv, capsys)
    assert code == 0
    report = data["preflight"]
    assert report["verdict"] == "fails-at-start"
    problem = next(p for p in report["problems"] if p["requirement"] == requirement)
    assert problem["severity"] == "fails-at-start" and problem["verified"]
    assert problem["why"] and "sglang" in problem["evidence"]
    assert problem["fields"]
    assert problem["fixes"], "a single flag change that avoids it"
    # the table leads with the verdict
    code, out, _ = cli(["resolve", *argv], capsys)
    assert code == 0 and out.startswith("preflight: fails at start-up")
    assert requirement in out and "evidence:" in out and "avoid with:" in out
    # --strict refuses it
    code, _, err = cli(["resolve", *argv, "--strict"], capsys)
    assert code == 3 and requirement in err


def test_every_fix_really_avoids_the_problem(capsys):
    _, data = plan_json(["--gpu", "h100", "--model-path", "llama-3.1-8b", "--tp-size", "3"],
                        capsys)
    problem = next(p for p in data["preflight"]["problems"]
                   if p["requirement"] == "attention-heads-split")
    for fix in problem["fixes"]:
        flag, value = fix.split()
        assert flag == "--tp-size"
        again = resolve(["--tp-size", value], gpu="h100", model_path="llama-3.1-8b")
        assert "attention-heads-split" not in {p.requirement for p in preflight(again).problems}


@pytest.mark.parametrize(("gpu", "model", "argv"), [
    ("h100", "llama-3.1-8b", []),
    ("b200", "llama-3.1-8b", []),
    ("b200", "deepseek-v3", ["--tp-size", "8"]),
    ("h200", "deepseek-v3", ["--tp-size", "8"]),
    ("h100", "qwen3-30b-a3b", ["--tp-size", "4", "--ep-size", "4"]),
    ("b200", "gpt-oss-20b", []),
])
def test_plain_launches_start(gpu, model, argv, capsys):
    code, data = plan_json(["--gpu", gpu, "--model-path", model, *argv], capsys)
    assert code == 0 and data["preflight"]["verdict"] == "starts"
    code, _, _ = cli(["resolve", "--gpu", gpu, "--model-path", model, *argv, "--strict"],
                     capsys)
    assert code == 0


def test_degraded_plans_still_start_and_strict_accepts_them():
    result = resolve(["--attention-backend", "torch_native"], gpu="b200",
                     model_path="llama-3.1-8b")
    report = preflight(result)
    assert report.verdict == "starts"
    assert {p.severity for p in report.problems} == {Severity.DEGRADED}


def test_unverified_problems_are_listed_but_never_decide():
    result = resolve(["--prefill-attention-backend", "fa4", "--cuda-graph-backend-prefill",
                      "full"], gpu="b200", model_path="llama-3.1-8b")
    report = preflight(result)
    names = {p.requirement: p for p in report.problems}
    assert not names["full-prefill-graph-fa-page-1"].verified
    assert report.verdict == "starts"


def test_a_refusal_is_a_refused_verdict_with_the_rows_evidence(capsys):
    argv = ["--gpu", "h100", "--model-path", "deepseek-v3", "--attention-backend", "trtllm_mla"]
    code, data = plan_json(argv, capsys)
    assert code == 3
    report = data["preflight"]
    assert report["verdict"] == "refused"
    (problem,) = report["problems"]
    assert problem["requirement"] == "trtllm-mla-blackwell"
    assert problem["evidence"] == next(r.evidence for r in REQUIREMENTS
                                       if r.name == "trtllm-mla-blackwell")
    code, out, err = cli(["resolve", *argv], capsys)
    assert code == 3 and out.startswith("preflight: refused") and "trtllm_mla" in err


def test_launcher_checks_are_start_up_failures(capsys):
    argv = ["--gpu", "h100", "--model-path", "llama-3.1-8b", "--gpu-id-step", "0"]
    code, data = plan_json(argv, capsys)
    assert code == 0
    problem = next(p for p in data["preflight"]["problems"]
                   if p["requirement"] == "launcher_layout_checks")
    assert problem["severity"] == "fails-at-start"
    assert "check_server_args" in problem["evidence"]
    assert data["preflight"]["verdict"] == "fails-at-start"


def test_chunk_alignment_is_one_problem_not_two(capsys):
    argv = ["--gpu", "b200", "--model-path", "llama-3.1-8b", "--tp-size", "3", "--dp-size", "3",
            "--enable-dp-attention", "--page-size", "64", "--attention-backend", "triton"]
    _, data = plan_json(argv, capsys)
    names = [p["requirement"] for p in data["preflight"]["problems"]]
    assert names.count("chunk-multiple-of-page") == 1
    assert "launcher_chunk_page_alignment" not in names


def test_attention_dp_places_ranks_inside_the_tp_group():
    dp_replicas = resolve(["--tp-size", "4", "--dp-size", "4"], gpu="h100",
                          model_path="llama-3.1-8b")
    attention_dp = resolve(["--tp-size", "4", "--dp-size", "4", "--enable-dp-attention"],
                           gpu="h100", model_path="llama-3.1-8b")
    assert "gpus-on-node" in {p.requirement for p in preflight(dp_replicas).problems}
    assert "gpus-on-node" not in {p.requirement for p in preflight(attention_dp).problems}


def test_kv_heads_are_replicated_when_fewer_than_ranks():
    # 8 KV heads over tp 16 replicate evenly; nothing about heads is wrong, only the GPUs
    result = resolve(["--tp-size", "16", "--nnodes", "2"], gpu="h100",
                     model_path="llama-3.1-8b")
    names = {p.requirement for p in preflight(result).problems}
    assert "attention-heads-split" not in names and "gpus-on-node" not in names


def test_moe_experts_must_split_over_ep():
    bad = resolve(["--tp-size", "4", "--ep-size", "3"], gpu="h100", model_path="qwen3-30b-a3b")
    wide = resolve(["--tp-size", "4", "--ep-size", "8"], gpu="h100", model_path="qwen3-30b-a3b")
    assert "moe-experts-split" in {p.requirement for p in preflight(bad).problems}
    assert "moe-experts-split" in {p.requirement for p in preflight(wide).problems}


def test_redundant_experts_are_split_over_ep_with_the_routed_ones():
    """SGLang's MoE blocks build routed + --ep-num-redundant-experts physical experts
    (deepseek_v2.py, qwen3_moe.py: ``num_experts=... + ep_num_redundant_experts``) and the EP
    ranks split that count: the large-scale EP recipes' 256 + 32 over EP 24 or 72 start,
    256 + 4 over EP 16 does not."""
    def split_problem(tp: str, redundant: str) -> str | None:
        argv = ["--tp-size", tp, "--nnodes", str(int(tp) // 8), "--node-rank", "0",
                "--dist-init-addr", "10.0.0.1:5757", "--moe-a2a-backend", "deepep",
                "--ep-num-redundant-experts", redundant]
        found = [p for p in preflight(resolve(argv, gpu="h100", model_path="deepseek-r1"))
                 .problems if p.requirement == "moe-experts-split"]
        return found[0].why if found else None

    assert split_problem("24", "32") is None and split_problem("72", "32") is None
    assert split_problem("24", "0") == "256 routed experts do not split over ep_size 24"
    assert split_problem("16", "4") == ("256 routed + 4 redundant experts do not split over "
                                        "ep_size 16")
    assert split_problem("16", "0") is None


def test_layers_per_pipeline_stage():
    result = resolve(["--pp-size", "64", "--nnodes", "8"], gpu="h100",
                     model_path="llama-3.1-8b")
    assert "layers-per-stage" in {p.requirement for p in preflight(result).problems}


def test_draft_context_is_allowed_by_the_environment_variable():
    argv = ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
            "llama-3.1-8b-eagle"]
    allowed = resolve(argv, gpu="h100", model_path="llama-3.1-8b",
                      env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"})
    assert "draft-context" not in {p.requirement for p in preflight(allowed).problems}
    # SGLang's CI switch allows it too, in the same check as the model's own context
    in_ci = resolve(argv, gpu="h100", model_path="llama-3.1-8b", env={"SGLANG_IS_IN_CI": "y"})
    assert "draft-context" not in {p.requirement for p in preflight(in_ci).problems}


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-0.5", "1"])
def test_mem_fraction_outside_the_open_interval(value, capsys):
    _, data = plan_json(["--gpu", "h100", "--model-path", "llama-3.1-8b",
                         f"--mem-fraction-static={value}"], capsys)
    assert data["preflight"]["verdict"] == "fails-at-start"


def test_sweep_marks_verdicts_and_keeps_failing_points_apart(capsys):
    code, out, _ = cli(["sweep", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                        "--axis", "tp_size=1,2,3,16", "--format", "json"], capsys)
    assert code == 0
    report = json.loads(out)
    assert sorted(p["tp_size"] for g in report["distinct"] for p in g["points"]) == [1, 2]
    assert all(p["verdict"] == "starts" for g in report["distinct"] for p in g["points"])
    failing = {entry["reason"].split(":")[0]: entry for entry in report["not_starting"]}
    assert failing["attention-heads-split"]["points"][0]["tp_size"] == 3
    assert failing["gpus-on-node"]["verdict"] == "fails-at-start"
    code, out, _ = cli(["sweep", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                        "--axis", "tp_size=1,3", "--format", "csv"], capsys)
    rows = out.splitlines()
    assert rows[0].split(",")[2] == "verdict"
    assert any(",fails-at-start," in r for r in rows)


def test_check_groups_by_severity_and_counts_degraded_apart(capsys):
    argv = ["check", "--gpu", "b200", "--model-path", "llama-3.1-8b",
            "--axis", "attention_backend=torch_native", "--axis", "page_size=unset",
            "--axis", "cuda_graph_backend_prefill=unset", "--axis", "kv_cache_dtype=unset",
            "--axis", "tp_size=unset", "--axis", "speculative_algorithm=unset",
            "--axis", "cuda_graph_backend_decode=unset", "--format", "json", "--jobs", "1"]
    code, out, _ = cli(argv, capsys)
    report = json.loads(out)
    assert report["counts"] == {"degraded": 1}
    assert code == 0 and report["failing"] == 0
    code, out, _ = cli([*argv, "--fail-on", "degraded"], capsys)
    assert code == 1 and json.loads(out)["failing"] == 1


def test_requirements_listing_shows_severity_and_evidence(capsys):
    code, out, _ = cli(["requirements", "--format", "json"], capsys)
    rows = json.loads(out)
    assert code == 0 and len(rows) == len(REQUIREMENTS)
    assert all(r["severity"] in {s.value for s in Severity} and r["evidence"] for r in rows)
    code, out, _ = cli(["requirements"], capsys)
    assert "evidence:" in out and "[fails-at-start]" in out


EAGLE4 = ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
          "llama-3.1-8b-eagle", "--speculative-num-steps", "3", "--speculative-eagle-topk", "4",
          "--speculative-num-draft-tokens", "8"]
REFUSING = {
    "trtllm-mla-blackwell": ("h100", "deepseek-v3", ["--attention-backend", "trtllm_mla"]),
    "cutedsl-mla-sm100": ("h100", "deepseek-v3", ["--attention-backend", "cutedsl_mla"]),
    "cutedsl-mla-decode-only": ("b200", "deepseek-v3",
                                ["--prefill-attention-backend", "cutedsl_mla"]),
    "trtllm-mha-topk-1": ("b200", "llama-3.1-8b", ["--attention-backend", "trtllm_mha",
                                                   *EAGLE4]),
    "trtllm-mha-gpu": ("a100", "llama-3.1-8b", ["--attention-backend", "trtllm_mha"]),
    "eagle-topk-page-tree": ("b200", "llama-3.1-8b", ["--attention-backend", "fa4",
                                                      "--page-size", "16", *EAGLE4]),
}


def test_every_refusing_row_is_what_a_rule_refuses_on():
    """A ``refused`` row is enforced by the rule that reads it: the refusal names the row,
    and the row's predicate holds on the values the rule saw."""
    from launchplan.errors import Refusal

    refusing_rows = {r.name for r in REQUIREMENTS if r.severity is Severity.REFUSED}
    assert refusing_rows == set(REFUSING)
    for name, (gpu, model, argv) in REFUSING.items():
        with pytest.raises(Refusal) as caught:
            resolve(argv, gpu=gpu, model_path=model)
        assert caught.value.requirement == name, (name, caught.value.message)


@pytest.mark.parametrize(("device", "fails"), [
    ("npu", True), ("xpu", True), ("hpu", True), ("musa", True), ("mps", True),
    ("cuda", False), ("cuda:0", False), ("cpu", False)])
def test_a_device_the_gpu_target_lacks_fails_at_start(device, fails):
    """An NPU recipe's --device npu pasted onto a GPU host: resolution accepts it, the
    scheduler's first memory probe does not."""
    for gpu in ("h100", "mi300x"):
        report = preflight(resolve(["--device", device], gpu=gpu, model_path="llama-3.1-8b"))
        named = [p for p in report.problems if p.requirement == "device-on-target"]
        assert bool(named) is fails
        if fails:
            assert named[0].severity is Severity.FAILS_AT_START and device in named[0].why


@pytest.mark.parametrize("model, limit", [("llama-3.1-8b", 131072), ("qwen3-8b", 40960)])
def test_a_numeric_fix_is_the_nearest_value_that_works(capsys, model, limit):
    """Over the model's context limit, the offered context length is the limit itself (the
    model's derived context length), then the nearest trial: the least a user gives up."""
    _, data = plan_json(["--gpu", "h100", "--model-path", model,
                         "--context-length", "200000"], capsys)
    problem = next(p for p in data["preflight"]["problems"]
                   if p["requirement"] == "context_length_limit")
    numeric = [fix for fix in problem["fixes"] if fix.startswith("--context-length ")]
    assert numeric[0] == f"--context-length {limit}"
    assert all(int(fix.split()[1]) <= limit for fix in numeric)


def test_numeric_trials_are_ordered_by_closeness():
    from launchplan.checks.alternatives import trial_values

    assert trial_values("context_length", 9000) == (8192, 32768, 2048)
    record = resolve([], gpu="h100", model_path="qwen3-8b").record
    assert trial_values("context_length", 65536, record) == (40960, 32768, 8192, 2048)
    assert trial_values("mem_fraction_static", 0.95) == (0.9, 0.8)
    assert trial_values("tp_size", float("inf"))[0] == 8
    assert trial_values("tp_size", float("nan")) == (1, 2, 4, 8)  # the table's order
    assert trial_values("page_size", -3)[0] == 1
    assert trial_values("ep_size", 10 ** 400)[0] == 8  # beyond a float's range: no error
    assert trial_values("ep_size", 10 ** 400 * -1)[0] == 1


def test_a_kv_pool_smaller_than_the_context_is_an_advisory():
    """SGLang caps a request at one token less than the KV pool when the pool is smaller
    than the context (``tp_worker``: max_req_len; 0.5.23 also warns at start): the launch
    starts, but a full-length request is refused or truncated. DeepSeek-V3 on eight H200
    with attention DP and MTP sizes a pool of ~135k tokens against a 163,840 context."""
    argv = ["--tp", "8", "--enable-dp-attention", "--dp", "8", "--speculative-algorithm",
            "EAGLE", "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", "4"]
    result = resolve(argv, gpu="h200", model_path="deepseek-v3")
    report = preflight(result)
    found = {p.requirement: p for p in report.problems}["kv-pool-below-context"]
    assert found.severity is Severity.DEGRADED and found.verified
    assert report.verdict == "starts"
    assert "163,840" in found.why
    # the same launch with the context it can hold has no such advisory
    shorter = resolve([*argv, "--context-length", "65536"], gpu="h200",
                      model_path="deepseek-v3")
    assert "kv-pool-below-context" not in {p.requirement for p in preflight(shorter).problems}
    # nor a small model whose pool holds its whole context many times
    small = resolve([], gpu="h100", model_path="llama-3.1-8b")
    assert "kv-pool-below-context" not in {p.requirement for p in preflight(small).problems}


def test_a_pure_mamba2_model_without_intermediate_size_fails_at_start(tmp_path):
    """SGLang's Mamba2Config sizes the state pool from ``intermediate_size``, which
    transformers' Mamba2Config never sets: Mamba-Codestral's published file leaves it out, and
    the KV-pool harness saw SGLang stop on every launch of it. A file that gives it sizes."""
    from pathlib import Path

    codestral = Path(__file__).parents[1] / "parity" / "models" / "mamba-codestral-7b"
    failing = preflight(resolve(gpu="h100", model_path=str(codestral)))
    assert "mamba2-state-shape" in {p.requirement for p in failing.problems}
    assert not failing.starts
    config = json.loads((codestral / "config.json").read_text())
    config["intermediate_size"] = config["expand"] * config["hidden_size"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    sized = preflight(resolve(gpu="h100", model_path=str(tmp_path)))
    assert "mamba2-state-shape" not in {p.requirement for p in sized.problems}


def test_the_reserve_estimate_rerun_sees_every_fact_a_view_carries():
    """``mem-fraction-reserve`` reruns SGLang's estimate on the final values when a field it
    reads changed after it; the estimate reads the environment (post-capture sizing), so the
    stand-in view must carry every fact a rule's view does: a Muse Spark NGRAM launch, whose
    estimate is rerun, stopped with an internal error until it did."""
    from pathlib import Path

    from launchplan.checks.kernel_requirements import _FinalView
    from launchplan.checks.predicates import Plan
    from launchplan.engine.view import FACT_NAMES

    model = Path(__file__).parents[1] / "parity" / "models" / "muse-spark-synth"
    result = resolve(["--tp-size", "2", "--speculative-algorithm", "NGRAM"], gpu="h100",
                     model_path=str(model))
    report = preflight(result)
    assert report.starts
    view = _FinalView(Plan(result))
    missing = [name for name in FACT_NAMES if name not in vars(view)]
    assert not missing


def test_an_attention_backend_the_release_does_not_register_fails_at_start():
    """A keyword launch (``sgl.Engine``, ``ServerArgs``) skips the command line's choices:
    SGLang 0.5.23 resolves ``cutlass_mla`` (a public case records it), then each scheduler
    finds no backend of that name; a registered one passes."""
    def flagged(backend):
        result = resolve(fields={"attention_backend": backend, "tp_size": 8}, gpu="b200",
                         model_path="deepseek-v3")
        return [p.to_dict()["requirement"] for p in preflight(result).problems
                if p.to_dict()["requirement"] == "attention-backend-registered"]

    assert flagged("cutlass_mla")
    assert not flagged("flashinfer") and not flagged("trtllm_mla")


@pytest.mark.parametrize("release", ["0.5.21", "0.5.22", "0.5.23"])
def test_each_registry_is_the_command_lines_choices_less_the_rewritten_aliases(release):
    """A release's attention registry and its --attention-backend choices differ only by the
    deprecated spellings its resolution rewrites (compressed; tokenspeed_mla from 0.5.23), so a
    backend added to one table and not the other shows here."""
    from launchplan.checks.kernel_requirements import REGISTERED_ATTENTION_BACKENDS
    from launchplan.input.fields import FIELDS, SGLANG_VERSION, release_table

    table = FIELDS if release == SGLANG_VERSION else release_table(release).fields
    aliases = {"compressed"} | ({"tokenspeed_mla"} if release == "0.5.23" else set())
    choices = set(table["attention_backend"].choices)
    assert REGISTERED_ATTENTION_BACKENDS[release] == choices - aliases


def test_a_hisparse_config_the_pools_accept_is_no_problem(capsys):
    for config in ('{"host_to_device_ratio": 4}', '{"top_k": 1024, "swap_in_block_size": 1}'):
        _, plan = plan_json(["--gpu", "h200", "--model-path", "deepseek-ai/DeepSeek-V3.2",
                             "--tp-size", "8", "--enable-hisparse", "--disable-radix-cache",
                             "--hisparse-config", config], capsys)
        assert "hisparse-config" not in json.dumps(plan["preflight"])
    # without --enable-hisparse nothing reads the text
    _, plan = plan_json(["--gpu", "h200", "--model-path", "llama-3.1-8b",
                         "--hisparse-config", "{x"], capsys)
    assert "hisparse-config" not in json.dumps(plan["preflight"])


def test_dspark_drafts_markov_rank_is_read_where_each_release_reads_it(capsys):
    dspark = ["--gpu", "h100", "--model-path", "qwen3-8b", "--speculative-algorithm", "DSPARK",
              "--speculative-draft-model-path", str(DRAFTS / "qwen3-8b-dspark")]
    for compat, fails in (("0.5.23", False), ("0.5.22", True), ("0.5.21", True)):
        _, plan = plan_json(dspark + ["--compat", compat], capsys)
        assert ("dspark-markov-rank" in json.dumps(plan["preflight"])) is fails, compat
        if fails:  # no flag avoids it: the draft's config must carry the rank elsewhere
            assert plan["preflight"]["verdict"] == "fails-at-start"
    code, _, err = cli(["resolve", *dspark, "--compat", "0.5.22", "--strict"], capsys)
    assert code == 3 and "dspark-markov-rank" in err


def test_a_draft_reading_target_layers_the_target_lacks_fails_at_start(capsys):
    # z-lab's Qwen3-4B DFlash draft reads layers up to 33; Llama-3.2-3B has 28
    dflash = ["--gpu", "h100", "--speculative-algorithm", "DFLASH",
              "--speculative-draft-model-path", str(DRAFTS / "qwen3-4b-dflash-b16")]
    _, plan = plan_json(dflash + ["--model-path", "llama-3.2-3b"], capsys)
    problem = next(p for p in plan["preflight"]["problems"]
                   if p["requirement"] == "draft-target-layers")
    assert problem["severity"] == "fails-at-start" and "33" in problem["why"]
    _, plan = plan_json(dflash + ["--model-path", "qwen3-4b"], capsys)
    assert "draft-target-layers" not in json.dumps(plan["preflight"])


def test_transformers_format_llava_starts_only_with_pixtral_tower(tmp_path):
    """SGLang builds a LlavaForConditionalGeneration tower with the SGLang class its registry
    holds for the vision config's transformers class: only Pixtral's exists, so LLaVA 1.5 in
    transformers' format (a CLIP tower) fails when the model is built (a meta build of SGLang's
    class raised for it on every recorded launch), and a SigLIP tower would too."""
    models = Path(__file__).parents[1] / "parity" / "models"
    clip = preflight(resolve(gpu="h100", model_path=str(models / "llava-1.5-7b-hf")))
    (problem,) = [p for p in clip.problems if p.requirement == "llava-tower-class"]
    assert problem.severity is Severity.FAILS_AT_START and not clip.starts
    assert "clip_vision_model" in problem.why
    config = json.loads((models / "llava-1.5-7b-hf" / "config.json").read_text())
    config["vision_config"] = {"model_type": "siglip_vision_model", "hidden_size": 1152,
                               "num_hidden_layers": 27, "intermediate_size": 4304}
    (tmp_path / "config.json").write_text(json.dumps(config))
    siglip = preflight(resolve(gpu="h100", model_path=str(tmp_path)))
    assert "llava-tower-class" in {p.requirement for p in siglip.problems}
    mistral3 = preflight(resolve(gpu="h100", model_path=str(
        models / "mistral-small-3.1-24b-instruct")))
    assert "llava-tower-class" not in {p.requirement for p in mistral3.problems}


@pytest.mark.parametrize("name, starts", [("google/siglip-so400m-patch14-384", True),
                                          ("/models/clip-vit-large-patch14-336", True),
                                          ("facebook/dinov2-large", False), (None, False)])
def test_llava_classes_need_a_tower_name_they_can_load(tmp_path, name, starts):
    """SGLang's own LLaVA classes load their tower by mm_vision_tower's name: one holding
    "clip" or "siglip" loads, anything else (or no name) leaves no tower and the load stops."""
    models = Path(__file__).parents[1] / "parity" / "models"
    config = json.loads((models / "llava-onevision-qwen2-7b-ov" / "config.json").read_text())
    if name is None:
        del config["mm_vision_tower"]
    else:
        config["mm_vision_tower"] = name
    (tmp_path / "config.json").write_text(json.dumps(config))
    verdict = preflight(resolve(gpu="h100", model_path=str(tmp_path)))
    assert ("llava-named-tower" not in {p.requirement for p in verdict.problems}) == starts


@pytest.mark.parametrize("compat, argv, starts", [
    ("default", [], False), ("0.5.22", [], False), ("default", ["--trust-remote-code"], True),
    ("0.5.21", [], True)])
def test_mimo_v2_flash_needs_its_own_config_class(compat, argv, starts):
    """SGLang's MiMo-V2 attention hands config.rope_scaling to the RoPE cache as one mapping;
    transformers 5.19 (0.5.22's and 0.5.23's pin) builds MiMo-V2-Flash's config natively with
    the RoPE parameters nested per layer type, and the cache key cannot hold them (a meta build
    of SGLang's class raised on both releases). The checkpoint's own config class, read under
    --trust-remote-code, keeps them flat; 0.5.21's transformers has no native class."""
    verdict = preflight(resolve(["--tp-size", "8", *argv], gpu="h200",
                                model_path="XiaomiMiMo/MiMo-V2-Flash", compat=compat))
    names = {p.requirement for p in verdict.problems}
    assert ("rope-config-class" not in names) == starts


@pytest.mark.parametrize("argv", [[], ["--trust-remote-code"]])
def test_longcat_flash_rope_settings_break_the_build_whatever_the_flags(argv):
    """SGLang's own LongcatFlashConfig (read whatever --trust-remote-code says) leaves
    rope_parameters None under transformers 5.19, and the model's decoder layers test it for
    rope_theta: a meta build of SGLang's class raised on 0.5.23 and 0.5.22 (for the fixture and
    for a copy with rope_theta at the top, as the published file has it)."""
    longcat = str(DRAFTS / "longcat-flash-chat")
    for compat in ("default", "0.5.22"):
        verdict = preflight(resolve(["--tp-size", "8", *argv], gpu="b200", model_path=longcat,
                                    compat=compat))
        (problem,) = [p for p in verdict.problems if p.requirement == "rope-config-class"]
        assert "no flag avoids it" in problem.why and not verdict.starts
    older = preflight(resolve(["--tp-size", "8"], gpu="b200", model_path=longcat,
                              compat="0.5.21"))
    assert "rope-config-class" not in {p.requirement for p in older.problems}


@pytest.mark.parametrize(("model", "tp", "rows"), [
    ("llama-3.1-8b", "6", {"attention-heads-split", "dense-mlp-split"}),
    ("qwen3-30b-a3b", "5", {"attention-heads-split", "moe-experts-split"}),
])
def test_the_cpu_pads_a_tp_size_that_does_not_divide_the_model(model, tp, rows):
    """SGLang's CPU guide runs one TP rank per sub-NUMA cluster (``--tp 6``): the model
    runner pads heads and MLP widths to the TP size on ``--device cpu`` (update_config.py,
    adjust_config_with_unaligned_cpu_tp), so the split rows fail only off the CPU."""
    on_gpu = {p.requirement for p in preflight(resolve(
        ["--tp-size", tp], gpu="h100", model_path=model)).problems}
    assert rows <= on_gpu
    on_cpu = {p.requirement for p in preflight(resolve(
        ["--tp-size", tp, "--device", "cpu"], gpu="h100", model_path=model)).problems}
    assert not rows & on_cpu
    # the experts' count over EP is not padded: 128 experts over ep 5 still fail
    if model == "qwen3-30b-a3b":
        ep = {p.requirement for p in preflight(resolve(
            ["--tp-size", tp, "--ep-size", tp, "--device", "cpu"], gpu="h100",
            model_path=model)).problems}
        assert "moe-experts-split" in ep


def test_a_config_schema_the_release_does_not_read_is_said():
    """ZAYA1-8B's transformers-native config.json (the Hub's file now) gives
    ``moe_intermediate_size`` and ``layer_types``; every release's ZayaConfig reads
    ``ffn_hidden_size``/``cca`` and keeps its defaults: another geometry than the
    checkpoint's. The legacy file (the first published) is read."""
    models = Path(__file__).parents[1] / "parity" / "models"
    native = preflight(resolve([], gpu="h100", model_path=str(models / "zaya1-8b-native")))
    found = [p for p in native.problems if p.requirement == "config-schema-read"]
    assert found and "moe_intermediate_size" in found[0].why
    legacy = preflight(resolve([], gpu="h100", model_path=str(models / "zaya1-8b")))
    assert "config-schema-read" not in {p.requirement for p in legacy.problems}
