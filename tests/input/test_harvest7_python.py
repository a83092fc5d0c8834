"""Python launch scripts a seventh harvest round (h18) found misread: engine wrapper classes
reading ``self.X`` in a method, flags from a helper function's returned list, launches the
script's run never reaches, ``if extra: kw.update(extra)`` hooks, ``for`` loops over a dict
of flags, a ``docker run`` argv grown by a config's flags, and ``**X`` from a file the script
loads. Each test fails without its fix (findings F4, F8, F5, F6, F7, F10, F12)."""

from __future__ import annotations

from launchplan.commands.main import main
from launchplan.input.pasted import launch_count, unpaste


def _value(argv: list[str], flag: str) -> str | None:
    """The last value ``flag`` has in ``argv`` (SGLang keeps the last)."""
    found = None
    for at, word in enumerate(argv[:-1]):
        if word == flag:
            found = argv[at + 1]
    return found


# F4: rllm's SglangEngine (find_string id 58542599644), trimmed: the engine is made in a
# lazy-init method from ``self.*`` set in ``__init__``; the file never constructs the class.
RLLM_ENGINE = '''import sglang as sgl


class SglangEngine(RolloutEngine):
    def __init__(self, model_path, tokenizer=None, tp_size=1, dp_size=1,
                 mem_fraction_static=0.85, trust_remote_code=True, **kwargs):
        super().__init__()
        self.model_path = model_path
        self.tp_size = tp_size
        self.dp_size = dp_size
        self.mem_fraction_static = mem_fraction_static
        self.trust_remote_code = trust_remote_code
        self.extra_kwargs = kwargs
        self._engine = None
        self._initialized = False

    def _lazy_init(self):
        if self._initialized:
            return
        try:
            import sglang as sgl

            engine_kwargs = {
                "model_path": self.model_path,
                "tp_size": self.tp_size,
                "dp_size": self.dp_size,
                "mem_fraction_static": self.mem_fraction_static,
                "trust_remote_code": self.trust_remote_code,
            }
            for key in ["dtype", "quantization", "context_length", "device"]:
                if key in self.extra_kwargs:
                    engine_kwargs[key] = self.extra_kwargs[key]
            self._engine = sgl.Engine(**engine_kwargs)
            self._initialized = True
        except ImportError as e:
            raise ImportError("sglang is not installed") from e
'''


def test_an_engine_made_in_a_wrapper_method_takes_init_defaults():
    argv = unpaste([RLLM_ENGINE, "--model-path", "qwen3-8b"])[0]
    assert _value(argv, "--tp-size") == "1"
    assert _value(argv, "--mem-fraction-static") == "0.85"
    assert "--trust-remote-code" in argv
    assert _value(argv, "--model-path") == "qwen3-8b"


def test_an_engine_made_in_a_method_takes_the_constructor_call():
    # the probe form of the same class (h18 probe/cls2.py, probe/cls1.py)
    for start in ("self.engine = sgl.Engine(model_path=self.model_path, "
                  "tp_size=self.tp_size)",
                  "kw = {'model_path': self.model_path, 'tp_size': self.tp_size}\n"
                  "        self.engine = sgl.Engine(**kw)"):
        script = ("import sglang as sgl\n\nclass E:\n"
                  "    def __init__(self, model_path, tp_size=1):\n"
                  "        self.model_path = model_path\n        self.tp_size = tp_size\n\n"
                  f"    def start(self):\n        {start}\n\n"
                  'E("meta-llama/Llama-3.1-8B-Instruct", tp_size=2).start()\n')
        assert unpaste([script])[0] == ["--model-path", "meta-llama/Llama-3.1-8B-Instruct",
                                        "--tp-size", "2"]


# F8: SGLang's elastic-EP manual test (find_string id 66232162414), trimmed: the flags come
# from a helper returning an f-string's ``.split()``, handed as ``other_args=``.
ELASTIC_EP = '''import os
from sglang.test.server_fixtures.disaggregation_fixture import get_rdma_devices_args
from sglang.test.test_utils import CustomTestCase, popen_launch_server

LAUNCH_EP_SIZE = 4
MAX_EP_SIZE = 5
EP_NUM_REDUNDANT_EXPERTS = 24


def _common_args(tp: int, *, nnodes: int = 1, node_rank: int = 0) -> list[str]:
    return (
        f"--trust-remote-code --moe-a2a-backend nixl "
        f"--tp {tp} --dp {tp} --enable-dp-attention "
        f"--mooncake-ib-device {get_rdma_devices_args()} "
        f"--ep-num-redundant-experts {EP_NUM_REDUNDANT_EXPERTS} "
        f"--max-ep-size {MAX_EP_SIZE} --mem-fraction-static 0.5 "
        f"--nnodes {nnodes} --node-rank {node_rank}"
    ).split()


class _ElasticShrinkBase(CustomTestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = "deepseek-v2-lite"
        cls.process = popen_launch_server(
            cls.model, "http://127.0.0.1:21100", timeout=600,
            other_args=_common_args(tp=LAUNCH_EP_SIZE),
        )
'''


def test_flags_a_helper_function_returns_are_read_with_the_call_arguments():
    notes: list[str] = []
    argv = unpaste([ELASTIC_EP], notes=notes)[0]
    assert _value(argv, "--tp") == "4" and _value(argv, "--dp") == "4"
    assert _value(argv, "--mem-fraction-static") == "0.5"
    assert _value(argv, "--ep-num-redundant-experts") == "24"
    assert _value(argv, "--mooncake-ib-device") == "${get_rdma_devices_args()}"  # open
    assert _value(argv, "--nnodes") == "1"


def test_a_helper_list_joined_or_spread_into_an_argv_is_read():
    # h18 probe/fn2.py (``+ common_args(4)``) and probe/fn1.py (``*common_args(TP)``)
    joined = ('import subprocess\n\ndef common_args(tp):\n'
              '    return ["--tp", str(tp), "--mem-fraction-static", "0.5"]\n\n'
              'cmd = ["python", "-m", "sglang.launch_server", "--model-path", "m"] '
              '+ common_args(4)\nsubprocess.Popen(cmd)\n')
    spread = ('import subprocess\n\nTP = 4\n\ndef common_args(tp):\n'
              '    return f"--tp {tp} --mem-fraction-static 0.5".split()\n\n'
              'cmd = ["python", "-m", "sglang.launch_server", "--model-path", "m", '
              '*common_args(TP)]\nsubprocess.Popen(cmd)\n')
    for script in (joined, spread):
        assert unpaste([script])[0] == ["--model-path", "m", "--tp", "4",
                                        "--mem-fraction-static", "0.5"]


def test_a_spread_call_not_followed_is_not_called_known_only_at_run_time():
    script = ('import subprocess\nfrom helpers import common_args\n'
              'cmd = ["python", "-m", "sglang.launch_server", "--model-path", "m", '
              '*common_args(4)]\nsubprocess.Popen(cmd)\n')
    notes: list[str] = []
    assert unpaste([script], notes=notes)[0] == ["--model-path", "m"]
    said = " ".join(notes)
    assert "common_args(4), what that call returns" in said
    assert "known only when the script runs" not in said


# F5: h18 probe/ord2.py, the shape of a 2026 SMC benchmark (find_string id 53883979009):
# main picks the setup by ``--mode``, whose default does not reach the first engine.
BY_MODE = '''import argparse
import sglang as sgl

def a():
    return sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", tp_size=4)

def b():
    return sgl.Engine(model_path="meta-llama/Llama-3.1-8B-Instruct", tp_size=2)

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--mode", default="b")
    args = p.parse_args()
    if args.mode == "a":
        a()
    else:
        b()
'''


def test_the_launch_the_scripts_run_reaches_is_planned_first():
    notes: list[str] = []
    assert _value(unpaste([BY_MODE], notes=notes)[0], "--tp-size") == "2"
    assert any("does not reach the launch at line 5" in n for n in notes)
    assert launch_count([BY_MODE]) == 2  # still listed, after it
    uncalled = BY_MODE.split("if __name__")[0] + 'if __name__ == "__main__":\n    b()\n'
    assert _value(unpaste([uncalled])[0], "--tp-size") == "2"
    # but a function the script never names that takes arguments is an importer's entry
    # point beside a __main__ dev launch (the corpus's LoRA rollout script, find_string id
    # 58903546585): the text cannot tell which one runs, so it keeps its place
    script = ('import sglang as sgl\n\ndef start(args):\n'
              '    return sgl.Engine(model_path="m", tp_size=4)\n\n'
              'if __name__ == "__main__":\n    sgl.Engine(model_path="m", tp_size=2)\n')
    assert _value(unpaste([script])[0], "--tp-size") == "4"


# F6: a 2026 research oracle (find_string id 56302301960), trimmed: the extension hook's
# ``engine_kwargs`` is None by default, so the update never runs.
ORACLE = '''import sglang as sgl


class SGLangOracle:
    def __init__(self, model_name, top_k=20, dtype="bfloat16", mem_fraction_static=0.40,
                 max_total_tokens=65536, seed=0, engine_kwargs: dict | None = None):
        kwargs = dict(
            model_path=model_name,
            dtype=dtype,
            mem_fraction_static=mem_fraction_static,
            max_total_tokens=max_total_tokens,
            random_seed=seed,
        )
        if engine_kwargs:
            kwargs.update(engine_kwargs)
        self.engine = sgl.Engine(**kwargs)
'''


def test_an_update_under_a_none_default_parameter_does_not_run():
    argv = unpaste([ORACLE, "--model-path", "qwen3-8b"])[0]
    assert _value(argv, "--mem-fraction-static") == "0.4"
    assert _value(argv, "--max-total-tokens") == "65536"


# F7: a 2026 recipe-comparison harness (find_string id 68865347543), trimmed: the flags
# come from a statement ``for`` loop over a dict display.
RECIPE = '''import subprocess


def config(arm):
    argv = ["sglang", "serve", "--model-path", "/hf/hub/Qwen3-8B", "--tp", "1"]
    for flag, value in {
        "page-size": 64, "chunked-prefill-size": 4096,
        "mem-fraction-static": .96, "host": "0.0.0.0", "port": 8000,
    }.items():
        argv += ["--" + flag, str(value)]
    argv += ["--enable-metrics"]
    return argv

subprocess.run(config("baseline"))
'''


def test_a_for_loop_over_a_dict_of_flags_is_unrolled():
    assert unpaste([RECIPE])[0] == [
        "--model-path", "/hf/hub/Qwen3-8B", "--tp", "1", "--page-size", "64",
        "--chunked-prefill-size", "4096", "--mem-fraction-static", "0.96",
        "--host", "0.0.0.0", "--port", "8000", "--enable-metrics"]
    named = ('import subprocess\nFLAGS = {"tp": 2, "port": 8000}\n'
             'argv = ["python", "-m", "sglang.launch_server", "--model-path", "m"]\n'
             'for k, v in FLAGS.items():\n    argv.extend([f"--{k}", str(v)])\n'
             'subprocess.run(argv)\n')
    assert unpaste([named])[0] == ["--model-path", "m", "--tp", "2", "--port", "8000"]


def test_a_loop_not_unrolled_is_named_not_read_as_a_flag():
    script = ('import subprocess, sys\n'
              'argv = ["python", "-m", "sglang.launch_server", "--model-path", "m"]\n'
              'for flag in sys.argv[1:]:\n    argv.append("--" + flag)\nsubprocess.run(argv)\n')
    notes: list[str] = []
    assert unpaste([script], notes=notes)[0] == ["--model-path", "m"]
    assert any("in a loop (line 3) launchplan does not unroll" in n for n in notes)


# F10: sgfleet admin (find_string id 63111454437), trimmed: a docker-run argv whose
# command part is extended by a model's configured flags.
FLEET = '''import subprocess


def build_docker_run_cmd(model):
    command_flags = model.get("command_flags", [])
    cmd = ["docker", "run", "-d", "--gpus", "all", "lmsysorg/sglang:latest"]
    cmd.extend(["sglang", "serve", "--model-path", "Qwen/Qwen3-8B", "--port", "8000"])
    if command_flags:
        cmd.extend(command_flags)
    return cmd


def start(model):
    subprocess.Popen(build_docker_run_cmd(model))
'''


def test_flags_added_after_a_container_runs_launch_are_named():
    notes: list[str] = []
    assert unpaste([FLEET], notes=notes)[0] == ["--model-path", "Qwen/Qwen3-8B",
                                                "--port", "8000"]
    assert any("grows at line 9 (cmd.extend(command_flags))" in n for n in notes)


# F12: a 2026 engine loader (find_string id 47170129174), trimmed: the engine's keywords
# come from the YAML file the script loads, its path an option's default.
FROM_YAML = '''import argparse
from dataclasses import asdict

import sglang as sgl
import yaml
from dacite import from_dict


def load_engine_from_yaml(config_path: str):
    with open(config_path, "r") as f:
        cfg: dict = yaml.safe_load(f) or {}
    cfg_obj = from_dict(MirageConfig, cfg)
    engine_args = cfg_obj.engine
    llm = sgl.Engine(**asdict(engine_args))
    return llm, cfg_obj


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config-sglang.yaml")
    args = ap.parse_args()
    llm, cfg = load_engine_from_yaml(args.config)
'''


def test_an_engine_mapping_from_a_loaded_file_is_open_and_named(capsys):
    notes: list[str] = []
    argv = unpaste([FROM_YAML, "--model-path", "llama-3.1-8b", "--tp", "2"], notes=notes)[0]
    assert argv[-4:] == ["--model-path", "llama-3.1-8b", "--tp", "2"]
    assert any("come from the YAML file the script loads (config-sglang.yaml)" in n
               for n in notes)
    assert main(["resolve", "--gpu", "h100", FROM_YAML, "--model-path", "llama-3.1-8b"]) == 0
    capsys.readouterr()
    imported = ('import sglang as sgl\nfrom gpu_common import engine_config\n'
                'config = engine_config("ordinary")\nllm = sgl.Engine(**config)\n')
    notes = []
    unpaste([imported, "--model-path", "m"], notes=notes)
    assert any("engine_config() of the module it imports (gpu_common)" in n for n in notes)
