"""Older SGLang flags get their exact replacement, not a did-you-mean."""

from __future__ import annotations

import pytest

from launchplan.commands.main import main
from launchplan.input.migrations import MIGRATIONS


@pytest.mark.parametrize("flag", sorted(MIGRATIONS))
def test_each_old_flag_names_its_replacement(flag, capsys):
    code = main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", flag])
    out, err = capsys.readouterr()
    if code == 0:  # a unique prefix of a current switch (--enable-flashinfer): a notice
        err = " ".join(out.split())
        assert f"{flag} is read as --" in err and "not as the old flag" in err
    else:
        assert code == 2 and err.count("\n") == 1
    entry = MIGRATIONS[flag]
    if entry.new:
        assert f"use {entry.new}" in err
    else:  # removed outright: the release and what to do instead
        assert f", removed in {entry.since} (" in err and "drop it" in err
    assert "did you mean" not in err


def test_the_flags_removed_between_the_modeled_releases_are_all_named():
    # every flag 0.5.21 or 0.5.22 accepts that 0.5.23 does not has an entry saying so
    from launchplan.input.fields import RELEASES, release_table

    latest = set(release_table(RELEASES[-1]).flag_to_field)
    for older in RELEASES[:-1]:
        for flag in set(release_table(older).flag_to_field) - latest:
            entry = MIGRATIONS.get(flag)
            assert entry is not None and entry.since, flag
            assert flag not in release_table(entry.since).flag_to_field
            before = RELEASES[RELEASES.index(entry.since) - 1]
            assert flag in release_table(before).flag_to_field


def test_a_removed_flag_is_still_accepted_by_the_release_that_had_it(capsys):
    assert main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", "--compat",
                 "0.5.21", "--cuda-graph-tc-compiler", "eager", "--format", "json"]) == 0
    capsys.readouterr()


def test_a_flag_no_release_has_gets_a_pointer_not_a_did_you_mean(capsys):
    assert main(["resolve", "--gpu", "h100", "--model-path", "qwen3-8b",
                 "--disable-mamba-scheduler"]) == 2
    err = capsys.readouterr().err
    assert "not a flag of any SGLang release" in err and "--mamba-radix-cache-strategy" in err
    assert "did you mean" not in err


@pytest.mark.parametrize("argv, new", [
    (["--mamba-scheduler-strategy", "extra_buffer"],
     ["--mamba-radix-cache-strategy", "extra_buffer"]),
    (["--nsa-prefill-backend=flashmla_sparse", "--nsa-decode-backend", "fa3"],
     ["--dsa-prefill-backend", "flashmla_sparse", "--dsa-decode-backend", "fa3"]),
    (["--tp", "8", "--enable-nsa-prefill-context-parallel"],
     ["--tp", "8", "--enable-prefill-cp", "--cp-strategy", "interleave"]),
    (["--enable-nsa-prefill-context-parallel", "--nsa-prefill-cp-mode", "in-seq-split"],
     ["--enable-prefill-cp", "--cp-strategy", "zigzag"]),
    (["--cuda-graph-tc-compiler", "inductor", "--tp", "2"], ["--tp", "2"]),
    (["--speculative-skip-dp-mlp-sync", "--tp", "2"], ["--tp", "2"]),
])
def test_rewrite_carries_values_and_drops_removed_flags(argv, new):
    from launchplan.input.migrations import rewrite

    out, notes = rewrite(argv)
    assert out == new and notes
    from launchplan.input.cli import parse_argv

    assert parse_argv(out) is not None  # SGLang 0.5.23's parser takes the new line


def test_rewrite_keeps_a_flag_the_target_release_still_has():
    from launchplan.input.migrations import rewrite

    assert rewrite(["--cuda-graph-tc-compiler", "eager"], "0.5.21") == (
        ["--cuda-graph-tc-compiler", "eager"], [])
    assert rewrite(["--speculative-skip-dp-mlp-sync"], "0.5.22")[0] == [
        "--speculative-skip-dp-mlp-sync"]
    assert rewrite(["--speculative-skip-dp-mlp-sync"], "0.5.23")[0] == []


def test_the_replacement_works_when_followed(capsys):
    for argv in (["--cuda-graph-max-bs-decode", "64"], ["--moe-runner-backend",
                                                        "flashinfer_cutlass"],
                 ["--attention-backend", "triton", "--sampling-backend", "pytorch"]):
        code = main(["resolve", "--gpu", "b200", "--model-path", "qwen3-30b-a3b", *argv,
                     "--format", "json"])
        capsys.readouterr()
        assert code == 0, argv


@pytest.mark.parametrize("flag", sorted(MIGRATIONS))
def test_each_replacement_is_a_command_line_sglang_accepts(flag):
    from launchplan.input.cli import parse_argv

    if not MIGRATIONS[flag].new:
        return  # removed without a replacement
    words = ["8" if w == "N" else w for w in MIGRATIONS[flag].new.split()
             if not w.startswith("(") and w not in ("[N", "...]", "=", "--tp-size)")]
    words = [w.split("|")[0] for w in words]  # one of the choices named
    if words[-1] == "8" and words[0] in ("--mamba-radix-cache-strategy",):
        words[-1] = "auto"
    if words[0] in ("--dsa-prefill-backend", "--dsa-decode-backend"):
        words[-1] = "flashmla_sparse"
    parsed = parse_argv(words)  # bad input would raise, naming the flag
    assert parsed.values, words


def _old_flags() -> dict:
    import json
    from pathlib import Path

    import launchplan.input

    path = Path(launchplan.input.__file__).parent / "data" / "sglang-old-flags.json"
    return json.loads(path.read_text())


def test_every_flag_of_the_older_releases_is_accepted_or_named():
    # the flags of every SGLang wheel from 0.3.0 to 0.5.20 (tools/old_sglang_flags.py): each one
    # 0.5.23 does not accept has an entry, with the first wheel without it as its release
    from launchplan.input.fields import RELEASES, release_table

    data = _old_flags()
    releases = data["releases"]
    current = set(release_table().flag_to_field) | {"--config"}
    missing = []
    for flag, (_, last) in data["flags"].items():
        if flag in current:
            continue
        entry = MIGRATIONS.get(flag)
        if entry is None:
            missing.append(flag)
            continue
        if any(flag in release_table(r).flag_to_field for r in RELEASES):
            continue  # removed between the modeled releases: the test above checks those
        following = releases[releases.index(last) + 1] if last != releases[-1] else RELEASES[0]
        assert entry.since == following, (flag, entry.since, following)
    assert not missing, missing
    assert len(data["flags"]) > 600 and len(releases) >= 38


@pytest.mark.parametrize("argv, new", [
    (["--file-storage-pth", "/srv/f"], ["--file-storage-path", "/srv/f"]),
    (["--nsa-prefill", "flashmla_prefill", "--nsa-decode=flashmla_decode"],
     ["--dsa-prefill-backend", "flashmla_sparse", "--dsa-decode-backend", "flashmla_kv"]),
    (["--piecewise-cuda-graph-tokens", "64", "128", "--tp", "2"],
     ["--cuda-graph-bs-prefill", "64", "128", "--tp", "2"]),
    (["--enable-double-sparsity", "--ds-heavy-channel-num", "16", "--tp", "2"], ["--tp", "2"]),
    (["--hybrid-kvcache-ratio", "0.5", "--tp", "2"], ["--tp", "2"]),
    (["--enable-deepep-waterfill"], ["--enable-waterfill", "--moe-a2a-backend", "deepep"]),
    (["--stream-output", "--torchao-config", "int4wo-128"], ["--incremental-streaming-output"]),
    (["--additional-ports", "30001", "30002", "--max-torch-compile-bs", "32"],
     ["--torch-compile-max-bs", "32"]),
])
def test_older_releases_flags_rewrite_to_a_line_0_5_23_parses(argv, new):
    from launchplan.input.cli import parse_argv
    from launchplan.input.migrations import rewrite

    out, notes = rewrite(argv)
    assert out == new and len(notes) == sum(t.startswith("--") and t.partition("=")[0]
                                            in MIGRATIONS for t in argv)
    parse_argv(out)


def test_a_retired_flag_that_prefixes_a_current_one_is_named(capsys):
    # --return-hidden-states (0.4.3) is a unique prefix of 0.5.23's --return-hidden-states-mode:
    # argparse reads it as that flag, so the bare switch is refused for a missing value
    assert main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                 "--return-hidden-states"]) == 2
    err = capsys.readouterr().err
    assert "use --enable-return-hidden-states" in err and "--return-hidden-states-mode" in err
    from launchplan.input.cli import parse_argv

    raw = parse_argv(["--return-hidden-states", "last"])
    assert any("read as --return-hidden-states-mode" in n for n in raw.notices)


def test_an_older_flag_removed_without_replacement_says_so(capsys):
    assert main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                 "--enable-double-sparsity"]) == 2
    err = capsys.readouterr().err
    assert "removed in 0.5.11" in err and "no replacement: drop it" in err


def test_attention_dp_keeps_its_switch_for_a_release_without_attn_dp_size():
    # --attn-dp-size came in 0.5.22: for 0.5.21 the switch and --dp stay as they are
    from launchplan.input.cli import parse_argv
    from launchplan.input.migrations import rewrite

    old = ["--tp", "8", "--enable-dp-attention", "--dp", "8"]
    assert rewrite(old, "0.5.21") == (old, [])
    assert rewrite(old, "0.5.22")[0] == ["--tp", "8", "--attn-dp-size", "8"]
    parse_argv(rewrite(old + ["--cuda-graph-max-bs", "64"], "0.5.21")[0], "0.5.21")


def test_every_replacement_flag_exists_in_each_modeled_release():
    # migrate --to R writes only flags R has
    from launchplan.input.fields import RELEASES, release_table

    for release in RELEASES:
        flags = release_table(release).flag_to_field
        for entry in MIGRATIONS.values():
            named = [w.rstrip(")") for w in entry.new.split() if w.startswith("--")]
            assert all(w in flags for w in named), (release, entry.old, named)


def test_every_value_the_modeled_releases_retired_is_named():
    from launchplan.input.fields import RELEASES, release_table
    from launchplan.input.migrations import RETIRED_VALUES

    latest = release_table(RELEASES[-1])
    for older in RELEASES[:-1]:
        for name, spec in release_table(older).fields.items():
            now = latest.fields.get(name)
            if not (spec.choices and now and now.choices):
                continue
            for value in set(map(str, spec.choices)) - set(map(str, now.choices)):
                assert any((flag, value) in RETIRED_VALUES for flag in spec.flags), (name, value)


@pytest.mark.parametrize("argv, to, new", [
    (["--cuda-graph-backend-prefill", "tc_piecewise", "--cuda-graph-tc-compiler", "eager",
      "--tp", "2"], "0.5.23", ["--tp", "2"]),
    (["--cuda-graph-backend-decode=tc_piecewise"], "0.5.22", []),
    (["--cuda-graph-backend-decode", "tc_piecewise"], "0.5.21",
     ["--cuda-graph-backend-decode", "tc_piecewise"]),
    (["--cuda-graph-config", '{"prefill": {"backend": "tc_piecewise", "tc_compiler": "eager", '
      '"max_bs": 64}, "decode": {"tc_compiler": "eager"}}'], "0.5.23",
     ["--cuda-graph-config", '{"prefill": {"max_bs": 64}}']),
])
def test_a_retired_value_is_dropped_for_a_release_that_refuses_it(argv, to, new):
    from launchplan.input.cli import parse_argv
    from launchplan.input.migrations import rewrite

    out, notes = rewrite(argv, to)
    assert out == new and (notes or new == argv)
    parse_argv(out, to)


def test_attention_dp_takes_the_last_of_the_data_parallel_spellings():
    # --dp, --dp-size and --data-parallel-size are one field: the last wins, none may stay
    from launchplan.input.migrations import rewrite

    out, notes = rewrite(["--tp", "2", "--enable-dp-attention", "--dp-size", "2", "--page-size",
                          "1", "--enable-dp-attention", "--dp", "8"])
    assert out == ["--tp", "2", "--page-size", "1", "--attn-dp-size", "8"] and len(notes) == 1


def test_disable_flashinfer_was_the_attention_backend_only():
    # 0.3.x set attention_backend = "triton" for it; sampling kept FlashInfer unless
    # --disable-flashinfer-sampling was given too
    from launchplan.input.migrations import rewrite

    assert rewrite(["--disable-flashinfer"])[0] == ["--attention-backend", "triton"]
    assert rewrite(["--disable-flashinfer", "--disable-flashinfer-sampling"])[0] == [
        "--attention-backend", "triton", "--sampling-backend", "pytorch"]


def test_the_enable_piecewise_switch_was_a_no_op_and_is_dropped():
    # 0.5.13 deprecated it as already the default; naming breakable instead would also skip
    # the conditions that switch the prefill graph off
    from launchplan.input.migrations import rewrite

    out, notes = rewrite(["--tp", "2", "--enable-piecewise-cuda-graph"])
    assert out == ["--tp", "2"] and "no-op" in notes[0]


def test_every_entry_says_where_it_is_read_from():
    assert all(entry.source and entry.since for entry in MIGRATIONS.values())


def test_two_retired_flags_rewritten_to_one_flag_keep_only_the_last():
    from launchplan.input.migrations import rewrite

    out, notes = rewrite(["--enable-flashinfer-mla", "--disable-flashinfer", "--tp", "2"],
                         to="0.5.23")
    assert out == ["--attention-backend", "triton", "--tp", "2"]
    assert any("--attention-backend flashinfer left out" in n for n in notes)


def test_a_choice_a_release_retired_is_named_with_what_replaced_it(capsys):
    # SGLang's own quantized-KV docs still write fp4_e2m1; its spelling is closest to
    # fp8_e5m2, which is no FP4 cache at all
    from launchplan.commands.main import main

    code = main(["resolve", "--gpu", "b200", "python3 -m sglang.launch_server --model-path "
                 "deepseek-r1 --kv-cache-dtype fp4_e2m1"])
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert code == 2 and first.startswith("launchplan: --kv-cache-dtype: ")
    assert "fp4_mx_block16" in first.split("got 'fp4_e2m1'")[1]
    assert "did you mean" not in first


@pytest.mark.parametrize("argv, new", [
    # 0.5.18's choices have cutlass_mla, 0.5.20's not: sgl-project/sglang#32111 points to
    # trtllm_mla on Blackwell
    (["--attention-backend", "cutlass_mla", "--tp", "8"],
     ["--attention-backend", "trtllm_mla", "--tp", "8"]),
    (["--decode-attention-backend=cutlass_mla"], ["--decode-attention-backend=trtllm_mla"]),
    (["--attention-backend", "dual_chunk_flash_attn", "--tp", "2"], ["--tp", "2"]),
    (["--quantization", "marlin", "--tp", "2"], ["--tp", "2"]),
    (["--quantization=qoq"], []),
    # 0.5.20 refuses fp4_e2m1 at start, naming fp4_mx_block16: the same block-16 format
    (["--kv-cache-dtype", "fp4_e2m1"], ["--kv-cache-dtype", "fp4_mx_block16"]),
    # 0.5.4's data-parallel dispatch names; 0.5.10's choices have their successors
    (["--dp", "2", "--load-balance-method", "shortest_queue"],
     ["--dp", "2", "--load-balance-method", "total_requests"]),
    (["--load-balance-method=minimum_tokens"], ["--load-balance-method=total_tokens"]),
    # SGLang's own NVFP4 CUTLASS GEMM (0.5.15's choices, not 0.5.18's): auto decides
    (["--fp4-gemm-backend", "cutlass", "--tp", "4"], ["--tp", "4"]),
    (["--quantization", "squeezellm"], []),
])
def test_a_value_retired_before_the_modeled_releases_is_renamed_or_dropped(argv, new):
    from launchplan.input.cli import parse_argv
    from launchplan.input.migrations import rewrite

    out, notes = rewrite(argv)
    assert out == new and len(notes) == 1
    assert ("->" in notes[0]) == any(token not in argv for token in out)  # else "dropped"
    parse_argv(out)


def test_a_retired_value_with_a_new_name_is_named_in_the_error(capsys):
    code = main(["resolve", "--gpu", "b200", "--model-path", "deepseek-r1",
                 "--attention-backend", "cutlass_mla"])
    err = capsys.readouterr().err
    assert code == 2 and "use --attention-backend trtllm_mla" in err
    assert "did you mean" not in err


@pytest.mark.parametrize("argv, new", [
    # 0.4.3: --speculative-draft was unique (--speculative-draft-model-path); 0.5.23 has nine
    (["--speculative-algo", "EAGLE", "--speculative-draft", "lmsys/d", "--trust-remote",
      "--enable-flashinfer-mla"],
     ["--speculative-algo", "EAGLE", "--speculative-draft-model-path", "lmsys/d",
      "--trust-remote", "--attention-backend", "flashinfer"]),
    # 0.3.4: --enable-overlap-schedule, since the default and dropped
    (["--model", "m", "--disable-radix", "--enable-overlap"], ["--model", "m", "--disable-radix"]),
    # 0.3.6 to 0.4.6: --enable-dp-attention; 0.3.5 to 0.5.13: --cuda-graph-max-bs
    (["--tp", "8", "--enable-dp", "--dp", "8", "--cuda-graph-max=64"],
     ["--tp", "8", "--cuda-graph-max-bs-decode", "64", "--attn-dp-size", "8"]),
    # 0.4.1 to 0.4.6: --enable-ep-moe, which 0.5.23 would read as --enable-eplb; the retired
    # --enable-flashinfer-mla says the line is old
    (["--tp", "4", "--enable-ep", "--enable-flashinfer-mla"],
     ["--tp", "4", "--ep-size", "4", "--attention-backend", "flashinfer"]),
])
def test_an_old_abbreviation_is_spelled_out_as_its_release_read_it(argv, new):
    from launchplan.input.cli import parse_argv
    from launchplan.input.migrations import rewrite

    out, notes = rewrite(argv, "0.5.23")
    assert out == new
    assert any("read the abbreviation as" in n for n in notes)
    parse_argv(out)


def test_the_release_a_line_names_decides_what_an_abbreviation_meant():
    from launchplan.input.migrations import rewrite

    assert rewrite(["--tp", "2", "--enable-ep"], old="0.4.6.post5")[0] == [
        "--tp", "2", "--ep-size", "2"]
    assert rewrite(["--tp", "2", "--enable-ep"], old="0.5.21")[0] == ["--tp", "2", "--enable-ep"]
    # with nothing saying the line is old it stays (0.5.23 reads --enable-eplb), with a note
    out, notes = rewrite(["--tp", "2", "--enable-ep"])
    assert out == ["--tp", "2", "--enable-ep"]
    assert len(notes) == 1 and "--enable-eplb" in notes[0] and "--enable-ep-moe" in notes[0]
    # still unique, and meaning the same flag in every release: untouched
    assert rewrite(["--disable-overlap", "--enable-flashinfer-mla"])[0] == [
        "--disable-overlap", "--attention-backend", "flashinfer"]


@pytest.mark.parametrize("argv, new, said", [
    # 0.1's FlashInfer switch; today a unique prefix of --enable-flashinfer-allreduce-fusion
    (["--enable-flashinfer", "--tp", "2"], ["--tp", "2"], "long been the default"),
    (["--attention-reduce-in-fp32"], ["--triton-attention-reduce-in-fp32"], "renamed"),
    # 0.3.0 sized the request pool with it; 0.3.1 sizes it from --max-running-requests
    (["--max-num-reqs", "64"], ["--max-running-requests", "64"], "N - 1"),
])
def test_flags_older_than_the_wheels_read_are_migrated(argv, new, said):
    from launchplan.input.cli import parse_argv
    from launchplan.input.migrations import rewrite

    out, notes = rewrite(argv)
    assert out == new and len(notes) == 1 and said in notes[0]
    parse_argv(out)
