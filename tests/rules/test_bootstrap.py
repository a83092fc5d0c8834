"""Bootstrap rules (steps 1-11)."""

from __future__ import annotations

from launchplan.engine.declarations import Declare, Refuse
from launchplan.rules import bootstrap as b
from tests.rules.conftest import decide, make_view


def fields(out):
    return out.fields if isinstance(out, Declare) else out


def test_deprecated_dp_attention():
    out = b.deprecated_dp_attention(make_view(enable_dp_attention=True, dp_size=4, tp_size=4))
    assert fields(out) == {"attn_dp_size": 4, "dp_size": 1, "enable_dp_attention": False}
    out = b.deprecated_dp_attention(make_view(enable_dp_attention=True, dp_size=2,
                                              attn_dp_size=4))
    assert fields(out) == {"enable_dp_attention": False}
    assert b.deprecated_dp_attention(make_view(dp_size=2)) is None


def test_range_checks():
    assert isinstance(b.prefill_decode_interval_check(make_view(prefill_decode_interval=-1)),
                      Refuse)
    assert b.prefill_decode_interval_check(make_view(prefill_decode_interval=3)) is None
    assert isinstance(b.response_store_check(make_view(enable_response_store=True,
                                                       disaggregation_mode="prefill")), Refuse)
    assert b.response_store_check(make_view(enable_response_store=True)) is None
    assert isinstance(b.sampling_mask_max_tokens_check(make_view(sampling_mask_max_tokens=0)),
                      Refuse)
    assert isinstance(b.sampling_mask_max_tokens_check(make_view(
        env={"SGLANG_DISAGGREGATION_SAMPLING_MASK_MAX_TOKENS": "8"})), Refuse)
    assert b.sampling_mask_max_tokens_check(make_view()) is None


def test_aux_hidden_state_capture():
    out = b.aux_hidden_state_capture(make_view(enable_return_aux_hidden_states=True,
                                               speculative_algorithm="eagle3"))
    assert fields(out) == {"speculative_algorithm": None, "aux_hidden_state_capture": "eagle3"}
    out = b.aux_hidden_state_capture(make_view(enable_return_aux_hidden_states=True,
                                               speculative_algorithm="DFLASH",
                                               return_aux_hidden_state_layer_ids=[1, 5]))
    assert fields(out)["aux_hidden_state_capture"] == "dflash"
    for bad in (dict(speculative_algorithm="EAGLE"),
                dict(speculative_algorithm="DFLASH"),
                dict(speculative_algorithm="EAGLE3", speculative_draft_model_path="d"),
                dict(speculative_algorithm="EAGLE3", return_aux_hidden_state_layer_ids=[1, 1])):
        assert isinstance(b.aux_hidden_state_capture(make_view(
            enable_return_aux_hidden_states=True, **bad)), Refuse)
    assert isinstance(b.aux_hidden_state_capture(make_view(
        return_aux_hidden_state_layer_ids=[1])), Refuse)
    assert b.aux_hidden_state_capture(make_view(speculative_algorithm="EAGLE")) is None


def test_serving_value_checks():
    assert b.serving_value_checks(make_view()) is None
    assert b.serving_value_checks(make_view(mm_preprocess_cache_size_mb=0)) is None
    for bad in (dict(mm_preprocess_cache_size_mb=-1), dict(mm_process_config=[1]),
                dict(mm_process_config={"image": 3})):
        assert isinstance(b.serving_value_checks(make_view(**bad)), Refuse), bad
    assert b.serving_value_checks(make_view(mm_process_config={"image": {}})) is None


def test_asr_value_checks():
    """Checked after the SSL settings (recorded: wild/182 of the second draw refuses an
    unpaired --ssl-ca-certs before a zero ASR buffer)."""
    assert b.asr_value_checks(make_view()) is None
    for bad in (dict(asr_max_buffer_seconds=0), dict(asr_max_concurrent_sessions=-1)):
        assert isinstance(b.asr_value_checks(make_view(**bad)), Refuse), bad


def test_ssl_http_checks(tmp_path):
    """Recorded: wild run 1 (--ssl-keyfile alone; --enable-http-worker-reuseport with one
    tokenizer worker) and wild/ssl/pair (files that do not exist) are refused by SGLang's SSL
    validation."""
    key, cert, ca = (tmp_path / name for name in ("k.pem", "c.pem", "ca.pem"))
    for path in (key, cert, ca):
        path.write_text("-")
    pair = dict(ssl_keyfile=str(key), ssl_certfile=str(cert))
    for bad in (dict(ssl_keyfile=str(key)), dict(ssl_certfile=str(cert)),
                dict(ssl_ca_certs=str(ca)), dict(ssl_keyfile_password="pw"),
                dict(enable_ssl_refresh=True), dict(enable_http_worker_reuseport=True),
                dict(ssl_keyfile="missing.pem", ssl_certfile=str(cert)),
                dict(pair, ssl_ca_certs=str(tmp_path / "missing")),
                dict(enable_http_worker_reuseport=True, tokenizer_worker_num=4,
                     enable_http2=True),
                dict(enable_http2=True, http2_max_concurrent_streams=0),
                dict(enable_http2=True, http2_initial_connection_window_size=1000),
                dict(pair, enable_http2=True, enable_ssl_refresh=True)):
        assert isinstance(b.ssl_http_checks(make_view(**bad)), Refuse), bad
    for good in (dict(pair, ssl_ca_certs=str(ca), enable_ssl_refresh=True),
                 dict(enable_http_worker_reuseport=True, tokenizer_worker_num=2),
                 dict(enable_http2=True)):
        assert b.ssl_http_checks(make_view(**good)) is None, good


def test_watermark_config(tmp_path):
    """Inline JSON or a file; recorded: wild run 1 (--watermark-config x, no such file)."""
    out = b.watermark_config(make_view(watermark_config='{"key": "0xabc", "context_window": 4}'))
    assert out.fields == {"watermark_key": "0xabc", "watermark_context_window": 4}
    path = tmp_path / "wm.json"
    path.write_text('{"enforce_all": true}')
    assert b.watermark_config(make_view(watermark_config=str(path))).fields == {
        "watermark_enforce_all": True}
    for bad in ("x", str(tmp_path), "{not json", "[1]", '{"other": 1}', '{"key": "xyz"}',
                '{"key": "0x' + "f" * 17 + '"}', '{"context_window": 65}',
                '{"context_window": true}', '{"max_probability": "0.5"}',
                '{"default_enabled": 1}', '{"key": "' + "a" * 5000 + '"}'):
        assert isinstance(b.watermark_config(make_view(watermark_config=bad)), Refuse), bad
    assert b.watermark_config(make_view(watermark_config="{}")) is None


def test_media_url_policy():
    """SGLang fixes the media-URL policy before workers start: a size limit of 0 or more,
    allowed domains as bare hostnames, normalised, de-duplicated and sorted; a warning only
    when that rewrote the domains given."""
    from launchplan.rules.bootstrap import media_url_policy

    def fields(out):
        return out.fields if isinstance(out, Declare) else out

    refused = decide(media_url_policy, make_view(media_url_max_file_size_mb=-1))
    assert isinstance(refused, Refuse) and "-1" in refused.message
    assert fields(decide(media_url_policy, make_view(media_url_max_file_size_mb=0))) == {
        "allowed_media_domains": []}
    out = decide(media_url_policy, make_view(
        allowed_media_domains=["Example.COM.", "[::1]", "b.org", "example.com", "10.0.0.1"]))
    assert isinstance(out, Declare) and out.note
    assert out.fields == {"allowed_media_domains": ["10.0.0.1", "::1", "b.org", "example.com"]}
    out = decide(media_url_policy, make_view(allowed_media_domains=["b.org", "a.org"]))
    assert isinstance(out, Declare) and fields(out) == {"allowed_media_domains": ["a.org", "b.org"]}
    # already normalised: declared, nothing to warn of
    assert decide(media_url_policy, make_view(allowed_media_domains=["a.org", "b.org"])) == {
        "allowed_media_domains": ["a.org", "b.org"]}
    # no media flag: SGLang's hook still declares the (empty) list, as real logs show
    assert decide(media_url_policy, make_view()) == {"allowed_media_domains": []}
    for bad in ("https://a.org", "a.org/x", "user@a.org", "a.org:8080", " ", "."):
        out = decide(media_url_policy, make_view(allowed_media_domains=[bad]))
        assert isinstance(out, Refuse), bad


def test_return_hidden_states_mode_and_its_switch_imply_each_other():
    """Recorded: refusals' serve/return-hidden-mode (the mode given: SGLang re-declares the
    switch true in _handle_return_hidden_states_mode)."""
    out = b.return_hidden_states_mode(make_view(return_hidden_states_mode="last"))
    assert isinstance(out, Declare) and out.fields == {"enable_return_hidden_states": True}
    for on in (dict(enable_return_hidden_states=True),
               dict(enable_return_aux_hidden_states=True)):
        out = b.return_hidden_states_mode(make_view(**on))
        assert isinstance(out, Declare) and out.fields == {"return_hidden_states_mode": "full"}
    assert b.return_hidden_states_mode(make_view()) is None
