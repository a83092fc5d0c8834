"""Rules no recorded oracle case brings in front of SGLang, each with the reason.

Checked by ``test_coverage.py`` in both directions: a rule that starts meeting SGLang in a
recorded case must leave this list.
"""

from __future__ import annotations

UNMET: dict[str, str] = {
    "deepseek_spec_moe_resolution": (
        "acts only on ROCm with quantization modelopt_fp4, and SGLang's model config "
        "refuses modelopt_fp4 on ROCm before any rule runs (probed with a DeepSeek-V3 "
        "NVFP4 config on mi355x: 'modelopt_fp4 quantization is currently not supported in "
        "ROCm'), so no simulated launch reaches it"),
    "launcher_spec_mixed_chunk": (
        "refuses only an algorithm that cannot mix prefill and decode with "
        "enable_mixed_chunk still on after resolution, and resolution turns it off for "
        "every in-tree one (NGRAM in _handle_ngram, STANDALONE in _handle_eagle_family, "
        "FROZEN_KV_MTP in _handle_frozen_kv_mtp, UNO in _handle_uno; EAGLE, EAGLE3, DFLASH "
        "and DSPARK may mix), so only an out-of-tree registered algorithm could reach it; "
        "the launcher suite's ngram, standalone and frozen-kv-mtp cases show SGLang's check "
        "passing"),
}
