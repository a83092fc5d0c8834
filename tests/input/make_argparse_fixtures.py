"""Record what SGLang 0.5.23's real parser makes of many command lines.

Run inside a venv that has SGLang 0.5.23 installed (it is NOT run by the test suite)::

    python tests/input/make_argparse_fixtures.py

Every case goes through ``sglang.srt.server_args.prepare_server_args`` (parser, YAML merger,
log-level setup, record construction). For a success we keep the fields whose value differs from
a plain ``--model-path m`` record, plus that baseline record itself; for a failure, how it failed.
``test_matches_real_parser`` in ``tests/input/test_cli.py`` replays the recording against
``parse_argv``.

Cases are generated from the shipped field table (every flag, every action kind and type
function) plus hand-written edge cases; config files are stored in the recording and written to
a temporary directory (``@DIR@`` in argv) both here and in the test.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import platform
import random
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TABLE = HERE.parents[1] / "src" / "launchplan" / "input" / "data" / "sglang-0.5.23-fields.json"
OUT = HERE / "data" / "argparse-fixtures.json"
M = ["--model-path", "m"]

# --- value samples per type function: (valid-looking, invalid-looking) -----------------------

SAMPLES: dict[str | None, tuple[list[str], list[str]]] = {
    "int": (["7", "-3", "1_000", " 12 "], ["abc", "2.5", ""]),
    "float": (["0.25", "-1.5", "1e-3", "nan", "3"], ["abc", "1,5"]),
    "str": (["some-value", "with space", "-5", "-a b"], ["-dash"]),
    None: (["some-value"], []),
    "human_readable_int": (["128k", "1.5M", "2Ki", " 64 ", "12", "25.6k", "0.0005k"],
                           ["1.5Ki", "1K", "abc", "-1k", "1e3"]),
    "json_list_type": (['["a", "b"]', "[1, 2]", '{"k": 1}', "18446744073709551616", "5"],
                       ["NaN", "[1,", "[Infinity]", "1e400", '"\\ud800"', "\ufeff[1]"]),
    "loads": (['{"a": 1}', "[1, 2]", "NaN", '"text"'], ["nope", "{'a': 1}"]),
    "nullable_str": (["None", "", "path/x"], []),
    "parse_cuda_graph_backend_arg": (["full", "breakable", "disabled"], ["tc_piecewise", "bogus"]),
    "parse_cuda_graph_config_arg": (
        ['{"decode": {"backend": "full", "max_bs": 64}}',
         '{"prefill": {"max_seq_len": 4096, "bs": [1, 2], "backend": "breakable"}}',
         '{"prefill": {"full_prefill_max_req": 2, "max_context_size": 8192}, "decode": {}}',
         "{}", '{"decode": {"backend": 5}}'],
        ['{"decode": {"max_seq_len": 1}}', '{"verify": {}}', "[1]",
         '{"prefill": {"backend": "tc_piecewise"}}', "not json", '{"decode": 5}',
         '{"decode": {"tc_compiler": "eager"}}']),
}


def value_samples(field: dict, full: bool) -> tuple[list[str], list[str]]:
    parse, choices = field["parse"], field["choices"]
    if choices:
        good = [str(c) for c in (choices if full else choices[:1] + choices[-1:])]
        bad = ["bogus-choice"] if field["parse"] != "int" else ["99", "x"]
        if parse == "parse_cuda_graph_backend_arg":
            bad = ["tc_piecewise", "bogus"]
        return good, bad
    good, bad = SAMPLES[parse]
    return (good, bad) if full else (good[:1], bad[:1])


def field_cases(fields: list[dict]) -> list[dict]:
    cases: list[dict] = []
    seen_parse: dict[tuple, int] = {}

    def add(tag: str, argv: list[str]) -> None:
        cases.append({"tag": tag, "argv": M + argv})

    for f in fields:
        flags, action, nargs = f["flags"], f["action"], f["nargs"]
        if not flags or f["name"] == "model_path":
            continue
        flag = flags[0]
        key = (action, f["parse"], nargs, bool(f["choices"]))
        count = seen_parse[key] = seen_parse.get(key, 0) + 1
        full = count <= 2
        tag = f["name"]
        if action in ("_StoreTrueAction", "DeprecatedStoreTrueAction"):
            add(tag, [flag])
            if full:
                add(tag, [flag + "=1"])
                add(tag, [flag, flag])
                add(tag, [flag, "extra"])
            for alias in flags[1:]:
                add(tag, [alias])
        elif action == "BooleanOptionalAction":
            pos, neg = flags[0], flags[1]
            add(tag, [pos])
            add(tag, [neg])
            add(tag, [pos, neg])
            if full:
                add(tag, [neg + "=x"])
        elif action == "LoRAPathAction":
            continue  # hand-written below
        else:
            good, bad = value_samples(f, full)
            if nargs is None:
                for v in good:
                    add(tag, [flag, v])
                add(tag, [flag + "=" + good[0]])
                for v in bad:
                    add(tag, [flag, v])
                if full:
                    add(tag, [flag])
                    add(tag, [flag, good[0], good[-1]])
                    add(tag, [flag + "="])
            elif nargs == "+":
                add(tag, [flag] + good[:3])
                add(tag, [flag + "=" + good[0]])
                add(tag, [flag])
                for v in bad:
                    add(tag, [flag, good[0], v])
            elif nargs == "*":
                add(tag, [flag])
                add(tag, [flag] + good[:2])
                for v in bad:
                    add(tag, [flag, v])
            elif nargs == "?":
                add(tag, [flag])
                add(tag, [flag, good[0]])
                add(tag, [flag + "="])
                add(tag, [flag + "=--"])
            for alias in flags[1:]:
                add(tag, [alias, good[0]] if nargs != "*" else [alias])
    return cases


def edge_cases() -> list[dict]:
    """Hand-written argv semantics: abbreviations, '=', negatives, '--', help, repeats …"""
    raw = [
        # abbreviations and aliases
        ["--tp", "2"], ["--tensor-parallel", "2"], ["--mode", "x"], ["--page-siz=16"],
        ["--page", "16"], ["--enable-hicach"], ["--no-enable-tf32"], ["--enable-tf32"],
        ["--he"], ["--disable-cuda"], ["--disable-cuda-g"], ["--ep", "4"], ["--expert-p", "4"],
        ["--context-b", "1k"], ["--speculative-draft-model", "d"], ["--nccl-init", "a:1"],
        ["--cuda-graph-bs-d", "1", "2"], ["--monokernel", "amd"], ["--=x"], ["---x"],
        ["--served-model-name", "a", "--served", "b"], ["--model-p", "z"],
        # '=' forms
        ["--page-size=16"], ["--page-size="], ["--page-size=--"], ["--page-size==3"],
        ["--model-checksum"], ["--model-checksum=abc"], ["--model-checksum=--"],
        ["--model-checksum", "abc"], ["--enable-metrics="], ["--lora-paths=--"],
        ["--cuda-graph-bs-decode=--"], ["--served-model-name=a=b"],
        # negative numbers and dash-led values
        ["--page-size", "-5"], ["--mem-fraction-static", "-.5"], ["--mem-fraction-static", "-5."],
        ["--mem-fraction-static", "-1e5"], ["--mem-fraction-static=-1e5"],
        ["--served-model-name", "-a b"], ["--served-model-name", "-x"],
        ["--served-model-name", "-5\n"], ["--served-model-name", "-"],
        ["--cuda-graph-bs-decode", "-1", "-2"], ["--cuda-graph-bs-decode", "1", "-x"],
        ["--served-model-name", "-hx"], ["--served-model-name", "--"],
        # repeats: the last one wins
        ["--page-size", "16", "--page-size", "32"], ["--tp", "2", "--tp-size", "4"],
        ["--enable-tf32-matmul", "--no-enable-tf32-matmul"],
        ["--no-enable-tf32-matmul", "--enable-tf32-matmul"],
        ["--cuda-graph-bs-decode", "1", "2", "--cuda-graph-bs-decode", "8"],
        ["--enable-amd-monokernel", "--monokernel-backend", "amd"],
        # '--', positionals, unknown flags, help
        ["--"], ["--", "x"], ["extra"], ["--page-size", "1", "2"], ["--pgae-size", "1"],
        ["--page_size", "1"], ["-x"], ["-5"], ["-h"], ["--help"], ["-hh"], ["-hx"], ["-h="],
        ["-h=h"], ["--help=1"], ["--page-size", "abc", "-h"], ["-h", "--page-size", "abc"],
        ["--pgae-size", "1", "--page-size", "abc"], ["--page-size", "abc", "--mode", "x"],
        ["--enable-metrics", "true"],
        # deprecated spellings
        ["--disable-cuda-graph"], ["--enable-dp-attention", "--dp-size", "2"],
        ["--monokernel-backend", "amd"], ["--monokernel-backend", "intel"],
        ["--monokernel-backend=amd"], ["--monokernel-backend"],
        ["--enable-flashinfer-allreduce-fusion"], ["--grpc-mode"],
        ["--disable-fast-image-processor"],
        # LoRA paths
        ["--lora-paths", "a", "b"], ["--lora-paths"], ["--lora-paths", " a "],
        ["--lora-paths", '{"lora_name": "n", "lora_path": "p"}'],
        ["--lora-paths", '{"lora_name": "n", "lora_path": "p", "pinned": true}', "x=y"],
        ["--lora-paths", '{"lora_name": "n"}'], ["--lora-paths", "{bad}"],
        ["--lora-paths", "name=path"], ["--lora-paths=a"], ["--lora-paths", "  {\"lora_name\": "
                                                            "\"n\", \"lora_path\": \"p\"} "],
        # logging level as prepare_server_args uses it
        ["--log-level", "WARN"], ["--log-level", "debug"], ["--log-level", "Fatal"],
        ["--log-level", "foo"], ["--log-level", ""], ["--log-level", "_styles"],
        ["--log-level", "basic_format"], ["--log-level=--"], ["--log-level", "notset"],
        # explicitly-set radix eviction policy
        ["--radix-eviction-policy", "lfu"], ["--radix-eviction-policy=lru"],
        ["--radix-eviction", "lfu"], ["--radix-eviction-policy", "bogus"],
        # --config look-alikes that SGLang's merger does not trigger on
        ["--config=@DIR@/basic.yaml"], ["--conf", "@DIR@/basic.yaml"], ["--config"],
        # human-readable ints and unicode
        ["--context-length", "١٢"], ["--context-length", "1.5k"], ["--context-length", "1.0005k"],
        ["--max-total-tokens", "3Ti"], ["--context-length", "+5"],
        ["--context-length", "12345678901234567890123456789.5k"],
    ]
    out = []
    for argv in raw:
        prefix = [] if {"--model", "--model-path", "--model-p"} & set(argv) else M
        out.append({"tag": "edge", "argv": prefix + argv})
    out.append({"tag": "edge", "argv": ["--model", "m"]})
    return out


CONFIGS: dict[str, str] = {
    "basic.yaml": "page-size: 16\ntp-size: 2\nenable-metrics: true\n",
    "false-switch.yaml": "enable-metrics: false\npage-size: 8\n",
    "bool-valued.yaml": "served-model-name: true\n",
    "bool-choice.yaml": "log-requests-format: true\n",
    "list.yaml": "cuda-graph-bs-decode: [1, 2, 4]\n",
    "empty-list.yaml": "cuda-graph-bs-decode: []\n",
    "dict.yaml": "cuda-graph-config: {decode: {max_bs: 64}}\njson-model-override-args: {a: 1}\n",
    "lora.yaml": "lora-paths: [a]\n",
    "boolopt.yaml": "enable-tf32-matmul: true\n",
    "no-boolopt.yaml": "no-enable-tf32-matmul: true\n",
    "deprecated-switch.yaml": "disable-cuda-graph: true\n",
    "underscore.yaml": "page_size: 16\n",
    "underscore-switch.yaml": "enable_metrics: true\n",
    "abbrev.yaml": "page-siz: 16\n",
    "ambiguous.yaml": "mode: x\n",
    "empty.yaml": "",
    "comments.yaml": "# nothing here\n",
    "root-list.yaml": "- a\n- b\n",
    "root-scalar.yaml": "42\n",
    "nested.yaml": "config: other.yaml\npage-size: 4\n",
    "python-tag.yaml": "page-size: !!python/object/apply:os.getcwd []\n",
    "null-int.yaml": "page-size: null\n",
    "null-str.yaml": "served-model-name: null\n",
    "null-nullable.yaml": "quantization-param-path: null\n",
    "yes.yaml": "enable-metrics: yes\n",
    "int-key.yaml": "1: 2\n",
    "model.yaml": "model-path: from-file\n",
    "monokernel.yaml": "monokernel-backend: amd\n",
    "radix.yaml": "radix-eviction-policy: lfu\n",
    "floats.yaml": "mem-fraction-static: 0.5\nschedule-conservativeness: 1e-5\n",
    "help.yaml": "help: true\n",
    "dict-str.yaml": "served-model-name: {a: 1}\n",
    "list-single.yaml": "page-size: [1, 2]\n",
    "dash-value.yaml": "served-model-name: \"-x\"\n",
    "alias-switch.yaml": "enable-hicache: true\n",
    "log-level.yaml": "log-level: foo\n",
    "date.yaml": "served-model-name: 2024-01-01\n",
    "multi-doc.yaml": "page-size: 1\n---\npage-size: 2\n",
    "broken.yaml": "page-size: [1\n",
    "upper.YML": "page-size: 64\n",
    "bad-type.yaml": "page-size: abc\n",
    "mixed-list.yaml": "allowed-media-domains: [a, 1, {b: 2}]\n",
    "off.yaml": "served-model-name: off\n",
    "switch-false-then-cli.yaml": "enable-metrics: false\n",
    "store-true-value.yaml": "trust-remote: true\n",
    "empty-key.yaml": "'': 5\n",
    "key-with-eq.yaml": "page-size=3: 5\n",
    "tuple-like.yaml": "cuda-graph-bs-decode: [[1, 2]]\n",
    "json-loads.yaml": "preferred-sampling-params: {temperature: 0.5, stop: [a]}\n",
    "config.json": "{}\n",
}


def config_cases() -> list[dict]:
    d = "@DIR@/"
    out = []
    for name in CONFIGS:
        if name == "config.json":
            continue
        out.append({"tag": "config", "argv": M + ["--config", d + name]})
    out += [
        {"tag": "config", "argv": ["--config", d + "basic.yaml", "--model-path", "m",
                                   "--page-size", "32"]},
        {"tag": "config", "argv": M + ["--page-size", "32", "--config", d + "basic.yaml"]},
        {"tag": "config", "argv": ["--config", d + "model.yaml"]},
        {"tag": "config", "argv": M + ["--config", d + "config.json"]},
        {"tag": "config", "argv": M + ["--config", d + "missing.yaml"]},
        {"tag": "config", "argv": M + ["--config", d + "basic.yaml", "--config",
                                       d + "basic.yaml"]},
        {"tag": "config", "argv": M + ["--config"]},
        {"tag": "config", "argv": M + ["--config", "--page-size"]},
        {"tag": "config", "argv": M + ["--config", d + "switch-false-then-cli.yaml",
                                       "--enable-metrics"]},
        {"tag": "config", "argv": M + ["--config", d + "bad-type.yaml", "--page-size", "8"]},
        {"tag": "config", "argv": M + ["--config=" + d + "basic.yaml", "--tp", "4"]},
        {"tag": "config", "argv": M + ["--config", d + "radix.yaml", "--radix-eviction",
                                       "lru"]},
        {"tag": "config", "argv": M + ["--config", d + "list.yaml", "--cuda-graph-bs-decode",
                                       "16"]},
    ]
    return out


def random_cases(fields: list[dict], rng: random.Random, n: int) -> list[dict]:
    pool: list[list[str]] = []
    for f in fields:
        if not f["flags"] or f["name"] == "model_path" or f["action"] == "LoRAPathAction":
            continue
        flag = rng.choice(f["flags"])
        if f["nargs"] == 0:
            pool.append([flag])
            continue
        good, _ = value_samples(f, True)
        if f["nargs"] in ("+", "*"):
            pool.append([flag] + rng.sample(good, min(len(good), rng.randint(1, 3))))
        elif rng.random() < 0.3:
            pool.append([flag + "=" + rng.choice(good)])
        else:
            pool.append([flag, rng.choice(good)])
    cases = []
    for _ in range(n):
        argv = list(M)
        for chunk in rng.sample(pool, rng.randint(3, 8)):
            argv += chunk
        if rng.random() < 0.3:  # repeat one flag with another value
            argv += rng.choice(pool)
        cases.append({"tag": "random", "argv": argv})
    return cases


SOUP_VALUES = ["1", "0", "-1", "-5", "2.5", "-.5", "-1e5", "1e3", "abc", "", " ", "a b", "-a b",
               "--", "-x", "128k", "1Ki", "full", "breakable", "tc_piecewise", "disabled", "auto",
               "fa3", "true", "None", '{"decode": {"max_bs": 8}}', "[1, 2]", "NaN", "amd", "lru",
               "info", "{x}", "=", "-", "--x=1", "--=x", "---", "-5\n"]


def soup_cases(fields: list[dict], rng: random.Random, n: int) -> list[dict]:
    """Token soup: real flags, cut-off prefixes, '=' forms and awkward values, in any order."""
    flags = [f for row in fields for f in row["flags"]] + ["--monokernel-backend"]

    def token() -> str:
        r = rng.random()
        flag = rng.choice(flags)
        if r < 0.45:
            return flag
        if r < 0.6:
            return flag[: rng.randint(3, len(flag))]
        if r < 0.72:
            if rng.random() < 0.4:
                flag = flag[: rng.randint(3, len(flag))]
            return flag + "=" + rng.choice(SOUP_VALUES)
        return rng.choice(SOUP_VALUES)

    cases = []
    for _ in range(n):
        argv = list(M)
        for _ in range(rng.randint(1, 7)):
            t = token()
            argv.append(t)
            if t.startswith("--") and "=" not in t and rng.random() < 0.5:
                argv.append(rng.choice(SOUP_VALUES))
        cases.append({"tag": "soup", "argv": argv})
    return cases


# --- running the real thing ------------------------------------------------------------------


def main() -> None:
    import msgspec
    from sglang.srt.server_args import prepare_server_args

    table = json.loads(TABLE.read_text())
    fields = table["fields"]
    names = [f["name"] for f in fields]
    rng = random.Random(20250523)
    cases = (field_cases(fields) + edge_cases() + config_cases()
             + random_cases(fields, rng, 160) + soup_cases(fields, rng, 400))

    warned: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            warned.append(record.getMessage())

    dep_logger = logging.getLogger("sglang.srt.arg_groups.argparse_actions")
    dep_logger.addHandler(Catch())
    dep_logger.setLevel(logging.DEBUG)
    dep_logger.propagate = False

    def snapshot(record) -> dict:
        out = {}
        for name in names:
            value = getattr(record, name)
            if isinstance(value, msgspec.Struct):
                raise TypeError(f"{name}: unexpected struct value")
            out[name] = value
        return out

    with tempfile.TemporaryDirectory() as tmp:
        for name, text in CONFIGS.items():
            (Path(tmp) / name).write_text(text)

        def run(argv: list[str]) -> dict:
            argv = [a.replace("@DIR@", tmp) for a in argv]
            warned.clear()
            sink = io.StringIO()
            try:
                with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(io.StringIO()):
                    record = prepare_server_args(argv)
            except SystemExit as exc:
                lines = sink.getvalue().strip().splitlines()
                return {"ok": False, "exit": exc.code, "error": lines[-1] if lines else ""}
            except Exception as exc:  # the merger and a few actions raise plain exceptions
                return {"ok": False, "exception": type(exc).__name__, "error": str(exc)[:200]}
            return {"ok": True, "values": snapshot(record),
                    "warned": any("deprecated" in m for m in warned)}

        baseline = run(M)
        assert baseline["ok"], baseline
        base_values = baseline["values"]
        base_json = {k: json.dumps(v) for k, v in base_values.items()}
        recorded = []
        for case in cases:
            result = run(case["argv"])
            if not result["ok"] and "are required" in result.get("error", ""):
                # argparse reports a missing --model-path before stray arguments; parse_argv
                # leaves that check to the command layer, so the test must know
                result["required"] = True
            entry = {"tag": case["tag"], "argv": case["argv"], "ok": result["ok"]}
            if result["ok"]:
                entry["set"] = {k: v for k, v in result["values"].items()
                                if json.dumps(v) != base_json[k]}
                entry["warned"] = result["warned"]
            else:
                entry.update({k: v for k, v in result.items() if k != "ok"})
            recorded.append(entry)

    doc = {
        "note": "Recorded by tests/input/make_argparse_fixtures.py from SGLang's own "
                "prepare_server_args; '@DIR@' is the directory holding 'configs'.",
        "sglang_version": table["sglang_version"],
        "python": platform.python_version(),
        "baseline_argv": M,
        "baseline": base_values,
        "configs": CONFIGS,
        "cases": recorded,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    # one case per line keeps re-recordings reviewable as diffs
    cases_json = doc.pop("cases")
    head = json.dumps(doc, ensure_ascii=True)[:-1]
    body = ",\n".join(json.dumps(c, ensure_ascii=True) for c in cases_json)
    OUT.write_text(f'{head}, "cases": [\n{body}\n]}}\n')
    ok = sum(c["ok"] for c in recorded)
    print(f"{len(recorded)} cases ({ok} accepted, {len(recorded) - ok} refused) -> {OUT}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
