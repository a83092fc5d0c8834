#!/usr/bin/env python3
"""Record SGLang's own DFLASH and DSpark draft-config parse for ``test_draft_blocks.py``.

    # the configs (launchplan's side: any Python)
    python tests/parity/tools/record_draft_blocks.py --generate
    # each release's answers (its oracle venv's python)
    /root/sglang-oracle/bin/python tests/parity/tools/record_draft_blocks.py --release 0.5.23
    /root/sglang-oracle-0.5.21/bin/python tests/parity/tools/record_draft_blocks.py \\
        --release 0.5.21

The configs are the parity suite's DFLASH and DSpark drafts, cut to the keys the parse reads
(the text config's layer count, the nested ``dflash_config`` and ``dspark_config``, the
top-level draft keys), then changed one or two keys at a time: values of every JSON kind,
bounds, and settings the parse checks together (a selector rank without its top-k, a Domino
projector, an unsupported Markov head). SGLang's ``parse_dflash_draft_config`` and
``parse_dspark_draft_config`` run on each (as dicts: the same branches an HF config object
takes for these keys); an exception is recorded as None, since the speculative hook catches
it and falls back to its default window.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
MODELS = os.path.join(ROOT, "tests", "parity", "models")
DATA = os.path.join(ROOT, "tests", "parity", "data", "draft-blocks.json")
ORACLE = os.environ.get("SGLANG_ORACLE", "/work/shared/oracle/sglang_oracle.py")
DRAFTS = ("qwen3-8b-dflash-b16", "qwen3-4b-dflash-b16", "qwen3-8b-dspark",
          "qwen3.5-35b-a3b-dflash", "deepseek-v2-lite-dflash")
#: the top-level keys either parse reads
READ = ("num_target_layers", "block_size", "target_layer_ids", "mask_token", "mask_token_id",
        "projector_type", "shift_label", "pure_draft_prefix_len", "gru_hidden_dim", "emb_dim",
        "markov_rank", "markov_head_type", "dspark_block_size", "dspark_markov_rank",
        "dspark_markov_head_type", "dspark_noise_token_id", "dspark_target_layer_ids",
        "num_hidden_layers", "dflash_config", "dspark_config")
NESTED = ("block_size", "num_target_layers", "conv_kernel_size", "conv_group_size",
          "selector_rank", "selector_top_k", "output_multiplier", "final_logit_softcapping",
          "target_layer_ids", "mask_token", "mask_token_id", "attention_sink_bias",
          "attention_value_scale", "projector_type", "shift_label", "pure_draft_prefix_len",
          "gru_hidden_dim", "emb_dim", "markov_rank", "markov_head_type")
VALUES: tuple[Any, ...] = (None, 0, -1, 1, 2, 1.5, 7, "8", "abc", "", [], [1, 2], {}, True,
                           False, "gated", "rnn", "ar", "domino")


def _cut(config: dict[str, Any]) -> dict[str, Any]:
    out = {k: config[k] for k in READ if k in config}
    if isinstance(config.get("text_config"), dict):
        out["text_config"] = {k: v for k, v in config["text_config"].items()
                              if k == "num_hidden_layers"}
    return out


def generate(seed: int = 20261206, count: int = 900) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    bases = []
    for name in DRAFTS:
        with open(os.path.join(MODELS, name, "config.json")) as f:
            bases.append(_cut(json.load(f)))
    seen, out = set(), []
    while len(out) < count:
        config = json.loads(json.dumps(rng.choice(bases)))
        for _ in range(rng.choice((1, 1, 2, 3))):
            where = rng.choice(("top", "dflash_config", "dspark_config", "text_config"))
            key = rng.choice(READ[:17] if where == "top" else NESTED
                             if where != "text_config" else ("num_hidden_layers",))
            block = config if where == "top" else config.setdefault(where, {})
            if not isinstance(block, dict):
                continue
            if rng.random() < 0.15:
                block.pop(key, None)
            else:
                block[key] = rng.choice(VALUES)
        text = json.dumps(config, sort_keys=True)
        if text not in seen:
            seen.add(text)
            out.append(config)
    return out


def _sglang_parsers() -> tuple[Any, Any]:
    spec = importlib.util.spec_from_file_location("sglang_oracle", ORACLE)
    oracle = importlib.util.module_from_spec(spec)
    sys.modules["sglang_oracle"] = oracle
    spec.loader.exec_module(oracle)
    platform = dict(oracle.PLATFORMS["h100"])
    oracle._STUB_ACTIVE.update(oracle.STUB_ROOTS["common"]
                               | oracle.STUB_ROOTS[platform["vendor"]]
                               | {"einops", "partial_json_parser"})
    sys.meta_path.append(oracle._StubFinder())
    oracle.install_device_fakes(platform)
    import sglang.srt.server_args  # noqa: F401

    oracle.install_sglang_probe_patches(platform)
    sys.modules.setdefault("sglang.srt.entrypoints.openai.protocol",
                           oracle._StubModule("sglang.srt.entrypoints.openai.protocol"))
    from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config
    from sglang.srt.speculative.dspark_components.dspark_config import (
        parse_dspark_draft_config,
    )
    return parse_dflash_draft_config, parse_dspark_draft_config


def _answer(parse: Any, config: dict[str, Any], attribute: str) -> Any:
    try:
        return getattr(parse(draft_hf_config=json.loads(json.dumps(config))), attribute)
    except Exception:  # the speculative hook catches it and uses its default window
        return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("--release", help="record this venv's SGLang under this release")
    a = ap.parse_args()
    if a.generate:
        data = {"configs": generate(), "answers": {}}
    else:
        with open(DATA) as f:
            data = json.load(f)
        dflash, dspark = _sglang_parsers()
        data["answers"][a.release] = [
            [_answer(dflash, c, "block_size"), _answer(dspark, c, "gamma")]
            for c in data["configs"]]
    with open(DATA, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print(f"{len(data['configs'])} configs, answers for {sorted(data['answers'])}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
