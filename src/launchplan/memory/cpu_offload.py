"""``--cpu-offload-gb``: the part of each GPU's weights SGLang keeps in CPU memory instead.

SGLang 0.5.23 makes an ``OffloaderV1`` when ``cpu_offload_gb`` is above 0
(``srt/utils/offloader.py``, ``create_offloader``), one per rank's process. ``make_layers``
hands it every decoder layer in order, and it moves that layer's parameters to pinned CPU
memory one at a time while fewer than ``cpu_offload_gb * 2**30`` bytes have moved. Only the
decoder layers pass through it: the embedding, the LM head, the final norm and a vision
tower are built outside ``make_layers`` and stay on the GPU. So the GPU keeps its share of
the weights less ``min(limit, its decoder-layer bytes)``, which is what its "Load weight end
... mem usage" shows and what the KV pool is sized after (a 2 x RTX A4500 log of
Qwen3-14B at tp 2 with 48 GB offloaded: 1.50 GB loaded, the embedding and head's share).

The limit is a lower bound of what moves: the parameter that crosses it moves whole (SGLang
fuses q/k/v and gate/up into one parameter each, so the excess is at most one such matrix).
An MLA layer's ``kv_b_proj`` stays (its ``w_kc``/``w_vc`` views need it on the GPU); that
small matrix is counted as moved. The absorbed ``w_kc``/``w_vc`` copies themselves are made
after loading, on the GPU, from that projection: they stay.
"""

from __future__ import annotations

from collections.abc import Mapping

#: weight components built outside ``make_layers`` (``memory.params`` breakdown keys)
RESIDENT = frozenset({"embedding", "lm_head", "score", "rope_cache", "vision", "audio", "mtp",
                      "mtp_embedding", "mla_absorbed", "text_encoder"})

CAVEAT = ("--cpu-offload-gb: the decoder layers' weights up to the limit are counted in CPU "
          "memory (SGLang moves whole parameters, so up to one more matrix may move)")


def offloaded_bytes(limit_gb: float | int | None, breakdown: Mapping[str, float]) -> int:
    """Bytes of one GPU's weights (``breakdown``: component -> bytes on that GPU) that
    ``--cpu-offload-gb limit_gb`` moves to CPU memory."""
    if not limit_gb or limit_gb <= 0:
        return 0
    layers = sum(b for component, b in breakdown.items() if component not in RESIDENT)
    return max(0, min(int(limit_gb * 2**30), int(layers)))
