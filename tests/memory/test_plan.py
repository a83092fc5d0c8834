"""The memory plan carried into resolve, explain, sweep and preflight."""

from __future__ import annotations

import json

import pytest

from launchplan import resolve
from launchplan.checks.preflight import preflight
from launchplan.commands.main import main
from launchplan.memory.plan import DEFAULT_REQUEST_TOKENS, memory_plan


def cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_plan_adds_up_per_gpu():
    plan = memory_plan(resolve([], gpu="h100", model_path="llama-3.1-8b"))
    assert plan is not None and plan.fits
    assert plan.gpu_bytes == 81559 << 20
    parts = plan.weights_bytes + plan.kv_pool_bytes + plan.reserved_bytes + plan.other_bytes
    assert parts == plan.gpu_bytes
    assert plan.kv_pool_bytes <= plan.kv_budget_bytes
    assert plan.max_total_num_tokens * plan.kv_bytes_per_token <= plan.kv_budget_bytes
    # concurrency never exceeds the scheduler's cap nor the pool
    assert plan.concurrency_at_request <= plan.max_running_requests
    assert plan.concurrency_at_context == plan.max_total_num_tokens // plan.context_len
    assert plan.request_tokens == DEFAULT_REQUEST_TOKENS


def test_more_tp_means_fewer_weights_and_more_tokens_per_gpu():
    one = memory_plan(resolve([], gpu="h100", model_path="llama-3.1-8b"))
    two = memory_plan(resolve(["--tp-size", "2"], gpu="h100", model_path="llama-3.1-8b"))
    assert two.weights_bytes < one.weights_bytes
    assert two.max_total_num_tokens > one.max_total_num_tokens


def test_fp8_kv_halves_the_bytes_per_token():
    auto = memory_plan(resolve([], gpu="h100", model_path="llama-3.1-8b"))
    fp8 = memory_plan(resolve(["--kv-cache-dtype", "fp8_e4m3"], gpu="h100",
                              model_path="llama-3.1-8b"))
    assert fp8.kv_bytes_per_token * 2 == auto.kv_bytes_per_token


def test_a_model_that_does_not_fit_is_a_start_up_failure_with_fixes(capsys):
    argv = ["resolve", "--gpu", "h100", "--model-path", "llama-3.1-70b", "--format", "json"]
    code, out, _ = cli(argv, capsys)
    data = json.loads(out)
    assert code == 0 and data["memory"]["fits"] is False
    assert data["preflight"]["verdict"] == "fails-at-start"
    problem = next(p for p in data["preflight"]["problems"]
                   if p["requirement"] == "memory-fits")
    assert "--tp-size 4" in problem["fixes"]
    code, _, err = cli([*argv[:-2], "--strict"], capsys)
    assert code == 3 and "memory-fits" in err


def test_resolve_prints_the_memory_section(capsys):
    code, out, _ = cli(["resolve", "--gpu", "b200", "--model-path", "deepseek-v3",
                        "--tp-size", "8"], capsys)
    assert code == 0
    section = out[out.index("memory per GPU"):]
    assert "max_total_num_tokens" in section and "max_running_requests" in section
    assert "--before-load-mib" in section and "2,560 tokens a" in section


def test_json_memory_keys_are_integers_in_bytes(capsys):
    code, out, _ = cli(["resolve", "--gpu", "h100", "--model-path", "qwen3-8b",
                        "--assume-request-tokens", "4096", "--format", "json"], capsys)
    memory = json.loads(out)["memory"]
    for key in ("gpu_bytes", "before_load_bytes", "weights_bytes", "draft_weights_bytes",
                "kv_budget_bytes", "max_total_num_tokens", "max_running_requests",
                "concurrency_at_context"):
        assert isinstance(memory[key], int), key
    assert memory["request_tokens"] == 4096 and memory["fits"] is True


def test_before_load_override_moves_the_budget():
    from launchplan.facts.targets import get_target, with_overrides

    base = get_target("h100")
    tight = with_overrides(base, before_load_mib=70000)
    a = memory_plan(resolve([], gpu=base, model_path="llama-3.1-8b"))
    b = memory_plan(resolve([], gpu=tight, model_path="llama-3.1-8b"))
    assert b.before_load_bytes == 70000 << 20
    assert b.max_total_num_tokens < a.max_total_num_tokens


def test_explain_shows_the_arithmetic(capsys):
    code, out, _ = cli(["explain", "max_total_num_tokens", "--gpu", "b200", "--model-path",
                        "deepseek-v3", "--tp-size", "8", "--format", "json"], capsys)
    data = json.loads(out)
    plan = memory_plan(resolve(["--tp-size", "8"], gpu="b200", model_path="deepseek-v3"))
    assert code == 0 and data["resolved"] == plan.max_total_num_tokens
    assert [s[0] for s in data["steps"]] == [s[0] for s in plan.steps]
    code, out, _ = cli(["explain", "max_total_num_tokens", "--gpu", "b200", "--model-path",
                        "deepseek-v3", "--tp-size", "8"], capsys)
    assert "KV budget" in out and "page-aligned" in out


def test_sweep_columns_rank_by_capacity(capsys):
    code, out, _ = cli(["sweep", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                        "--axis", "kv_cache_dtype=auto,fp8_e4m3", "--columns",
                        "max_total_num_tokens", "--format", "json"], capsys)
    groups = json.loads(out)["distinct"]
    by_dtype = {g["config"]["kv_cache_dtype"]: g["columns"]["max_total_num_tokens"]
                for g in groups}
    assert code == 0 and by_dtype["fp8_e4m3"] > by_dtype["auto"]
    code, _, err = cli(["sweep", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                        "--axis", "tp_size=1,2", "--columns", "max_total_tokenz"], capsys)
    assert code == 2 and "--columns" in err


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_values_that_size_no_pool_give_no_plan_and_no_crash(value):
    result = resolve([f"--mem-fraction-static={value}"], gpu="h100", model_path="llama-3.1-8b")
    assert memory_plan(result) is None
    assert not preflight(result).starts


def test_the_assumed_overhead_grows_with_the_gpus_a_launch_spans():
    from launchplan.facts.targets import (
        PRELOAD_BASE_MIB,
        PRELOAD_OVERHEAD_MIB,
        get_target,
        preload_overhead_mib,
    )

    assert preload_overhead_mib(1) == PRELOAD_BASE_MIB
    assert preload_overhead_mib(8) == PRELOAD_OVERHEAD_MIB
    one = memory_plan(resolve([], gpu="h100", model_path="llama-3.1-8b"))
    eight = memory_plan(resolve(["--tp-size", "8"], gpu="h100", model_path="llama-3.1-8b"))
    memory = get_target("h100").memory_mib
    assert one.before_load_bytes == (memory - preload_overhead_mib(1)) << 20
    assert eight.before_load_bytes == (memory - preload_overhead_mib(8)) << 20


def test_pcie_only_gpus_spend_no_more_before_loading_with_more_peers():
    """Four L4s at tp 4 spent 0.86 GiB each before loading (a public QwQ-32B log): the
    per-peer part of the overhead is NVLink's, so PCIe-only targets are charged the base."""
    from launchplan.facts.targets import PRELOAD_BASE_MIB, get_target, preload_overhead_mib

    assert preload_overhead_mib(4, nvlink=False) == PRELOAD_BASE_MIB
    assert preload_overhead_mib(4) > PRELOAD_BASE_MIB
    for name in ("l4", "l40s", "a10g", "rtx4090", "rtx-pro-6000"):
        assert not get_target(name).nvlink, name
    for name in ("h100", "h200", "a100", "b200", "h20"):
        assert get_target(name).nvlink, name
    l4 = memory_plan(resolve(["--tp-size", "4"], gpu="l4", model_path="qwen2.5-32b"))
    assert l4.before_load_bytes == (get_target("l4").memory_mib - PRELOAD_BASE_MIB) << 20


def test_remembered_plans_equal_fresh_ones_on_sampled_points():
    """The early cut-off (the weights reused by launches that shard them alike, the free
    memory by launches of the same layout) never hands one launch another's figures:
    2,000 sampled points, each planned with the memos filled as a sweep fills them and again
    after ``forget()``, give equal plans, steps included; and the plan reads nothing
    outside ``NAMES``."""
    from launchplan.checks.runner import point_resolver
    from launchplan.checks.space import Space, default_models, parse_axis
    from launchplan.errors import LaunchplanError
    from launchplan.facts.targets import SIMULATED
    from launchplan.memory import plan as memory
    from launchplan.memory.values import NAMES, Values, values_of
    from launchplan.memory.weights import (
        SHAPE_NAMES,
        _launch_shape,
        weight_bytes,
        weights_per_gpu,
    )

    class _Spy:  # a result that notes the values asked of it
        asked: list[str] = []

        def value(self, name):
            self.asked.append(name)
            raise KeyError(f"{name}: the memory plan read a field outside its key's list")

    space = Space(list(SIMULATED), default_models(),
                  axes=[parse_axis("mem_fraction_static=unset,0.7,0.9"),
                        parse_axis("max_total_tokens=unset,50000"),
                        parse_axis("ep_size=unset,8")])
    resolve_point = point_resolver("default", incremental=False)
    results = []
    for point in space.sample(2000, 11):
        try:
            results.append((point, resolve_point(point)))
        except LaunchplanError:
            continue
    memory.forget()
    remembered = [memory.memory_plan(result) for _, result in results]
    compared = 0
    for (point, result), kept in zip(results, remembered):
        memory.forget()
        fresh = memory._plan(result, DEFAULT_REQUEST_TOKENS)
        values = values_of(result)  # the plan's copy of the values reads as the result does
        assert all(values[name] == result.value(name)  # (and what the base learned from
                   for name in (*NAMES, *result._overlay, *values)), point  # other launches)
        strict = Values({name: values[name] for name in NAMES})  # all the plan may read
        strict.record, strict.result = result.record, _Spy()
        memory.forget()  # nothing remembered: every stage reads
        again = memory._plan(strict, DEFAULT_REQUEST_TOKENS)
        assert again == fresh and not strict.result.asked, (point, strict.result.asked)
        shape = Values({name: values[name] for name in SHAPE_NAMES})  # the weights' key
        shape.record, shape.result = result.record, _Spy()
        assert _launch_shape(shape) == _launch_shape(values), point
        assert not shape.result.asked, (point, shape.result.asked)
        plan = weights_per_gpu(result)  # the full weight plan agrees with the figures used
        assert weight_bytes(values_of(result)) == (
            plan.bytes_per_gpu, plan.draft_bytes_per_gpu, plan.caveats), point
        assert (kept is None) == (fresh is None), point
        if fresh is not None:
            assert kept == fresh and kept.to_dict() == fresh.to_dict(), point
            compared += 1
    assert compared > 800


def test_forget_clears_every_launch_memo():
    from launchplan.memory import plan as memory
    from launchplan.memory import weights

    memory_plan(resolve(["--tp-size", "2"], gpu="h100", model_path="llama-3.1-8b"))
    assert weights._BYTES
    memory.forget()
    assert not weights._BYTES and not weights._PLANS


def test_the_pool_is_sized_after_the_loads_overhead_beyond_the_tensors():
    """SGLang's post-load free memory is short of the tensors by more than their bytes (0.12
    GiB or more in all public start-up logs but one): the plan charges ``LOAD_OVERHEAD_BYTES``."""
    from launchplan.memory.kv_pool import _Plan, size
    from launchplan.memory.plan import LOAD_OVERHEAD_BYTES
    from launchplan.memory.values import values_of

    result = resolve([], gpu="h100", model_path="llama-3.1-8b")
    plan = memory_plan(result)
    loaded = plan.weights_bytes + plan.draft_weights_bytes
    values = values_of(result)
    with_overhead = size(_Plan(values), plan.before_load_bytes, loaded + LOAD_OVERHEAD_BYTES,
                         None, None)[1]
    without = size(_Plan(values), plan.before_load_bytes, loaded, None, None)[1]
    assert plan.kv_budget_bytes == with_overhead
    assert 0 < without - plan.kv_budget_bytes <= LOAD_OVERHEAD_BYTES + (1 << 20)
    assert ("of which loading beyond the tensors (bytes)", LOAD_OVERHEAD_BYTES) in plan.steps


def test_the_load_overhead_is_a_stated_assumption_the_user_can_replace(capsys):
    import json

    from launchplan.commands.main import main

    def plan(*extra):
        assert main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b", *extra,
                     "--format", "json"]) == 0
        return json.loads(capsys.readouterr().out)["memory"]

    assumed, none, more = plan(), plan("--load-overhead-mib", "0"), plan(
        "--load-overhead-mib", "1024")
    per_token = assumed["kv_bytes_per_token"]
    # the pool gives back (or loses) the difference, a token per bytes_per_token
    assert none["max_total_num_tokens"] > assumed["max_total_num_tokens"] > \
        more["max_total_num_tokens"]
    assert abs((none["max_total_num_tokens"] - assumed["max_total_num_tokens"]) * per_token
               - (128 << 20)) <= 2 * per_token
    assert main(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                 "--load-overhead-mib", "-1"]) == 2
    assert "--load-overhead-mib" in capsys.readouterr().err


def test_node_gpus_from_the_plausible_sizes_is_gpus_useds_count():
    """The plan's free memory before loading reads the GPUs a launch spans on its node from
    the parallel sizes it has already checked (``plan._node_gpus``): the count
    ``gpus_used`` gives, for every size ``_plausible`` accepts (None, a bool, odd nodes)."""
    import itertools

    from launchplan.checks.launch_requirements import gpus_used
    from launchplan.facts.models.loading import load_model
    from launchplan.memory.plan import _node_gpus, _plausible
    from launchplan.memory.values import Values

    model = load_model("llama-3.1-8b")
    sizes = (None, True, 1, 2, 3, 4, 8, 16)
    compared = 0
    for tp, pp, dp, attn_dp, nnodes in itertools.product(sizes, sizes, sizes, sizes,
                                                         (None, 0, 1, 2, 3, 4, "2")):
        if not _plausible((tp, pp, dp, 1, attn_dp, 1), model):
            continue
        values = Values(tp_size=tp, pp_size=pp, dp_size=dp, attn_dp_size=attn_dp,
                        nnodes=nnodes, gpu_id_step=1, base_gpu_id=0)
        values.result = None
        one = [size if type(size) is int else 1 for size in (tp, pp, attn_dp)]  # as _plan
        assert _node_gpus(nnodes, one[0], one[1], dp, one[2]) == max(
            1, gpus_used(values)[1]), (tp, pp, dp, attn_dp, nnodes)
        compared += 1
    assert compared > 20000


def test_the_plans_inline_size_test_agrees_with_plausible():
    """``_plan`` tests the six parallel sizes at once (their types, then one bitwise range
    test): a size it accepts or refuses is one ``_plausible`` accepts or refuses, at the
    bounds and on values of other types."""
    from launchplan.memory.plan import MAX_PARALLEL, _plan, _plausible
    from launchplan.memory.values import values_of

    result = resolve([], gpu="h100", model_path="llama-3.1-8b")
    edges = (-1, 0, 1, 2, 3, 255, 256, MAX_PARALLEL - 1, MAX_PARALLEL, MAX_PARALLEL + 1,
             1 << 40, True, False, None, 2.0, "2")
    checked = 0
    for name in ("ep_size", "moe_dp_size", "attn_dp_size", "dp_size"):
        for size in edges:
            values = values_of(result)
            values[name] = size
            sizes = tuple(values[n] for n in ("tp_size", "pp_size", "dp_size", "ep_size",
                                              "attn_dp_size", "moe_dp_size"))
            expected = _plausible(sizes, result.record.model)
            assert (_plan(values, DEFAULT_REQUEST_TOKENS) is not None) == expected, (name, size)
            checked += 1
    assert checked == 64
