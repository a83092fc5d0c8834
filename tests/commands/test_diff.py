"""``launchplan diff``: two rule sets, or two launches; only what differs, with its rule."""

from __future__ import annotations

import json

from launchplan.commands.main import main

B200 = ["--gpu", "b200", "--model-path", "llama-3.1-8b"]


def run(argv, capsys):
    code = main(["diff", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_two_rule_sets_show_the_fa4_fix_with_its_rule(capsys):
    code, out, _ = run([*B200, "--attention-backend", "fa4", "--cuda-graph-backend-prefill",
                        "full", "--compat", "0.5.23", "--to", "default", "--format", "json"],
                       capsys)
    data = json.loads(out)
    assert code == 1
    assert data["left"]["compat"] == "0.5.23" and data["right"]["compat"] == "default"
    page = next(d for d in data["differences"] if d["field"] == "page_size")
    assert (page["left"], page["right"]) == (128, 1)
    assert page["left_source"] == "fa4_page_constraint"
    assert page["right_source"] == "page_size_default"
    assert page["left_why"]
    assert set(page) == {"field", "left", "right", "left_source", "right_source", "left_why",
                         "right_why", "left_why_not", "right_why_not"}
    # the default rules' fa4 rule ran before the default and left page_size: its condition
    # (the full prefill graph exempts) and what it read say why; the left side's default
    # rule ran after fa4 had set it, which says nothing
    assert page["right_why_not"].startswith("fa4_page_constraint ran here and left it")
    assert "prefill CUDA graph is not" in page["right_why_not"]
    assert "cuda_graph_config.prefill.backend=full" in page["right_why_not"]
    assert page["left_why_not"] == ""
    code, text, _ = run([*B200, "--attention-backend", "fa4", "--cuda-graph-backend-prefill",
                         "full", "--compat", "0.5.23", "--to", "default"], capsys)
    assert "page_size (right): fa4_page_constraint ran here and left it" in " ".join(
        text.split())


def test_two_launches_and_equal_plans(capsys):
    code, out, _ = run([*B200, "--kv-cache-dtype", "fp8_e4m3", "--", "--tp-size", "2",
                        "--format", "json"], capsys)
    fields = {d["field"] for d in json.loads(out)["differences"]}
    assert code == 1 and {"kv_cache_dtype", "tp_size"} <= fields
    assert "memory.max_total_num_tokens" in fields
    code, out, _ = run([*B200, "--tp-size", "2", "--", "--tp-size", "2"], capsys)
    assert code == 0 and "the plans are the same" in out


def test_targets_and_models_may_differ(capsys):
    code, out, _ = run(["--gpu", "h100", "--model-path", "llama-3.1-8b", "--", "--gpu", "b200",
                        "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 1 and data["right"]["gpu"] == "b200"
    backend = next(d for d in data["differences"] if d["field"] == "attention_backend")
    assert backend["left"] != backend["right"]


def test_a_refused_side_is_a_difference_and_bad_input_is_exit_2(capsys):
    code, out, _ = run(["--gpu", "h100", "--model-path", "deepseek-v3", "--", "--attention-backend",
                        "trtllm_mla", "--format", "json"], capsys)
    (first,) = json.loads(out)["differences"]
    assert code == 1 and first["right"].startswith("refused")
    code, _, err = run([*B200, "--to", "0.4.0"], capsys)
    assert code == 2 and "--compat" in err or "0.4.0" in err


def test_flags_only_one_release_has_are_listed_apart(capsys):
    """A flag 0.5.23 added, left at its default, is not a change in the launch: it is listed
    under release_only, and the DeepSeek prefill-graph change stays the difference."""
    argv = ["--gpu", "b200", "--model-path", "deepseek-v3", "--tp-size", "8",
            "--compat", "0.5.22", "--to", "0.5.23"]
    code, out, _ = run([*argv, "--format", "json"], capsys)
    data = json.loads(out)
    fields = {d["field"] for d in data["differences"]}
    only = {(d["side"], d["field"]) for d in data["release_only"]}
    assert code == 1 and "cuda_graph_config.prefill.max_bs" in fields
    assert ("right", "enable_paged_experts") in only
    assert ("left", "speculative_skip_dp_mlp_sync") in only
    assert not fields & {f for _, f in only}
    code, out, _ = run(argv, capsys)
    assert "flags only one release has, at their defaults" in out
    # a flag only one release has, given explicitly, is a real difference
    code, out, _ = run(["--gpu", "b200", "--model-path", "deepseek-v3", "--compat", "0.5.23",
                        "--tp-size", "8", "--enable-paged-experts", "--", "--compat", "0.5.22",
                        "--tp-size", "8", "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 1
    assert "enable_paged_experts" in {d["field"] for d in data["differences"]}
    assert "enable_paged_experts" not in {d["field"] for d in data["release_only"]}


def test_from_names_the_left_release_as_migrate_spells_it(capsys):
    argv = [*B200, "--attention-backend", "fa4", "--cuda-graph-backend-prefill", "full",
            "--to", "default", "--format", "json"]
    code, out, _ = run([*argv, "--from", "0.5.23"], capsys)
    assert code == 1 and json.loads(out)["left"]["compat"] == "0.5.23"
    assert json.loads(out) == json.loads(run([*argv, "--compat", "0.5.23"], capsys)[1])
    code, _, err = run([*argv, "--from", "0.5.20"], capsys)
    assert code == 2 and "--from" in err and "0.5.21" in err
    code, _, err = run([*argv, "--from", "0.5.21", "--compat", "0.5.22"], capsys)
    assert code == 2 and "--compat 0.5.22" in err

