"""Speculative decoding (SGLang's P32 ``handle_speculative_decoding``, then P51), by algorithm.

``normalize`` settles the algorithm first (upper case, ``NEXTN`` is ``EAGLE``, a Gemma-4
assistant draft turns EAGLE into ``FROZEN_KV_MTP``) and ``adaptive`` gates adaptive
speculation; then each algorithm's module fills its own parameters and checks what its
verify kernels can run: ``eagle`` (EAGLE, EAGLE3, STANDALONE and bundled MTP drafts),
``ngram``, ``dflash``, ``dspark``, ``uno``, ``frozen_kv_mtp``; ``boundary`` is P51. What
they share is in ``common``. Rules are discovered from the modules; ``rulesets.PIPELINE``
fixes their order. The names below are re-exported for callers of the former module.
"""

from __future__ import annotations

from launchplan.rules.speculative.adaptive import (
    speculative_adaptive_gate,
    speculative_adaptive_params,
)
from launchplan.rules.speculative.boundary import (
    boundary_reduction_default,
    model_boundary_reduction,
)
from launchplan.rules.speculative.common import SPEC_MAX_RUNNING_REQUESTS
from launchplan.rules.speculative.dflash import (
    dflash_defaults,
    dflash_draft_backend,
    dflash_draft_backend_0_5_22,
)
from launchplan.rules.speculative.dspark import dspark_defaults
from launchplan.rules.speculative.eagle import (
    auto_speculative_params,
    eagle_auto_params,
    eagle_family_defaults,
    eagle_hip_rejection_sampling,
    eagle_mtp_draft_path,
    eagle_page_tree_check,
    eagle_rejection_sampling_checks,
    eagle_rejection_sampling_checks_0_5_22,
    eagle_topk1_draft_tokens,
    eagle_trtllm_mha_topk,
    iquest_q1_mtp_draft,
)
from launchplan.rules.speculative.frozen_kv_mtp import frozen_kv_mtp_defaults
from launchplan.rules.speculative.ngram import ngram_checks, ngram_defaults
from launchplan.rules.speculative.normalize import (
    speculative_algorithm_known,
    speculative_algorithm_known_0_5_22,
    speculative_algorithm_upper,
    speculative_block_verification,
    speculative_decode_radix_check,
    speculative_dp_coordination_check,
    speculative_dp_coordination_check_0_5_21,
    speculative_draft_revision_default,
    speculative_draft_window,
    speculative_gemma4_assistant,
    speculative_moe_runner_default,
    speculative_nextn_alias,
)
from launchplan.rules.speculative.uno import uno_defaults

__all__ = [
    "SPEC_MAX_RUNNING_REQUESTS", "auto_speculative_params",
    "boundary_reduction_default", "dflash_defaults", "dflash_draft_backend",
    "dflash_draft_backend_0_5_22", "dspark_defaults", "eagle_auto_params",
    "eagle_family_defaults", "eagle_hip_rejection_sampling", "eagle_mtp_draft_path",
    "eagle_page_tree_check", "eagle_rejection_sampling_checks",
    "eagle_rejection_sampling_checks_0_5_22", "eagle_topk1_draft_tokens",
    "eagle_trtllm_mha_topk", "frozen_kv_mtp_defaults", "iquest_q1_mtp_draft",
    "model_boundary_reduction", "ngram_checks", "ngram_defaults", "speculative_adaptive_gate",
    "speculative_adaptive_params", "speculative_algorithm_known",
    "speculative_algorithm_known_0_5_22", "speculative_algorithm_upper",
    "speculative_block_verification", "speculative_decode_radix_check",
    "speculative_dp_coordination_check", "speculative_dp_coordination_check_0_5_21",
    "speculative_draft_revision_default", "speculative_draft_window",
    "speculative_gemma4_assistant", "speculative_moe_runner_default", "speculative_nextn_alias",
    "uno_defaults",
]
