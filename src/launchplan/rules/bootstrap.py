"""Model-independent bootstrap (SGLang's pipeline steps 1-11).

These run before SGLang looks at the model (even for a dummy model): the deprecated
attention-DP spelling is rewritten before anything reads the DP layout, auxiliary
hidden-state capture takes ``speculative_algorithm`` over before anything reads that, and
simple range checks refuse bad values early.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from launchplan.engine.declarations import Declare, Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View

AUX_CAPTURE_METHODS = ("EAGLE3", "DFLASH", "DSPARK")


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("enable_dp_attention", "attn_dp_size", "dp_size"),
    writes=("attn_dp_size", "dp_size", "enable_dp_attention"),
    sglang="handle_deprecated_dp_attention",
    triggers=("enable_dp_attention",),
)
def deprecated_dp_attention(v: View) -> Declare | None:
    """``--enable-dp-attention --dp-size N`` is the old spelling of ``--attn-dp-size N``.

    When: ``enable_dp_attention`` is true.
    Effect: while ``attn_dp_size`` is still 1, moves the width there (``attn_dp_size`` N,
        ``dp_size`` 1, with a deprecation note); always clears ``enable_dp_attention``, so every
        later rule reads one layout.
    Why: the old form counted attention groups with ``dp_size``; 0.5.23 counts them with
        ``attn_dp_size`` and ``dp_size`` counts replicas (``handle_deprecated_dp_attention``).
    Assumes: nothing.
    """
    if not v.enable_dp_attention:
        return None
    out: dict[str, Any] = {}
    note = None
    if v.attn_dp_size == 1:
        out.update(attn_dp_size=v.dp_size, dp_size=1)
        note = (f"--enable-dp-attention --dp-size {v.dp_size} is deprecated: read as "
                f"--attn-dp-size {v.dp_size}")
    out["enable_dp_attention"] = False
    return Declare(out, note)


# --- SGLang 0.5.21: attention DP is spelled --enable-dp-attention --dp-size N -----------------
# 0.5.21 has no attn_dp_size: its rules read the switch and dp_size N as N attention groups
# inside TP, exactly where 0.5.22 on reads attn_dp_size N with dp_size 1. launchplan's rules
# read the latter layout, so 0.5.21 is resolved in it and reported in 0.5.21's own spelling.


@rule(name="deprecated_dp_attention", variant="0.5.21",
      phase=Phase.BOOTSTRAP,
      reads=("enable_dp_attention", "attn_dp_size", "dp_size"),
      writes=("attn_dp_size", "dp_size", "enable_dp_attention"),
      sglang="(0.5.21: --enable-dp-attention with --dp-size is the attention-DP spelling)",
      triggers=("enable_dp_attention",))
def deprecated_dp_attention_0_5_21(v: View) -> Declare | None:
    """Read 0.5.21's ``--enable-dp-attention --dp-size N`` as N attention-DP groups.

    When: ``--enable-dp-attention`` is on (not deprecated in 0.5.21) with ``--dp-size`` above 1
        (or an ``attn_dp_size`` already set).
    Effect: the switch off and, with no ``attn_dp_size`` given, ``attn_dp_size`` N and
        ``dp_size`` 1: the layout every later rule reads; ``dp_attention_spelling`` reports it
        back in 0.5.21's spelling once the plan is resolved. With one group the switch stays
        on as given.
    Why: in 0.5.21 ``--dp-size`` with the switch counts attention groups inside TP, which is
        what 0.5.22 renamed ``attn_dp_size``. With one group nothing moves: 0.5.21's rules read
        the switch as given (``dp_attention_switch_0_5_21``) until its data-parallelism
        defaults clear it (``data_parallelism_defaults``, 0.5.21).
    Assumes: nothing.
    """
    if not v.enable_dp_attention or (v.dp_size == 1 and v.attn_dp_size == 1):
        return None
    out: dict[str, Any] = {"enable_dp_attention": False}
    if v.attn_dp_size == 1:
        out.update(attn_dp_size=v.dp_size, dp_size=1)
    return Declare(out, f"0.5.21 attention DP: --dp-size {v.dp_size} counts attention groups "
                        "inside TP")


@rule(name="dp_attention_spelling", variant="0.5.21",
      phase=Phase.LAUNCHER,
      reads=("attn_dp_size", "dp_size"),
      writes=("dp_size", "enable_dp_attention"),
      sglang="(0.5.21: attention DP as ServerArgs holds it, dp_size with enable_dp_attention)",
      triggers=("attn_dp_size",))
def dp_attention_spelling_0_5_21(v: View) -> Declare | None:
    """Report N attention-DP groups as 0.5.21 holds them: ``dp_size`` N, switch on.

    When: an attention-DP width other than 1; it runs last of all, after every rule and
        launcher check has read the layout.
    Effect: ``dp_size`` N and ``enable_dp_attention`` on (with one group the switch stays off,
        as 0.5.21 clears it).
    Why: 0.5.21 has no ``attn_dp_size`` field; its resolved record carries the groups as
        ``dp_size`` with the switch.
    Assumes: nothing.
    """
    if v.attn_dp_size == 1:  # a width below 1 is reported as given too (0.5.21 checks none)
        return None
    return Declare({"dp_size": v.attn_dp_size, "enable_dp_attention": True},
                   f"0.5.21 reports {v.attn_dp_size} attention-DP groups as --dp-size "
                   f"{v.attn_dp_size} --enable-dp-attention")


@rule(name="prefill_cp_platform_check", variant="0.5.21",
      phase=Phase.BOOTSTRAP,
      reads=("enable_prefill_cp",),
      facts=("target.is_hip",),
      sglang="validate_prefill_cp_platform (0.5.21)",
      triggers=("enable_prefill_cp",))
def prefill_cp_platform_check_0_5_21(v: View) -> Refuse | None:
    """0.5.21 refuses prefill context parallelism on ROCm before it looks at the model.

    When: ``--enable-prefill-cp`` on a ROCm target (0.5.21 only; later releases have no
        such rule).
    Effect: refuses the launch (prefill CP on ROCm is deprecated in that release).
    Why: 0.5.21 withdrew prefill CP on HIP and MUSA pending a rework
        (``validate_prefill_cp_platform``); 0.5.22 brought it back with per-model limits.
    Assumes: no launchplan target is a Moore Threads (MUSA) GPU.
    """
    if v.enable_prefill_cp and v.target.is_hip:
        return Refuse("--enable-prefill-cp is not supported on ROCm in this release (SGLang "
                      "0.5.21 deprecated prefill context parallelism on HIP)")
    return None


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("return_hidden_states_mode", "enable_return_hidden_states",
           "enable_return_aux_hidden_states"),
    writes=("return_hidden_states_mode", "enable_return_hidden_states"),
    sglang="handle_return_hidden_states_mode",
    triggers=("return_hidden_states_mode", "enable_return_hidden_states",
              "enable_return_aux_hidden_states"),
)
def return_hidden_states_mode(v: View) -> Declare | None:
    """The hidden-state return mode and its switch name one setting: each implies the other.

    When: a mode is given, or returning hidden states (or, from 0.5.23, the auxiliary ones)
        is switched on.
    Effect: a mode given (``last`` or ``full``) declares ``enable_return_hidden_states`` true;
        no mode with the switch on declares ``return_hidden_states_mode`` ``full``.
    Why: requests are checked against the mode, and the switch is its older spelling
        (``handle_return_hidden_states_mode``; the aux capture returns its states in their
        place, so it wants ``full`` too).
    Assumes: nothing (the parser admits only those two modes).
    """
    mode = v.return_hidden_states_mode
    if mode is not None:
        return Declare({"enable_return_hidden_states": True},
                       f"--return-hidden-states-mode {mode} returns hidden states")
    if v.enable_return_hidden_states or v.get("enable_return_aux_hidden_states"):
        return Declare({"return_hidden_states_mode": "full"},
                       "returning hidden states without a mode allows the full states")
    return None


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("prefill_decode_interval", "prefill_decode_interval_min_bs"),
    sglang="validate_prefill_decode_interval",
    triggers=("prefill_decode_interval", "prefill_decode_interval_min_bs"),
)
def prefill_decode_interval_check(v: View) -> Refuse | None:
    """The prefill/decode interleaving interval and its batch-size floor are non-negative.

    When: whenever its promises hold.
    Effect: refuses a negative ``--prefill-decode-interval`` or
        ``--prefill-decode-interval-min-bs`` ("must be non-negative").
    Why: a negative interval or batch floor has no meaning; SGLang validates them before
        reading the model (``validate_prefill_decode_interval``).
    Assumes: nothing.
    """
    interval = v.prefill_decode_interval
    if interval is not None and interval < 0:
        return Refuse(f"--prefill-decode-interval must be non-negative, got {interval}")
    if v.prefill_decode_interval_min_bs < 0:
        return Refuse("--prefill-decode-interval-min-bs must be non-negative, got "
                      f"{v.prefill_decode_interval_min_bs}")
    return None


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("enable_response_store", "disaggregation_mode"),
    sglang="validate_response_store",
    triggers=("enable_response_store",),
)
def response_store_check(v: View) -> Refuse | None:
    """Stored responses live on one server, so the response store is off in PD mode.

    When: ``enable_response_store`` is true and ``disaggregation_mode`` is not null.
    Effect: refuses: "--enable-response-store is not supported with PD disaggregation".
    Why: a stored response lives on the server that produced it, which prefill/decode
        disaggregation splits in two (``validate_response_store``).
    Assumes: nothing.
    """
    if v.enable_response_store and v.disaggregation_mode != "null":
        return Refuse("--enable-response-store is not supported with PD disaggregation")
    return None


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("sampling_mask_max_tokens",),
    sglang="validate_sampling_mask_max_tokens",
)
def sampling_mask_max_tokens_check(v: View) -> Refuse | None:
    """The sampling-mask token budget is positive; its retired environment variable is refused.

    When: whenever its promises hold.
    Effect: refuses SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS in the environment (use the
        flag on both PD servers instead) and a ``--sampling-mask-max-tokens`` that is not
        positive.
    Why: PD servers must agree on the budget, so it moved from the environment to a flag
        (``validate_sampling_mask_max_tokens``).
    Assumes: the environment given is the server's (an unset variable is absent).
    """
    if "SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS" in v.env:
        return Refuse("SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS is no longer supported; "
                      "unset it and use --sampling-mask-max-tokens on both PD servers")
    if v.sampling_mask_max_tokens <= 0:
        return Refuse("--sampling-mask-max-tokens must be positive, got "
                      f"{v.sampling_mask_max_tokens}")
    return None


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("enable_return_aux_hidden_states", "return_aux_hidden_state_layer_ids",
           "speculative_algorithm", "speculative_draft_model_path", "pp_size"),
    writes=("speculative_algorithm", "aux_hidden_state_capture"),
    sglang="handle_aux_hidden_state_capture",
    triggers=("enable_return_aux_hidden_states", "return_aux_hidden_state_layer_ids"),
)
def aux_hidden_state_capture(v: View) -> Declare | Refuse | None:
    """``--enable-return-aux-hidden-states`` captures draft-training features without a draft.

    When: capture is enabled, or layer ids are given without it (refused).
    Effect: ``--speculative-algorithm`` then only names the capture convention (EAGLE3, DFLASH
        or DSPARK): it moves to ``aux_hidden_state_capture`` and ``speculative_algorithm``
        becomes None. Refuses layer ids without capture, another algorithm, a draft path,
        pp_size > 1, DFLASH/DSPARK without layer ids, and empty, negative or repeated ids.
    Why: the capture hooks see only the last pipeline rank's layers and use the named
        algorithm's layer convention (``handle_aux_hidden_state_capture``).
    Assumes: nothing.
    """
    layer_ids = v.return_aux_hidden_state_layer_ids
    if not v.enable_return_aux_hidden_states:
        if layer_ids is not None:
            return Refuse("--return-aux-hidden-state-layer-ids needs "
                          "--enable-return-aux-hidden-states")
        return None
    method = (v.speculative_algorithm or "").upper()
    if method not in AUX_CAPTURE_METHODS:
        return Refuse("--enable-return-aux-hidden-states needs --speculative-algorithm EAGLE3, "
                      f"DFLASH or DSPARK to name the capture convention; got "
                      f"{v.speculative_algorithm!r}")
    if v.speculative_draft_model_path is not None:
        return Refuse("--enable-return-aux-hidden-states captures without a draft; drop "
                      "--speculative-draft-model-path")
    if v.pp_size != 1:
        return Refuse("--enable-return-aux-hidden-states supports pp_size 1 only")
    if method != "EAGLE3" and not layer_ids:
        return Refuse(f"--enable-return-aux-hidden-states with {method} needs "
                      "--return-aux-hidden-state-layer-ids")
    if layer_ids is not None:
        if len(layer_ids) == 0:
            return Refuse("--return-aux-hidden-state-layer-ids must not be empty")
        if any(i < 0 for i in layer_ids):
            return Refuse("--return-aux-hidden-state-layer-ids must be non-negative")
        if len(set(layer_ids)) != len(layer_ids):
            return Refuse("--return-aux-hidden-state-layer-ids must not repeat a layer")
    return Declare({"speculative_algorithm": None, "aux_hidden_state_capture": method.lower()},
                   f"auxiliary hidden states captured with the {method} convention; "
                   "speculative decoding is off")


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("mm_preprocess_cache_size_mb", "mm_process_config"),
    sglang="handle_multimodal",
    triggers=("mm_preprocess_cache_size_mb", "mm_process_config"),
)
def serving_value_checks(v: View) -> Refuse | None:
    """Multimodal serving values SGLang validates before reading the model.

    When: whenever its promises hold.
    Effect: refuses a negative ``--mm-preprocess-cache-size-mb``, and an
        ``--mm-process-config`` that is not an object or whose ``image``/``video``/``audio``
        entries are not objects.
    Why: a negative cache size cannot hold anything, and the processors read per-modality
        objects (``handle_multimodal``).
    Assumes: nothing.
    """
    cache = v.mm_preprocess_cache_size_mb
    if cache is not None and cache < 0:
        return Refuse(f"--mm-preprocess-cache-size-mb must be non-negative, got {cache}")
    config = v.mm_process_config
    if config is not None:
        if not isinstance(config, dict):
            return Refuse("--mm-process-config must be a JSON object, got "
                          f"{type(config).__name__}")
        for key in ("image", "video", "audio"):
            if key in config and not isinstance(config[key], dict):
                return Refuse(f"--mm-process-config {key!r} must be a JSON object, got "
                              f"{type(config[key]).__name__}")
    return None


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("ssl_keyfile", "ssl_certfile", "ssl_ca_certs", "ssl_keyfile_password",
           "enable_ssl_refresh", "enable_http_worker_reuseport", "tokenizer_worker_num",
           "enable_http2", "http2_max_concurrent_streams",
           "http2_initial_connection_window_size"),
    sglang="handle_ssl_validation",
    triggers=("ssl_keyfile", "ssl_certfile", "ssl_ca_certs", "ssl_keyfile_password",
              "enable_ssl_refresh", "enable_http_worker_reuseport", "enable_http2"),
)
def ssl_http_checks(v: View) -> Refuse | None:
    """TLS settings come as a key and certificate pair; HTTP/2 and port-reuse settings hold.

    When: whenever its promises hold.
    Effect: refuses a key without a certificate or a certificate without a key; a CA bundle or
        key password without both; a key, certificate or CA file that is not a file;
        certificate refresh without both; port reuse with one
        tokenizer worker or with HTTP/2; HTTP/2 with a stream limit outside 1..2^32-1 or an
        initial connection window outside 1024..2^31-1, or with certificate refresh.
    Why: uvicorn serves TLS from the pair, the reused port is shared by several tokenizer
        workers, and granian (HTTP/2) neither reuses ports this way nor reloads certificates
        (``handle_ssl_validation``).
    Assumes: the files are checked where launchplan runs, as SGLang checks them where it
        resolves (plan on the serving host, or with the same paths); granian is installed when
        HTTP/2 is asked for.
    """
    key, cert = v.ssl_keyfile, v.ssl_certfile
    if key and not cert:
        return Refuse("--ssl-keyfile needs --ssl-certfile")
    if cert and not key:
        return Refuse("--ssl-certfile needs --ssl-keyfile")
    if not (key or cert):
        if v.ssl_ca_certs:
            return Refuse("--ssl-ca-certs does nothing without --ssl-certfile and --ssl-keyfile")
        if v.ssl_keyfile_password:
            return Refuse("--ssl-keyfile-password does nothing without --ssl-certfile and "
                          "--ssl-keyfile")
    for flag, path in (("--ssl-keyfile", key), ("--ssl-certfile", cert),
                       ("--ssl-ca-certs", v.ssl_ca_certs)):
        if path and not Path(str(path)).is_file():
            return Refuse(f"{flag}: no file {path!r}")
    if v.enable_ssl_refresh and not (key and cert):
        return Refuse("--enable-ssl-refresh needs --ssl-certfile and --ssl-keyfile")
    if v.enable_http_worker_reuseport and (v.tokenizer_worker_num == 1 or v.enable_http2):
        return Refuse("--enable-http-worker-reuseport needs --tokenizer-worker-num above 1 and "
                      "does nothing with --enable-http2")
    if v.enable_http2:
        if not 0 < v.http2_max_concurrent_streams < 2**32:
            return Refuse("--http2-max-concurrent-streams must be in 1..4294967295, got "
                          f"{v.http2_max_concurrent_streams}")
        if not 1024 <= v.http2_initial_connection_window_size < 2**31:
            return Refuse("--http2-initial-connection-window-size must be in 1024..2147483647, "
                          f"got {v.http2_initial_connection_window_size}")
        if v.enable_ssl_refresh:
            return Refuse("--enable-ssl-refresh does not work with --enable-http2 (granian "
                          "cannot reload certificates)")
    return None


WATERMARK_FIELDS = ("key", "key_b", "context_window", "mixing_probability", "max_probability",
                    "default_enabled", "enforce_all")
WATERMARK_MAX_BYTES = 4096  # SGLang's cap on the config, inline or read from the file
HEX = frozenset("0123456789abcdefABCDEF")


def _watermark_payload(source: str) -> str | None:
    """The config's JSON text: inline when it starts with ``{``, else the file's first
    4097 bytes; None when the file cannot be read."""
    if source.lstrip().startswith("{"):
        return source
    try:
        path = Path(source).expanduser()
        if not path.is_file():
            return None
        with open(path, encoding="utf-8") as fh:
            return fh.read(WATERMARK_MAX_BYTES + 1)
    except (OSError, UnicodeError):
        return None


def _watermark_problem(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return "must be a JSON object"
    unknown = sorted(set(raw) - set(WATERMARK_FIELDS))
    if unknown:
        return f"has unknown fields {unknown}"
    for name in ("key", "key_b"):
        key = raw.get(name)
        if key is None:
            continue
        digits = key[2:] if isinstance(key, str) and key.lower().startswith("0x") else key
        if not isinstance(key, str) or not 1 <= len(digits) <= 16 or set(digits) - HEX:
            return f"{name} must be a string of 1 to 16 hex digits"
    window = raw.get("context_window")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int)
                               or not 1 <= window <= 64):
        return "context_window must be an integer from 1 to 64"
    for name in ("mixing_probability", "max_probability"):
        value = raw.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return f"{name} must be a number"
    for name in ("default_enabled", "enforce_all"):
        if raw.get(name) is not None and not isinstance(raw[name], bool):
            return f"{name} must be true or false"
    return None


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("watermark_config",),
    writes=tuple(f"watermark_{name}" for name in WATERMARK_FIELDS),
    sglang="handle_watermark_config",
    triggers=("watermark_config",),
)
def watermark_config(v: View) -> Declare | Refuse | None:
    """A watermark config (inline JSON or a file) sets the watermark fields it names.

    When: ``--watermark-config`` is given.
    Effect: declares ``watermark_<name>`` for each key the config sets; refuses a file that
        cannot be read, a config over 4096 bytes, text that is not JSON, anything but an
        object, unknown keys, a key that is not 1-16 hex digits, a context window outside
        1..64, non-numeric probabilities and non-boolean switches.
    Why: the config carries the watermark keys so that they stay off the command line
        (``handle_watermark_config``, ``load_watermark_config``).
    Assumes: a config file reads the same at launch time as when launchplan reads it (a path
        that does not exist here is refused, as SGLang refuses it on the serving host).
    """
    source = v.watermark_config
    if source is None:
        return None
    payload = _watermark_payload(str(source))
    if payload is None:
        return Refuse(f"--watermark-config: cannot read {source!r} as a JSON config")
    if len(payload.encode("utf-8")) > WATERMARK_MAX_BYTES:
        return Refuse("--watermark-config exceeds 4096 bytes")
    try:
        raw = json.loads(payload)
    except json.JSONDecodeError:
        return Refuse(f"--watermark-config: {source!r} is not JSON")
    problem = _watermark_problem(raw)
    if problem is not None:
        return Refuse(f"--watermark-config {problem}")
    out = {f"watermark_{name}": raw[name] for name in WATERMARK_FIELDS
           if raw.get(name) is not None}
    return Declare(out, "watermark settings from --watermark-config") if out else None


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("asr_max_buffer_seconds", "asr_max_concurrent_sessions"),
    sglang="handle_asr_validation",
    triggers=("asr_max_buffer_seconds", "asr_max_concurrent_sessions"),
)
def asr_value_checks(v: View) -> Refuse | None:
    """Speech-recognition serving needs a buffer and at least one session.

    When: whenever its promises hold.
    Effect: refuses a non-positive ``--asr-max-buffer-seconds`` or
        ``--asr-max-concurrent-sessions``.
    Why: an empty audio buffer or no session cannot serve a transcription; SGLang checks them
        after the SSL settings (``handle_asr_validation``).
    Assumes: nothing.
    """
    if v.asr_max_buffer_seconds <= 0:
        return Refuse(f"--asr-max-buffer-seconds must be positive, got "
                      f"{v.asr_max_buffer_seconds}")
    if v.asr_max_concurrent_sessions <= 0:
        return Refuse(f"--asr-max-concurrent-sessions must be positive, got "
                      f"{v.asr_max_concurrent_sessions}")
    return None


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("allowed_media_domains", "media_url_max_file_size_mb"),
    writes=("allowed_media_domains",),
    sglang="handle_media_url_security",
)
def media_url_policy(v: View) -> Declare | Refuse | dict[str, list[str]] | None:
    """The media-URL policy: a size limit of 0 or more, allowed domains as bare hostnames.

    When: always (SGLang runs the hook on every launch and declares the list, empty when
        none is given: a real start-up log's ``allowed_media_domains=[]`` is its answer).
    Effect: refuses a negative size limit; refuses a domain that is not a string, is empty,
        carries a scheme, path, query, fragment, user or port; declares the domains
        normalised (trailing dots and IPv6 brackets dropped, IP addresses in canonical
        form, names IDNA-encoded and lower-cased), de-duplicated and sorted (an empty list
        when none is given); a warning only when that rewrote the domains given.
    Why: workers fetch client-supplied media URLs and check each host against this list
        and each body against the limit, so both are fixed once before workers start
        (``handle_media_url_security``, the same in 0.5.21-0.5.23).
    Assumes: nothing.
    """
    limit = v.media_url_max_file_size_mb
    if limit < 0:
        return Refuse(f"--media-url-max-file-size-mb must be 0 or more; got {limit}")
    normalised = set()
    for domain in v.allowed_media_domains or ():
        host = _media_host(domain)
        if isinstance(host, Refuse):
            return host
        normalised.add(host)
    domains = sorted(normalised)
    if domains == v.allowed_media_domains or not v.allowed_media_domains:
        return {"allowed_media_domains": domains}  # nothing rewritten: no warning
    return Declare({"allowed_media_domains": domains},
                   "the media-URL policy: allowed domains normalised")


def _media_host(domain: Any) -> str | Refuse:
    """One allowed media domain as the URL check compares hosts, or why it cannot be one."""
    if not isinstance(domain, str):
        return Refuse(f"--allowed-media-domains takes hostnames; got {domain!r}")
    host = domain.strip().rstrip(".")
    if not host:
        return Refuse("--allowed-media-domains has an empty domain")
    if "://" in host or any(char in host for char in "/?#@"):
        return Refuse(f"--allowed-media-domains {domain!r}: give a hostname only, without "
                      "scheme, path, query or user")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    import ipaddress  # only when domains are given: off the plain resolve's import path

    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        if ":" in host:
            return Refuse(f"--allowed-media-domains {domain!r}: a port cannot be given")
    try:
        name = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return Refuse(f"--allowed-media-domains {domain!r} is not a valid hostname")
    if not name:
        return Refuse("--allowed-media-domains has an empty domain")
    return name
