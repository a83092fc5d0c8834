"""SGLang 0.5.23's own KV-pool sizing, recorded per case: launchplan must agree exactly.

The cases (``data/kv-pool-cases.json``) and SGLang's answers (``data/results-kv-pool.jsonl``)
come from ``tools/record_kv_pool.py``, which runs SGLang's ``KVCacheConfigurator`` on each
resolved launch with the case's memory figures. Bytes per token, ``max_total_num_tokens``
and ``max_running_requests`` must match exactly, and so must the budget, the SWA split and
the surviving decode CUDA-graph batch sizes (and, for DeepSeek-V4, the compressed pools' token
counts and compress-state slots). Where SGLang refuses the launch while resolving
it, launchplan must refuse it too; where its scheduler refuses to build the model config
(a quantization a model override chose that the platform does not serve), launchplan's
preflight must say the launch fails at start; where it refuses to start for want of memory,
launchplan must say the launch does not fit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from launchplan.checks.preflight import preflight
from launchplan.errors import InputError, Refusal
from launchplan.facts.targets import get_target, with_overrides
from launchplan.memory.kv_pool import NotEnoughMemory, kv_pool
from launchplan.planner import resolve
from tests.parity.oracle_cases import AGREEMENT

DATA = Path(__file__).with_name("data")
ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "src" / "launchplan" / "facts" / "data" / "hub"  # shipped/<ORG--NAME>
CASES = DATA / "kv-pool-cases.json"
RESULTS = DATA / "results-kv-pool.jsonl"
#: Cases recorded; a smaller number means the recording lost cases.
EXPECTED_CASES = 5314
#: Recorded models launchplan's sizing does not follow yet (tests/parity/models/), and why.
#: Their cases stay recorded; ``test_the_models_not_followed_yet_still_disagree`` fails once
#: one agrees everywhere, so it leaves this list.
NOT_FOLLOWED: dict[str, str] = {}
#: Recorded models whose quantization config SGLang could not build on the recording host
#: (the row notes ``quant_config_error``), and why. The loaded config decides the KV dtype
#: under ``--kv-cache-dtype auto`` (a ModelOpt checkpoint declaring an FP8 cache gets an FP8
#: pool), so such a recording is not a real start-up's: its cases are set aside (still
#: recorded and counted), and ``test_set_aside_configs_are_exactly_the_listed_ones`` fails
#: when one is added or fixed without this list following.
_CUT_DOWN = ("its shipped hf_quant_config.json keeps the algorithms only (quant_algo, "
             "kv_cache_quant_algo FP8), not the group size SGLang's NVFP4 config requires")
CONFIG_NOT_BUILT: dict[str, str] = {
    "nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4": _CUT_DOWN,
    "nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4": _CUT_DOWN,
}
FIELDS = ("kv_bytes_per_token", "max_total_num_tokens", "max_running_requests",
          "kv_budget_bytes", "full_max_total_num_tokens", "swa_max_total_num_tokens",
          "max_mamba_cache_size", "capture_bs", "c4_max_total_num_tokens",
          "c128_max_total_num_tokens", "c4_state_pool_size", "c128_state_pool_size")


def _label(case: dict) -> str:
    return case["model"].rsplit("/", 1)[-1]


def _load(cases_path: Path = CASES, results_path: Path = RESULTS) -> list[tuple[dict, dict]]:
    # A missing recording is a failure, not a skip: the suite must not pass empty.
    cases = json.loads(cases_path.read_text())
    results = {}
    for line in results_path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            results[row["name"]] = row
    return [(case, results[case["name"]]) for case in cases if case["name"] in results]


def comparable(pairs: list) -> list:
    """``pairs`` without the cases of a config SGLang's quantization config was not built
    for (``CONFIG_NOT_BUILT``)."""
    return [(c, r) for c, r in pairs if not (r.get("result") or {}).get("quant_config_error")]


ALL_PAIRS = _load() if CASES.exists() and RESULTS.exists() else []
PAIRS = [(c, r) for c, r in comparable(ALL_PAIRS) if _label(c) not in NOT_FOLLOWED]


def test_set_aside_configs_are_exactly_the_listed_ones():
    from tests.parity.test_kv_pool_hub import PAIRS as HUB_PAIRS

    set_aside = {_label(c) for c, r in [*ALL_PAIRS, *HUB_PAIRS]
                 if (r.get("result") or {}).get("quant_config_error")}
    assert set_aside == set(CONFIG_NOT_BUILT)


def test_recordings_present_and_complete():
    check_recordings(CASES, RESULTS, ALL_PAIRS, EXPECTED_CASES)


def check_recordings(cases: Path, results: Path, pairs: list, expected: int) -> None:
    """Both files there, every case answered (none lost, none a harness failure), and
    three in four of them sized: a suite must not pass on a broken recording."""
    assert cases.exists(), f"missing {cases}: run tests/parity/tools/record_kv_pool.py"
    assert results.exists(), f"missing {results}: run tests/parity/tools/record_kv_pool.py"
    assert len(pairs) == expected
    assert sum(1 for _, r in pairs if r["ok"]) >= expected * 3 // 4
    broken = [c["name"] for c, r in pairs if r.get("stage") == "harness"]
    assert not broken, f"the recording failed on {broken}: record again"


def _plan(case: dict, compat: str = "0.5.23"):
    key = (case["name"], compat)
    if key not in _PLANS:  # each case is planned once for all the tests that read it
        _PLANS[key] = _resolve(case, compat)
    return _PLANS[key]


_PLANS: dict = {}


def _resolve(case: dict, compat: str):
    target = get_target(case["platform"])
    over = case.get("platform_overrides") or {}
    target = with_overrides(target, memory_mib=over.get("mem_mib"),
                            cuda_version=over.get("cuda"), gpu_count=over.get("gpus"))
    model = case["model"]  # a bundled name, shipped/<ORG--NAME>, or a path from the root
    if model.startswith("shipped/"):
        model = str(SHIPPED / model[len("shipped/"):])
    elif "/" in model:
        model = str(ROOT / model)
    argv = [str(a) for a in case["argv"]]
    for i, flag in enumerate(argv[:-1]):  # a draft config of the repository, from its root
        if flag == "--speculative-draft-model-path" and argv[i + 1].startswith("tests/"):
            argv[i + 1] = str(ROOT / argv[i + 1])
    return resolve(argv, gpu=target, model_path=model, compat=compat, env=case.get("env"))


def _capture_refused(expected: dict) -> bool:
    """SGLang sized the pool but its CUDA-graph capture refuses the request count (0.5.22's
    zero requests per rank; under attention DP, no batch size a multiple of the attention
    TP size): the launch does not start."""
    return str(expected["result"].get("capture_bs")).startswith("<AssertionError")


#: Preflight rows for what stops SGLang's pool sizing before any memory is counted.
_SIZING_STOPS = frozenset({"hisparse-config"})


def _blocking(result) -> set[str]:
    return {p.requirement for p in preflight(result).problems if p.severity.blocks}


def _disagreement(case: dict, expected: dict, compat: str = "0.5.23") -> dict:
    """What launchplan answers differently from the recording (empty: it agrees)."""
    try:
        result = _plan(case, compat)
    except (Refusal, InputError) as e:
        return {} if expected["stage"] == "resolve" else {"refused": str(e)}
    if expected["stage"] == "resolve":
        return {"refused": "not by launchplan"}
    if expected["stage"] == "model":  # the scheduler refused to build the model config
        return {} if not preflight(result).starts else {"fails at start": "not by launchplan"}
    args = dict(weights_bytes=case["weights_bytes"], before_load_bytes=case["before_load_bytes"])
    starts = expected["ok"] and not _capture_refused(expected)
    try:
        pool = kv_pool(result, **args).as_json()
    except NotEnoughMemory:
        return {} if not starts else {"fits": "not by launchplan"}
    stops = _SIZING_STOPS & _blocking(result)
    if not starts:  # sized, unless preflight names what stops the scheduler's sizing
        return {} if stops else {"fits": "by launchplan"}
    if stops:
        return {"sizing stops": f"by launchplan: {sorted(stops)}"}
    want = expected["result"]
    state = want.get("mamba_state_bytes_per_slot") is not None
    return {f: (want[f], pool[f]) for f in FIELDS + ("mamba_state_bytes_per_slot",)
            if f in want and (state or f != "max_mamba_cache_size") and pool[f] != want[f]}


def test_the_models_not_followed_yet_still_disagree():
    """Every model in NOT_FOLLOWED still has a recorded case launchplan gets wrong."""
    wrong = {_label(c) for c, r in ALL_PAIRS if _label(c) in NOT_FOLLOWED
             and r["stage"] in ("resolve", "model", "sizing", "done") and _disagreement(c, r)}
    assert wrong == set(NOT_FOLLOWED), set(NOT_FOLLOWED) - wrong


def _by_model(pairs: list) -> dict[str, list]:
    out: dict[str, list] = {}
    for case, expected in pairs:
        out.setdefault(_label(case), []).append((case, expected))
    return out


BY_MODEL = _by_model(PAIRS)


@pytest.mark.parametrize("model", sorted(BY_MODEL))
def test_kv_pool_agrees_with_sglang(model):
    """Every recorded case of one model (one test item per model keeps the replay fast):
    SGLang's refusals refused alike, pools that do not fit said so, and every sized field
    equal. The message names each disagreeing case."""
    wrong = model_disagreements(BY_MODEL[model], "kv-pool")
    assert not wrong, wrong


def model_disagreements(pairs: list, suite: str) -> dict[str, dict]:
    """Each case of ``pairs`` launchplan answers differently (case name -> the fields), the
    per-field agreement counted under ``suite`` for the session's summary."""
    wrong = {}
    for case, expected in pairs:
        assert expected["stage"] in ("resolve", "model", "sizing", "done"), expected["error"]
        miss = _disagreement(case, expected)
        if miss:
            wrong[case["name"]] = miss
        if expected["stage"] == "done" and expected["ok"] and not _capture_refused(expected):
            want = expected["result"]
            state = want.get("mamba_state_bytes_per_slot") is not None
            for field in FIELDS + ("mamba_state_bytes_per_slot",):
                if field in want and (state or field != "max_mamba_cache_size"):
                    stats = AGREEMENT[(suite, field)]
                    stats[1] += 1
                    stats[0] += field not in miss and "fits" not in miss
    return wrong


class _Spy:
    """A result that notes every value asked of it."""

    def __init__(self, result) -> None:
        self.result = result
        self.asked: list[str] = []

    def value(self, name):
        self.asked.append(name)
        return self.result.value(name)


def test_the_memory_plans_reader_sizes_every_case_alike():
    """The memory plan sizes the pool from its own copy of the values (``memory.values``),
    without steps or capture sizes: on every recorded case it reaches ``kv_pool``'s figures
    and steps, and it reads no field outside ``values.NAMES`` (each such read would cost a
    call into the result)."""
    from launchplan.memory.kv_pool import _Plan, size
    from launchplan.memory.values import values_of

    compared = 0
    for case, expected in PAIRS:
        if expected["stage"] not in ("sizing", "done"):
            continue
        result = _plan(case)
        args = dict(weights_bytes=case["weights_bytes"],
                    before_load_bytes=case["before_load_bytes"])
        values = values_of(result)
        spy = values.result = _Spy(result)
        try:
            pool = kv_pool(result, **args)
        except NotEnoughMemory:
            with pytest.raises(NotEnoughMemory):
                size(_Plan(values), args["before_load_bytes"], args["weights_bytes"], None,
                     None)
            continue
        sizer, budget, tokens, max_reqs, _ = size(_Plan(values), args["before_load_bytes"],
                                                  args["weights_bytes"], None, None)
        steps: list = []
        size(_Plan(values), args["before_load_bytes"], args["weights_bytes"], None, steps)
        got = (sizer.cell, budget, tokens["max_total_num_tokens"], tokens.get("full"),
               tokens.get("swa"), max_reqs, tuple(steps))
        assert got == (pool.kv_bytes_per_token, pool.kv_budget_bytes,
                       pool.max_total_num_tokens, pool.full_max_total_num_tokens,
                       pool.swa_max_total_num_tokens, pool.max_running_requests,
                       pool.steps), case["name"]
        assert not spy.asked, (case["name"], spy.asked)
        compared += 1
    assert compared > len(PAIRS) // 2


#: The bundled-model cases recorded again under older releases (record_kv_pool.py run by
#: each release's own oracle venv), kept compact: each row's stage and compared fields.
RELEASES = ("0.5.22", "0.5.21")
BUNDLED_CASES = 1665


@pytest.mark.parametrize("release", RELEASES)
def test_older_releases_size_as_recorded(release):
    """launchplan under ``--compat RELEASE`` sizes every bundled-model case as that release
    did (one test per release: a loop, not 1,662 test items, keeps it to a second or two)."""
    path = DATA / f"results-kv-pool-{release}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    cases = {c["name"]: c for c, _ in ALL_PAIRS}
    assert len(rows) == BUNDLED_CASES
    assert not [r["name"] for r in rows if r["stage"] == "harness"]
    wrong = {r["name"]: d for r in rows if (d := _disagreement(cases[r["name"]], r, release))}
    assert not wrong, dict(list(wrong.items())[:5])



#: The cases of the architectures this suite once left unfollowed (DeepSeek-V4 and V4.1,
#: Gemma 4, Beam, EmbeddingGemma 2, Step-3.5, HRM-Text, Whisper) recorded again under 0.5.22
#: (record_kv_pool.py run by that release's venv on those cases), kept compact like the files
#: above. 0.5.21 has no DeepSeek-V4.
ARCH_CASES_0_5_22 = 212


def test_architectures_under_0_5_22_size_as_recorded():
    """0.5.22 differs on these: its DSV4 configurator prices ratio-1/2 rows unpadded and
    lets a rank have no request, and it has no sliding-window pool for Beam; launchplan
    under ``--compat 0.5.22`` sizes every one of these cases as it did."""
    path = DATA / "results-kv-pool-arch-0.5.22.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    cases = {c["name"]: c for c, _ in ALL_PAIRS}
    assert len(rows) == ARCH_CASES_0_5_22
    assert not [r["name"] for r in rows if r["stage"] == "harness"]
    assert sum(1 for r in rows if r["ok"]) > ARCH_CASES_0_5_22 * 3 // 4
    wrong = {r["name"]: d for r in rows if (d := _disagreement(cases[r["name"]], r, "0.5.22"))}
    assert not wrong, dict(list(wrong.items())[:5])


#: The HiSparse, DFLASH/DSPARK and --dtype cases (``gen_kv_pool_cases``: ``hisparse*``,
#: ``dflash*``, ``dspark*``, ``dtype-*``) recorded again under each older release, kept
#: compact. The releases part here: 0.5.21 widens only a draft's index keys under HiSparse;
#: 0.5.21-0.5.22 give Qwen3.5's DFLASH triton with page 1 on SM10x, read no Markov rank
#: from a published DSpark draft's dflash_config, and leave the draft's own pool out of the
#: request-capped sliding-window sizing.
DRAFT_CASES = 100


@pytest.mark.parametrize("release", RELEASES)
def test_draft_and_hisparse_pools_under_older_releases_size_as_recorded(release):
    path = DATA / f"results-kv-pool-drafts-{release}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    cases = {c["name"]: c for c, _ in ALL_PAIRS}
    assert len(rows) == DRAFT_CASES and all(r["name"] in cases for r in rows)
    assert not [r["name"] for r in rows if r["stage"] == "harness"]
    assert sum(1 for r in rows if r["ok"]) > DRAFT_CASES * 3 // 4
    wrong = {r["name"]: d for r in rows if (d := _disagreement(cases[r["name"]], r, release))}
    assert not wrong, dict(list(wrong.items())[:5])
