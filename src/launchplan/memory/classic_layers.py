"""The tensors of the pre-Llama decoder families SGLang still serves, and ChatGLM's keys.

GPT-2, GPT-BigCode (SantaCoder, StarCoder 1), GPT-J and OPT predate the Llama block that
``memory.params`` counts by default: a bias on every linear, LayerNorms with a bias, an MLP
without a gate, and learned absolute positions (GPT-J uses partial rotary ones instead). Their
configs name the sizes in GPT-2's words (``n_embd``, ``n_inner``, ``n_positions``). Counted as
SGLang's classes build them (``gpt2.py``, ``gpt_bigcode.py``, ``gpt_j.py``, ``opt.py``), checked
against SGLang 0.5.23's own modules built on the meta device.

GPT-NeoX (Pythia, Dolly, GPT-NeoX-20B) has no SGLang class: the transformers backend builds
transformers' own model (``models/transformers.py``) with the same block (biased fused QKV,
dense and MLP linears, two biased LayerNorms, an ungated MLP of ``intermediate_size``), rotary
positions with no cos/sin table of SGLang's, and its own ``embed_out`` head unless tied.

ChatGLM (ChatGLM2/3, GLM-4-9B: ``chatglm.py``) has Llama's block under other names
(``num_layers``, ``ffn_hidden_size``, ``kv_channels``, ``multi_query_group_num``,
``padded_vocab_size``); ``canonical`` gives them Llama's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from launchplan.memory.config_ints import config_int as _int

#: model types counted here rather than as a Llama block
CLASSIC_TYPES = frozenset({"gpt2", "gpt_bigcode", "gptj", "opt", "gpt_neox"})
#: the classic types whose head is the embedding itself (SGLang ties it whatever the file says)
TIED_TYPES = frozenset({"gpt2", "gpt_bigcode", "opt"})


def canonical(t: Mapping[str, Any], mt: str) -> Mapping[str, Any]:
    """``t`` with Llama's key names added where ChatGLM's config spells them its own way
    (keys the file already has win); every other type's ``t`` as it is."""
    if mt != "chatglm":
        return t
    heads = _int(t, "num_attention_heads")
    kv = _int(t, "multi_query_group_num") if t.get("multi_query_attention") else heads
    named = {"num_hidden_layers": _int(t, "num_layers"),
             "vocab_size": _int(t, "padded_vocab_size"),
             "intermediate_size": _int(t, "ffn_hidden_size"),
             "head_dim": _int(t, "kv_channels"), "num_key_value_heads": kv,
             # query_key_value's bias (add_qkv_bias); dense's and the MLP's (add_bias_linear)
             "qkv_only_bias": bool(t.get("add_qkv_bias")) and not t.get("add_bias_linear"),
             "attention_bias": bool(t.get("add_bias_linear")),
             "mlp_bias": bool(t.get("add_bias_linear")),
             # its rotary table: half of each head, over seq_length positions (8,192 unset)
             "partial_rotary_factor": 0.5,
             "max_position_embeddings": _int(t, "seq_length", default=8192)}
    return {**{k: v for k, v in named.items() if v}, **t}


def classic_decoder(t: Mapping[str, Any], mt: str, vocab: int, hidden: int, n_layers: int,
                    gqa: Callable[..., list[Any]], ungated_mlp: Callable[..., list[Any]],
                    tensor: Callable[..., Any]) -> list[Any]:
    """Everything but the token embedding and the final norm of a ``CLASSIC_TYPES`` model:
    its positions, its layers and GPT-J's head. ``gqa``, ``ungated_mlp`` and ``tensor`` are
    ``memory.params``' builders (attention, an ungated MLP and its ``Tensor``)."""
    heads = _int(t, "num_attention_heads", "n_head")
    kv = 1 if mt == "gpt_bigcode" and t.get("multi_query", True) else heads
    inter = _int(t, "n_inner", "ffn_dim", "intermediate_size") or 4 * hidden
    # every classic linear is biased but GPT-J's attention (q/k/v and out_proj)
    shaped = {**t, "hidden_size": hidden, "num_attention_heads": heads,
              "num_key_value_heads": kv, "head_dim": hidden // max(heads, 1),
              "attention_bias": mt != "gptj"}
    layers = tuple(range(n_layers))
    p = "model.layers.{i}"
    out: list[Any] = []
    if mt in ("gpt2", "gpt_bigcode"):
        out.append(tensor("model.wpe", "embedding", (_int(t, "n_positions",
                                                            "max_position_embeddings"), hidden)))
    elif mt == "opt":  # positions offset by two (``OPTLearnedPositionalEmbedding``)
        out.append(tensor("model.embed_positions", "embedding",
                          (_int(t, "max_position_embeddings") + 2, hidden)))
        proj = _int(t, "word_embed_proj_dim") or hidden
        if proj != hidden:  # project_in and project_out, no bias
            out += [tensor("model.project_in", "embedding", (hidden, proj)),
                    tensor("model.project_out", "embedding", (proj, hidden))]
    # LayerNorms carry a bias: two per layer, one for GPT-J's parallel attention and MLP
    norms = 1 if mt == "gptj" else 2
    out.append(tensor(f"{p}.layer_norms", "norms", (2 * hidden, 1), layers, norms))
    out += gqa(shaped, mt, layers, p)
    out += ungated_mlp(f"{p}.mlp", hidden, inter, layers, True)
    if mt == "gptj":  # GPT-J's head is its own, with a bias
        out += [tensor("lm_head", "lm_head", (vocab, hidden), shard="head"),
                tensor("lm_head.bias", "lm_head", (vocab, 1), shard="head")]
    elif mt == "gpt_neox" and not t.get("tie_word_embeddings"):  # its embed_out, no bias
        out.append(tensor("lm_head", "lm_head", (vocab, hidden), shard="head"))
    return out
