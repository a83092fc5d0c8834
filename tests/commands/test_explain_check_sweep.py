"""explain, check and sweep, through the command entry point."""

from __future__ import annotations

import json

import pytest

from launchplan.commands.main import main

B200 = ["--gpu", "b200", "--model-path", "llama-3.1-8b"]


def cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_page_size_names_each_rule_and_the_override(capsys):
    code, out, _ = cli(["explain", "page_size", *B200, "--prefill-attention-backend", "fa4",
                        "--page-size", "16", "--format", "json"], capsys)
    assert code == 0
    item = json.loads(out)
    assert item["input"] == 16 and item["resolved"] == 128
    assert [s["source"] for s in item["steps"]] == ["fa4_page_constraint"]
    step = item["steps"][0]
    assert step["facts"]["target.is_sm100"] is True and step["facts"]["model.is_mla"] is False
    assert step["reads"]["prefill_attention_backend"] == "fa4"
    assert item["override"]["source"] == "fa4_page_constraint"
    assert "--cuda-graph-backend-prefill full" in item["override"]["kept_by"]


EAGLE_TOPK4 = ["--speculative-algorithm", "EAGLE", "--speculative-eagle-topk", "4",
               "--speculative-num-steps", "3", "--speculative-num-draft-tokens", "8",
               "--speculative-draft-model-path", "llama-3.1-8b-eagle"]


def test_explain_says_why_a_rule_that_can_set_the_field_did_not(capsys):
    """fa4 on B200 forces page 128 unless EAGLE runs with top-k above 1: asked why
    page_size stayed 1, explain names the FA4 rule as one that ran and left it, with the
    top-k it read, and a rule whose trigger did not hold as not asked."""
    code, out, _ = cli(["explain", "page_size", *B200, "--attention-backend", "fa4",
                        *EAGLE_TOPK4, "--format", "json"], capsys)
    assert code == 0
    item = json.loads(out)
    assert item["resolved"] == 1
    rows = {row["source"]: row for row in item["not_applied"]}
    fa4 = rows["fa4_page_constraint"]
    assert fa4["ran"] and fa4["reads"]["speculative_eagle_topk"] == 4
    assert all(row["source"] not in {s["source"] for s in item["steps"]}
               for row in item["not_applied"])
    assert item["not_for_this"] > 0  # the ROCm/NPU/XPU-only ones, counted
    code, text, _ = cli(["explain", "page_size", *B200, "--attention-backend", "fa4",
                         *EAGLE_TOPK4], capsys)
    assert code == 0 and "fa4_page_constraint: ran and left it" in text
    code, out, _ = cli(["explain", "attention_backend", *B200, "--format", "json"], capsys)
    asked = {row["source"]: row for row in json.loads(out)["not_applied"] if not row["ran"]}
    assert "enable_deterministic_inference" in asked["deterministic_attention_backend"][
        "reason"]
    assert all(row["reason"].startswith("not asked") for row in asked.values())


def test_explain_table_and_graph_keys(capsys):
    code, out, _ = cli(["explain", "cuda_graph_config.prefill.backend", *B200,
                        "--attention-backend", "torch_native",
                        "--cuda-graph-backend-prefill", "breakable"], capsys)
    assert code == 0
    assert "eager_backend_graph_disable" in out and "overridden" in out


def test_explain_all_covers_every_changed_field(capsys):
    code, out, _ = cli(["explain", "--all", *B200, "--format", "json"], capsys)
    assert code == 0
    fields = {item["field"] for item in json.loads(out)["explanations"]}
    assert {"attention_backend", "page_size", "mem_fraction_static"} <= fields


def test_explain_unknown_field_is_bad_input(capsys):
    code, _, err = cli(["explain", "page_sise", *B200], capsys)
    assert code == 2 and "page_size" in err


def test_explain_takes_the_field_written_last(capsys):
    """``explain ... --attention-backend fa4 page_size`` names the field last; a word a
    flag before it takes as its value is that flag's, and no field is named then."""
    for tail in ([], ["--format", "json"]):  # launchplan's own options may follow it
        code, out, _ = cli(["explain", *B200, "--attention-backend", "fa4", "page_size",
                            *tail, *(["--format", "json"] if not tail else [])], capsys)
        assert code == 0 and json.loads(out)["resolved"] == 128
    code, out, _ = cli(["explain", *B200, "--format", "json", "--trust-remote-code",
                        "page_size"], capsys)
    assert code == 0 and json.loads(out)["field"] == "page_size"
    code, _, err = cli(["explain", *B200, "--served-model-name", "page_size"], capsys)
    assert code == 2 and "name a FIELD" in err


@pytest.mark.parametrize(("compat", "finds_c1"), [("0.5.23", True), ("default", False)])
def test_check_finds_c1_only_under_0_5_23(compat, finds_c1, capsys):
    code, out, _ = cli(["check", "--gpu", "b200", "--model-path", "llama-3.1-8b",
                        "--axis", "attention_backend=fa4", "--axis", "page_size=unset",
                        "--axis", "cuda_graph_backend_prefill=unset,full",
                        "--axis", "kv_cache_dtype=unset", "--axis", "tp_size=unset",
                        "--axis", "speculative_algorithm=unset",
                        "--compat", compat, "--format", "json", "--jobs", "1"], capsys)
    report = json.loads(out)
    c1 = [p for p in report["problems"] if p["requirement"] == "full-prefill-graph-fa-page-1"
          and "fa4_page_constraint" in p["sources"]]
    assert bool(c1) == finds_c1
    assert code == (1 if report["failing"] else 0)
    if finds_c1:
        assert c1[0]["example"]["argv"] == ["--attention-backend", "fa4",
                                            "--cuda-graph-backend-prefill", "full"]


def test_check_finds_the_neighbour_under_default_rules(capsys):
    _, out, _ = cli(["check", "--gpu", "b200", "--model-path", "llama-3.1-8b",
                     "--axis", "prefill_attention_backend=fa4",
                     "--axis", "cuda_graph_backend_prefill=full", "--format", "json",
                     "--jobs", "1"], capsys)
    report = json.loads(out)
    assert any(p["requirement"] == "full-prefill-graph-fa-page-1"
               and p["sources"] == ["backend_page_snaps"] for p in report["problems"])


def test_check_sample_and_bad_axis(capsys):
    code, out, _ = cli(["check", "--sample", "40", "--seed", "2", "--format", "json",
                        "--jobs", "1"], capsys)
    assert json.loads(out)["points"] == 40 and code in (0, 1)
    code, _, err = cli(["check", "--axis", "page_sise=1,2"], capsys)
    assert code == 2 and "page_size" in err


def test_sweep_example_from_the_issue(capsys):
    code, out, _ = cli(["sweep", *B200, "--axis", "attention_backend=fa4,trtllm_mha",
                        "--axis", "page_size=1,16,32,64,128", "--format", "json"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["points"] == 10 and len(report["distinct"]) == 5
    fa4 = next(g for g in report["distinct"] if g["config"]["attention_backend"] == "fa4")
    assert len(fa4["points"]) == 5 and fa4["collapsed_by"] == ["fa4_page_constraint"]
    snapped = next(g for g in report["distinct"] if g["config"]["attention_backend"]
                   == "trtllm_mha" and g["config"]["page_size"] == 64)
    assert {p["page_size"] for p in snapped["points"]} == {1, 64}
    assert snapped["collapsed_by"] == ["backend_page_snaps"]


def test_sweep_groups_refusals_and_sweeps_gpus(capsys):
    code, out, _ = cli(["sweep", "--model-path", "llama-3.1-8b", "--axis", "gpu=a100,h100",
                        "--axis", "attention_backend=trtllm_mha", "--format", "json"], capsys)
    report = json.loads(out)
    assert report["points"] == 2 and len(report["refused"]) == 1
    assert report["refused"][0]["points"] == [{"gpu": "a100", "attention_backend": "trtllm_mha",
                                               "verdict": "refused"}]


def test_sweep_csv_and_table(capsys):
    code, out, _ = cli(["sweep", *B200, "--axis", "page_size=1,64", "--format", "csv"], capsys)
    assert code == 0 and out.splitlines()[0].startswith("group,page_size")
    code, out, _ = cli(["sweep", *B200, "--axis", "page_size=1,64"], capsys)
    assert code == 0 and "distinct configurations" in out


def test_sweep_and_check_read_a_hub_id_as_resolve_does(capsys):
    """A pasted Hugging Face id of a bundled model works in sweep and check as in resolve."""
    code, out, _ = cli(["sweep", "--gpu", "h100", "--model-path",
                        "meta-llama/Llama-3.1-8B-Instruct", "--axis", "page_size=1,64",
                        "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["points"] == 2
    code, out, _ = cli(["check", "--gpu", "h100", "--axis", "model=Qwen/Qwen3-8B",
                        "--sample", "5", "--format", "json"], capsys)
    assert code in (0, 1) and json.loads(out)["points"] == 5


def test_explain_counts_apart_only_rules_not_for_this_target_or_model():
    """A writer left out of the walk because no trigger of it can hold for the input's shape
    is listed as not asked; only rules whose ``archs``/``applies`` exclude the target or
    model are counted as not for it."""
    from launchplan import resolve
    from launchplan.explain import explain_field, rule_specs
    from launchplan.facts.targets import get_target

    result = resolve(["--attention-backend", "fa4"], gpu="b200", model_path="llama-3.1-8b",
                     trace=True)
    for field in ("attention_backend", "page_size", "chunked_prefill_size"):
        item = explain_field(result, field)
        named = {row["source"] for row in item["not_applied"]}
        named |= {step["source"] for step in item["steps"]}
        named |= {d.source for d in result.chain(field)}
        rest = [s for n, s in rule_specs("default").items()
                if field in s.writes and n not in named]
        assert len(rest) == item["not_for_this"]
        assert not any(s.admits(get_target("b200"), result.record.model) for s in rest)


def test_a_sweep_grid_past_the_bound_is_refused_before_any_point_resolves(capsys):
    """Every point of a sweep is resolved, kept and listed: a grid of four million once ran for
    ten minutes towards ten GB. Past ``MAX_SWEEP_POINTS`` it is one line pointing at check."""
    from launchplan.commands.sweep import MAX_SWEEP_POINTS

    side = int(MAX_SWEEP_POINTS ** 0.5) + 1
    values = ",".join(str(i) for i in range(1, side + 1))
    code = main(["sweep", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                 "--axis", f"page_size={values}", "--axis", f"max_running_requests={values}"])
    err = capsys.readouterr().err
    assert code == 2 and f"got {side * side:,}" in err and "check --sample" in err
