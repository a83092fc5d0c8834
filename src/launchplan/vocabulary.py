"""SGLang's names for attention backends, speculative algorithms and MoE A2A backends, in
the groups more than one module needs: each group is spelled out once, here.

Values are SGLang 0.5.23's spellings. Rules, checks and the planner import these rather than
repeat them, so a release that adds a backend or an algorithm changes one line.
"""

from __future__ import annotations

# --- attention ---------------------------------------------------------------------------------

# The three fields that choose an attention backend: the base, and the prefill/decode sides
# that override it.
BACKEND_FIELDS = ("attention_backend", "prefill_attention_backend", "decode_attention_backend")

# --- speculative decoding ------------------------------------------------------------------------

# The algorithms SGLang 0.5.23 ships (``NEXTN`` is accepted as a spelling of EAGLE).
SPECULATIVE_ALGORITHMS = ("DFLASH", "UNO", "DSPARK", "EAGLE", "EAGLE3", "FROZEN_KV_MTP",
                          "STANDALONE", "NGRAM")
# One family in SGLang's ``_handle_eagle_family``: the same defaults and verify checks.
EAGLE_FAMILY = ("EAGLE", "EAGLE3", "STANDALONE")
# Algorithms whose workers can resume running requests inside a mixed prefill step.
MIXED_CHUNK_ALGORITHMS = ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")

# --- MoE all-to-all ------------------------------------------------------------------------------

# A2A backends under which a breakable prefill CUDA graph can still be captured.
BREAKABLE_GRAPH_A2A = frozenset({"none", "deepep", "megamoe", "flashinfer"})
