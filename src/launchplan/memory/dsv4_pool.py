"""DeepSeek-V4's compressed KV pools, sized as SGLang 0.5.23's DSV4 pool configurator does.

DeepSeek-V4 (and V4.1) keeps no single per-token cell. Every layer keeps its latest tokens in
a sliding-window (SWA) pool; a layer with compress ratio 4 or 128 also keeps one compressed
row per 4 (128) tokens, the ratio-4 ones with an indexer key beside it; V4.1 adds ratios 1
and 2 for the layers ``kv_source_layer_ids`` names (the others of those ratios share their
rows). SGLang therefore sizes a "full token": what one token of context costs in every
compressed pool, plus ``swa_full_tokens_ratio`` SWA slots (each carrying its share of the
ratio-4 compress-state ring). Request-scoped pools do not scale with the tokens and are set
aside first: the ratio-128 (and ratio-2) compress-state rings of every request slot, and,
when the SWA ratio was not the operator's choice, an SWA pool sized for the request cap
(``swa_request_cap``) plus room for cached prefix tails. A speculative launch inflates the
per-token bytes by (layers + 1) / layers for the draft's layer.

Rows are stored in FlashMLA's paged layouts, whose page stride is padded to the reader's
row stride (``LAYOUTS``): V4 on every GPU by default; the V4.1 layouts when
``SGLANG_DSV4_KV_LAYOUT`` or the ``flashmla_mega`` backend asks for them (SM100/SM103).
The ``trtllm`` backend stores unpadded FP8 rows of the head dimension.

SGLang 0.5.22 and 0.5.21 differ in two ways (``--compat``): a ratio-1/2 row costs the
unpadded latent row (no page padding, no reserved pages), and ``--max-running-requests``
below the attention-DP ranks leaves a rank no request rather than one.

Not modelled (``caveats`` in ``kv_pool`` says so): the unified-KV pools of the ROCm
``unified_kv_triton`` backend, encoder-bounded SWA replay (DSpark drafts) and, without the
hybrid SWA pool, pipeline stages (``kv_pool`` sizes each stage of the hybrid one). HiSparse (``--enable-hisparse``) keeps ratio-4 rows for only one token in
``host_to_device_ratio`` on the GPU: the ratio-4 pool shrinks by that ratio, its indexer keys
do not.
"""

from __future__ import annotations

from typing import Any

from launchplan.memory.shortfall import NotEnoughMemory
from launchplan.memory.swa_request_cap import swa_request_cap
from launchplan.memory.token_cap import capped

#: FlashMLA's paged KV layouts: (bytes per token, the unit a page's stride is padded to).
#: V4: 448 FP8 nope + 64 bf16 rope values and 8 scale bytes; V4.1: 512 FP8 values and 16
#: scales (V41_FP4: 256 packed FP4 bytes and 32 scales); the ``_new`` ones interleave each
#: token's scales with its data (SGLang's ``kernels/ops/attention/dsv4/kv_layout.py``).
LAYOUTS = {"v4": (584, 576), "v41": (528, 512), "v41_new": (528, 528),
           "v41_fp4": (288, 256), "v41_fp4_new": (288, 288)}
#: The SWA/full token ratio when the operator gives none and the request cap does not apply.
DEFAULT_SWA_RATIO = 0.1
#: The compress ratios SGLang accepts (0: an uncompressed, SWA-only layer).
RATIOS = (0, 1, 2, 4, 128)
#: Token rows of one low-ratio (1, 2) indexer page: 128 where DeepGEMM reads paged sparse
#: MQA logits (an SM100 install with DeepGEMM, assumed on SM100 targets), else 64.
INDEX_PAGE, INDEX_PAGE_SM100 = 64, 128
#: The page-size granule compressed attention needs.
PAGE_GRANULE = 128


def indexer_bytes(head_dim: int, fp4: bool) -> int:
    """One compressed indexer key: FP8 values with a 4-byte scale per 128, or FP4 values
    (two a byte) with a byte of scale per 32."""
    if fp4:
        return head_dim // 2 + head_dim // 32
    return head_dim + head_dim // 128 * 4


def ring_size(ratio: int, draft_tokens: int, online_c128: bool) -> int:
    """Compress-state rows per request for ``ratio``: a ring of raw tokens (wider under
    speculative decoding, whose verify writes its drafts ahead); one running state for
    ratio 128 under ``SGLANG_OPT_USE_ONLINE_COMPRESS``."""
    if ratio == 2:
        return 2 if not draft_tokens else 1 << (draft_tokens + 1).bit_length()
    if ratio == 128 and online_c128:
        return 1
    if draft_tokens:
        return 16 if ratio == 4 else 256
    return 8 if ratio == 4 else 128


def owners_by_ratio(ratios: list[int], sources: Any) -> dict[int, int]:
    """Layers owning compressed storage, per ratio, in SGLang's order (4, 128, 1, 2):
    every layer of ratio 4 or 128, only the named KV-source layers of ratios 1 and 2."""
    stage = range(len(ratios))
    sources = [int(i) for i in sources or () if int(i) in stage]
    out: dict[int, int] = {}
    for ratio in (4, 128, 1, 2):
        layers = [i for i in sources if ratios[i] == ratio] if ratio in (1, 2) \
            else [i for i in stage if ratios[i] == ratio]
        if layers:
            out[ratio] = len(layers)
    return out


def page_bytes_per_token(layout: str, tokens_per_page: int) -> float:
    """Bytes per token of one page of ``tokens_per_page`` rows, the stride padding shared."""
    per_token, align = LAYOUTS[layout]
    return -(-tokens_per_page * per_token // align) * align / tokens_per_page


def _ceil_to(value: int, unit: int) -> int:
    return -(-value // unit) * unit


class Dsv4Pool:
    """The DSV4 pool configurator's figures for one launch (a ``kv_pool`` sizer: ``cell``,
    ``describe``, ``size``, ``finalize``)."""

    name = "dsv4"

    def __init__(self, plan: Any) -> None:
        self.plan = plan
        v, env, model = plan.v, plan.env, plan.model
        self.legacy = not plan.one_request_at_least  # 0.5.22's sizing (see the docstring)
        text = model.text_config
        self.page = page = plan.page
        if page % PAGE_GRANULE:
            raise NotEnoughMemory(f"compressed attention needs a page size that is a multiple "
                                  f"of {PAGE_GRANULE}, not {page}")
        self.head = head = int(text.get("head_dim"))
        rope = int(text.get("qk_rope_head_dim"))
        nope = head - rope
        index_dim = int(text.get("index_head_dim") or 128)
        layers = int(model.num_hidden_layers or 0)
        ratios = [int(r) for r in (text.get("compress_ratios") or ())][:layers]
        if any(r not in RATIOS for r in ratios):
            raise NotEnoughMemory(f"DeepSeek-V4 compress ratios must be among {RATIOS}")
        self.layers = len(ratios)
        self.owners = owners_by_ratio(ratios, text.get("kv_source_layer_ids"))
        self.trtllm = v("dsv4_attn_backend") == "trtllm"
        # the unpadded row: FP8 values of the head (trtllm), or the V4 latent's bytes
        self.row = head if self.trtllm else nope + rope * 2 + 8
        self.main, self.option = self._layouts()
        hip = plan.target.is_hip
        self.indexer = indexer_bytes(index_dim, hip and bool(v("enable_deepseek_v4_fp4_indexer")))
        self.low_ratio_indexer = indexer_bytes(index_dim, True)
        # HiSparse keeps only 1/ratio of the ratio-4 rows on the GPU (the rest on the host)
        self.c4_shrink = plan.hisparse or 1
        self.index_page = INDEX_PAGE_SM100 if plan.target.is_sm100 else INDEX_PAGE
        state = str(env.get("SGLANG_DSV4_COMPRESS_STATE_DTYPE", "float32")).strip().lower()
        self.state_bytes = 2 if state in ("bfloat16", "bf16") else 4
        self.spec = plan.spec is not None
        self.draft_tokens = int(v("speculative_num_draft_tokens") or 0) if self.spec else 0
        flag = plan.result.record.env_flag
        self.online = flag("SGLANG_OPT_USE_ONLINE_COMPRESS")
        self.rings = {r: ring_size(r, self.draft_tokens, self.online and not hip)
                      for r in self.owners if r != 1}
        if self.spec:
            self._check_rings()
        explicit = v("_swa_full_tokens_ratio_explicitly_set")
        self.operator_ratio = float(v("swa_full_tokens_ratio")) if explicit else None
        self.swa_ratio = self.operator_ratio if explicit else DEFAULT_SWA_RATIO
        self.window = _window(text)
        asked = v("max_running_requests")
        self.requested = None if asked is None else plan.requests_per_rank(asked)
        self.decode = v("disaggregation_mode") == "decode"
        self.extra_slots = int(v("disaggregation_decode_extra_slots") or 0)
        self.cap_tokens = self._cap_tokens()
        self.swa_bytes = self._swa_bytes()
        self.full_bytes = self._full_bytes()
        if self.spec:  # the draft's layer, charged to every token
            inflation = (self.layers + 1) / self.layers
            self.full_bytes *= inflation
            self.swa_bytes *= inflation
        self.cell = self.full_bytes
        self.fixed_bytes = 0

    # --- layouts and per-token bytes --------------------------------------------------------

    def _layouts(self) -> tuple[str, str | None]:
        """(main-cache layout, compressed-cache option) as SGLang selects them."""
        plan = self.plan
        env = plan.env
        mode = str(env.get("SGLANG_DSV4_KV_LAYOUT", "v4")).lower()
        option = str(env.get("SGLANG_DSV4_COMPRESSED_KV_LAYOUT", "auto")).lower()
        option_or_none = None if option == "auto" else option
        if self.trtllm:
            return "v4", None
        if plan.v("dsv4_attn_backend") == "flashmla_mega" and mode != "v41_new":
            mode = "v41"
        if mode == "v4":
            return "v4", option_or_none
        if mode == "auto" and (plan.target.is_hip or not plan.target.is_sm100):
            return "v4", None  # (ROCm: assumed no gfx950 with AITER sparse attention)
        return ("v41_new" if mode == "v41_new" else "v41"), option_or_none

    def _layout(self, ratio: int) -> str:
        if ratio == 0 or self.main == "v4":
            return self.main
        fp4 = self.option == "fp4" or (self.option is None and ratio in (1, 2))
        base = "v41_fp4" if fp4 else "v41"
        return base + "_new" if self.main.endswith("_new") else base

    def paged(self, ratio: int = 0) -> float:
        """Bytes one row of ``ratio``'s pool takes (0: the SWA pool), page padding shared."""
        if self.trtllm:
            return self.row
        return page_bytes_per_token(self._layout(ratio), self.page // ratio if ratio
                                    else self.page)

    def _swa_bytes(self) -> float:
        """One SWA slot across the layers, plus its share of the ratio-4 compress-state ring
        (the ring is addressed per SWA page): attention and indexer states, two by two."""
        state = 2 * 2 * self.head * self.state_bytes
        indexer_state = 2 * 2 * int(self.plan.model.text_config.get("index_head_dim") or 128) \
            * self.state_bytes
        ring_share = self.rings.get(4, 0) / self.page
        return self.paged() * self.layers + (ring_share * (state + indexer_state)
                                             * self.owners.get(4, 0))

    def compressed(self, ratio: int) -> float:
        """Compressed rows (and indexer keys) one full token adds to one layer of ``ratio``."""
        if ratio in (1, 2):
            row = self.row if self.legacy else self.paged(ratio)
            return (row + self.low_ratio_indexer) / ratio
        if ratio == 4:
            return 1 / (4 * self.c4_shrink) * self.paged(4) + 1 / 4 * self.indexer
        return 1 / 128 * self.paged(128)

    def _full_bytes(self) -> float:
        ratio = 0 if self.cap_tokens is not None else self.swa_ratio
        return ratio * self.swa_bytes + sum(self.compressed(r) * n
                                            for r, n in self.owners.items())

    def _check_rings(self) -> None:
        """A verify batch writes all its drafts into the ring: the ring bounds the drafts."""
        for ratio in (4, 128):
            if ratio not in self.owners or (ratio == 128 and self.online):
                continue
            ring, window = self.rings[ratio], ratio * (2 if ratio == 4 else 1)
            most = ring - window + 2 if ring > window else 0
            if self.draft_tokens > most:
                raise NotEnoughMemory(
                    f"--speculative-num-draft-tokens {self.draft_tokens} exceeds what the "
                    f"ratio-{ratio} compress-state ring ({ring} rows) serves ({most})")

    # --- request-scoped pools ---------------------------------------------------------------

    def _cap_tokens(self) -> int | None:
        """SWA slots of the request-cap mode, or None for ratio sizing: the cap applies when
        the operator chose no ratio and a request count and a chunked prefill are known."""
        v = self.plan.v
        if self.operator_ratio is not None or self.requested is None or self.window is None:
            return None
        chunk = v("chunked_prefill_size")
        if not self.decode and (chunk is None or chunk <= 0):
            return None
        tails = v("swa_prefix_tails")
        if tails is None:
            tails = 0 if v("disable_radix_cache") else 4 * self.requested
        cap = swa_request_cap(self.plan, self.window)
        return _ceil_to(cap + int(tails) * (self.window + self.page), self.page)

    def slots(self, requests: int) -> int:
        """Request slots: one per request, one spare, and a PD decode worker's extra slots."""
        return requests + 1 + (self.extra_slots if self.decode else 0)

    def state_bytes_fixed(self, requests: int) -> tuple[int, int]:
        """(ratio-128, ratio-2) compress-state rings of every request slot (bytes)."""
        c128 = c2 = 0
        if 128 in self.owners:
            ring = self.rings[128]
            if self.online:
                max_draft = self.draft_tokens
                rows = (self.slots(requests) + ring + 1) * (1 + max_draft)
                width = 3 * self.head
            else:
                rows = _ceil_to(self.slots(requests) * ring + ring + 1, 128)
                width = 2 * self.head
            c128 = rows * width * self.state_bytes * self.owners[128]
        if 2 in self.owners:
            ring = self.rings[2]
            rows = _ceil_to(self.slots(requests) * ring + ring + 1, 2)
            c2 = rows * 2 * self.head * 4 * self.owners[2]
        return c128, c2

    def _requests_for_sizing(self, budget: int) -> int:
        """The per-worker request count the fixed pools are sized for: the asked one, else
        the scheduler's estimate from the tokens the budget would hold."""
        if self.requested is not None:
            return self.requested
        full = int(budget / self.full_bytes)
        estimate = int(full / int(self.plan.model.context_len) * 512)
        return min(max(min(estimate, 4096), 2048), full // 2)

    def _padding(self, full: int) -> float:
        """Reserved pages of the ratio-1/2 pools beyond their token-scaled bytes: a logical
        page of compressed rows, and the indexer's own page rounding."""
        if self.trtllm or self.legacy:
            return 0
        out = 0.0
        for ratio in (1, 2):
            n = self.owners.get(ratio, 0)
            if not n:
                continue
            main = self.page * self.paged(ratio)
            index_size = (full + self.page) // ratio
            index_rows = -(-(index_size + self.index_page) // self.index_page) * self.index_page
            out += (main + (index_rows - full // ratio) * self.low_ratio_indexer) * n
        return out

    def _fit(self, full: int, rest: float) -> int:
        """The largest page multiple at or below ``full`` whose bytes and padding fit in
        ``rest``: a page at a time, as SGLang steps down (the padding is a few pages, so a
        real budget takes a few steps). A budget too large for a float to tell one page
        from the next (a corrupt logged free memory) would never get there that way: after
        64 pages it is sized in one step, a hair under the budget."""
        page = self.page
        for _ in range(64):
            if full <= 0 or full * self.full_bytes + self._padding(full) <= rest:
                return full
            full -= page
        fits = (rest - self._padding(full)) / self.full_bytes * (1 - 1e-12)  # below rounding
        return max(int(fits) // page * page, 0)

    # --- the sizer --------------------------------------------------------------------------

    def describe(self) -> list[tuple[str, Any]]:
        parts: list[tuple[str, Any]] = [
            (f"SWA slot: {self.layers} layers x {self.paged():g} B ({self.main}) + ratio-4 "
             "compress state", self.swa_bytes)]
        for ratio, n in self.owners.items():
            parts.append((f"ratio-{ratio} compressed rows: {n} layers x 1/{ratio} token",
                          self.compressed(ratio) * n))
        if self.cap_tokens is not None:
            parts.append(("SWA slots for the request cap and prefix tails", self.cap_tokens))
        ratio = 0 if self.cap_tokens is not None else self.swa_ratio
        parts.append((f"KV bytes per full token = compressed + {ratio} x SWA slot"
                      + (" (x (layers + 1) / layers for the draft)" if self.spec else ""),
                      self.full_bytes))
        return parts

    def size(self, budget: int, steps: list | None) -> dict[str, int]:
        page = self.page
        requests = self._requests_for_sizing(budget)
        c128, c2 = self.state_bytes_fixed(requests)
        swa_fixed = self.cap_tokens * self.swa_bytes if self.cap_tokens is not None else 0
        fixed = c128 + c2 + swa_fixed
        rest = max(budget - fixed, 0)
        full = self._fit(int(rest / self.full_bytes) // page * page, rest)
        if steps is not None:
            steps.extend([(f"compress-state rings for {requests} requests (bytes)", c128 + c2),
                          ("SWA pool of the request cap (bytes)", int(swa_fixed)),
                          ("full tokens = (budget - fixed) // bytes per full token, "
                           "page-aligned", full)])
        if full <= 0 and self.cap_tokens is not None:
            raise NotEnoughMemory(
                f"the SWA pool sized for the request cap ({self.cap_tokens} tokens) leaves no "
                "room for the compressed pools: lower --max-running-requests or "
                "--swa-prefix-tails, or raise --mem-fraction-static")
        self.fixed_bytes = int(fixed)
        return self._sizes(capped(self.plan, full, steps), steps)

    def _sizes(self, full: int, steps: list | None) -> dict[str, int]:
        page = self.page
        full = full // page * page
        if self.cap_tokens is None:
            swa = int(full * self.swa_ratio) // page * page
            if self.window is not None and self.window + page >= swa:
                raise NotEnoughMemory(
                    f"the SWA pool ({swa} tokens) cannot hold one request: it needs more "
                    f"than the window ({self.window}) plus a page ({page}); raise "
                    "--swa-full-tokens-ratio or the KV budget")
        else:
            swa = self.cap_tokens
        if full <= 0:
            raise NotEnoughMemory("not enough memory for the KV cache: raise "
                                  "--mem-fraction-static")
        out = {"max_total_num_tokens": full, "full": full, "swa": swa,
               "c4": full // (4 * self.c4_shrink), "c128": full // 128,
               "c4_state": swa // page * self.rings.get(4, 0)}
        if steps is not None:
            steps.extend([(f"SWA tokens (x {self.swa_ratio}, page-aligned)"
                           if self.cap_tokens is None else "SWA tokens (request cap)", swa),
                          ("ratio-4 compressed tokens", out["c4"]),
                          ("ratio-128 compressed tokens", out["c128"])])
        return out

    def finalize(self, max_running_requests: int) -> dict[str, int]:
        """The ratio-128 compress-state slots, once the request count is settled."""
        ring = 1 if self.online else self.rings.get(128, 0)
        return {"c128_state": self.slots(max_running_requests) * ring}


def _window(text: Any) -> int | None:
    """The sliding window SGLang's model config reads (the first key present)."""
    for key in ("sliding_window_size", "sliding_window", "window_size"):
        if text.get(key) is not None:
            return int(text[key])
    return None
