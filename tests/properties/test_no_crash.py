"""No input crashes launchplan: every run ends in a plan or one line on stderr with a
documented exit code (0 plan, 2 bad input, 3 refused), never a traceback.

CI runs a few hundred examples; ``LAUNCHPLAN_FUZZ_EXAMPLES=10000 make fuzz`` runs more.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from launchplan.commands.main import main
from launchplan.facts.targets import CATALOG
from launchplan.input.fields import FIELDS

EXAMPLES = int(os.environ.get("LAUNCHPLAN_FUZZ_EXAMPLES", "150"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

FLAGS = sorted({flag for spec in FIELDS.values() for flag in spec.flags})
WEIRD_TEXT = st.sampled_from(["", " ", "-1", "0", "1e309", "nan", "inf", "9" * 40, "None",
                              "true", "false", "{}", "[]", "{\"decode\": 1}", "ü∂ß", "\x00",
                              "a" * 5000, "--", "-", "=", "fa4", "128", "16k", "1Mi"])


# Numbers SGLang's parser admits at the edges: zero, negatives, 32/64-bit overflows, the
# largest double, non-finite floats (issue 15), and JSON flags holding such numbers.
EXTREME_TEXT = st.sampled_from(["0", "-1", "-0.0", "2147483648", "-2147483649",
                                "9223372036854775808", "18446744073709551616", "1e308",
                                "-1e308", "5e-324", "nan", "inf", "-inf", "1Ti", "999T"])
EXTREME_JSON = st.sampled_from([
    '{"decode": {"max_bs": 2147483648}}', '{"prefill": {"max_bs": 9223372036854775808}}',
    '{"decode": {"max_bs": 0}}', '{"decode": {"bs": []}}', '{"prefill": {"bs": [0, -1]}}',
    '{"decode": {"max_bs": 1e308}}', '{"prefill": {"max_context_size": Infinity}}',
    '{"decode": {"max_bs": NaN}}', '[NaN, Infinity, -Infinity]', '{"a": 1e308}'])


def _values(spec) -> st.SearchStrategy[str]:
    options = [WEIRD_TEXT, EXTREME_TEXT, st.integers(-2**70, 2**70).map(str),
               st.floats(allow_nan=True).map(str), st.text(max_size=20)]
    if spec.parse in ("loads", "json_list_type", "parse_cuda_graph_config_arg"):
        options.append(EXTREME_JSON)
    if spec.choices:
        options.append(st.sampled_from([str(c) for c in spec.choices]))
    return st.one_of(*options)


@st.composite
def command_lines(draw) -> list[str]:
    argv: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        flag = draw(st.sampled_from(FLAGS))
        name = next(n for n, s in FIELDS.items() if flag in s.flags)
        argv.append(flag)
        if FIELDS[name].nargs != 0:
            for _ in range(draw(st.integers(0, 2))):
                argv.append(draw(_values(FIELDS[name])))
        if draw(st.booleans()) and argv:
            argv.append(argv[-1])  # repeated or dangling tokens
    if draw(st.integers(0, 9)) == 0:
        argv.insert(draw(st.integers(0, len(argv))), draw(WEIRD_TEXT))
    return argv


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not RFC 8259 JSON")


def strict_json(text: str) -> object:
    """``json.loads`` that refuses NaN and Infinity tokens, as an RFC 8259 reader does."""
    return json.loads(text, parse_constant=_reject_constant)


def run(argv, capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_clean(code: int, out: str, err: str) -> None:
    assert code in (0, 2, 3), (code, err)
    assert "Traceback" not in err and "internal error" not in err
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("launchplan: ")
    if code == 3:
        assert err.startswith("launchplan: ")


@SETTINGS
@given(argv=command_lines(), gpu=st.sampled_from(sorted(CATALOG)),
       model=st.sampled_from(["llama-3.1-8b", "deepseek-v3", "gpt-oss-20b", "qwen3-8b"]),
       fmt=st.sampled_from(["json", "table"]))
def test_any_command_line(argv, gpu, model, fmt, capsys):
    code, out, err = run(["resolve", "--gpu", gpu, "--model-path", model, *argv,
                          "--format", fmt], capsys)
    assert_clean(code, out, err)
    if code in (0, 3) and fmt == "json" and out:
        strict_json(out)


JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(),
                      st.text(max_size=10))
JSON_VALUE = st.recursive(JSON_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20)
KEYS = ["architectures", "num_attention_heads", "num_key_value_heads", "hidden_size",
        "head_dim", "max_position_embeddings", "rope_scaling", "quantization_config",
        "torch_dtype", "kv_lora_rank", "text_config", "model_type", "sliding_window",
        "num_hidden_layers", "vocab_size", "index_topk"]


@st.composite
def config_files(draw) -> bytes:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.binary(max_size=200))
    if kind == 1:
        return draw(st.text(max_size=200)).encode("utf-8", "surrogatepass")
    base = json.loads((Path(__file__).parents[2] / "src/launchplan/facts/data/models"
                       / draw(st.sampled_from(["llama-3.1-8b", "deepseek-v3"])) / "config.json")
                      .read_text())
    for _ in range(draw(st.integers(0, 4))):
        key = draw(st.sampled_from(KEYS))
        if draw(st.booleans()):
            base.pop(key, None)
        else:
            base[key] = draw(JSON_VALUE)
    if kind == 2:
        depth = draw(st.integers(50, 3000))
        return (b'{"architectures": ["LlamaForCausalLM"], "x": ' + b"[" * depth + b"]" * depth
                + b"}")
    try:
        return json.dumps(base, allow_nan=True).encode()
    except (ValueError, RecursionError):
        return b"{}"


@SETTINGS
@given(content=config_files(), gpu=st.sampled_from(["h100", "b200", "mi300x"]),
       argv=st.sampled_from([[], ["--attention-backend", "fa4"], ["--tp-size", "8"]]))
def test_any_model_config(tmp_path_factory, content, gpu, argv, capsys):
    folder = tmp_path_factory.mktemp("model")
    (folder / "config.json").write_bytes(content)
    code, out, err = run(["resolve", "--gpu", gpu, "--model-path", str(folder), *argv,
                          "--format", "json"], capsys)
    assert_clean(code, out, err)
    if code in (0, 3) and out:
        strict_json(out)


YAML_DOCS = st.one_of(
    st.sampled_from(["", "{}", "[]", "- a\n- b", "page_size: 16", "page-size: abc",
                     "attention_backend: fa9", "disable_cuda_graph: false",
                     "x: !!python/name:os.system",
                     "!!python/object/apply:os.system ['echo hacked']", "a: &x [*x]",
                     "tp_size: 99999999999999999999",
                     "cuda_graph_config: {decode: {backend: full}}",
                     "\t\tbad indent:\n  - ]", "config: other.yaml", "page_size: [1, 2]"]),
    st.dictionaries(st.sampled_from(["page_size", "tp_size", "attention_backend",
                                     "kv_cache_dtype", "disable_cuda_graph", "dp_size",
                                     "speculative_eagle_topk", "nonsense-key"]),
                    JSON_LEAF, max_size=4).map(json.dumps),
)


@SETTINGS
@given(doc=YAML_DOCS, suffix=st.sampled_from([".yaml", ".yml", ".json", ""]))
def test_any_config_file(tmp_path_factory, doc, suffix, capsys):
    path = tmp_path_factory.mktemp("cfg") / f"launch{suffix}"
    path.write_text(doc)
    code, out, err = run(["resolve", "--gpu", "h100", "--model-path", "llama-3.1-8b",
                          "--config", str(path)], capsys)
    assert_clean(code, out, err)
    assert not Path("hacked").exists()
