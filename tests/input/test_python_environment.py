"""A Python launch script's environment set from a mapping it spells out: a loop over a
literal dict's entries, ``os.environ.update(**d)``, ``env={**os.environ, **d}``. The
entries are in the text; the server gets them as surely as ``os.environ["A"] = "1"``."""

from __future__ import annotations

from launchplan.input.engine_call import engine_launch
from launchplan.input.pasted import unpaste
from launchplan.input.python_launch import script_environment

M = "meta-llama/Llama-3.1-8B-Instruct"
LAUNCH = f'["python3", "-m", "sglang.launch_server", "--model-path", "{M}"]'
ENV = {"SGLANG_ENABLE_JIT_DEEPGEMM": "0", "NCCL_DEBUG": "INFO"}
PAIRS = ["SGLANG_ENABLE_JIT_DEEPGEMM=0", "NCCL_DEBUG=INFO"]


def test_a_loop_over_a_literal_dicts_items_sets_each_entry():
    text = (f'import os, subprocess\nenv_vars = {ENV!r}\n'
            'for key, value in env_vars.items():\n    os.environ[key] = value\n'
            f'subprocess.Popen({LAUNCH})\n')
    assert script_environment(text) == PAIRS
    assert unpaste([text])[1] == PAIRS


def test_a_loop_reads_its_dict_inline_by_key_or_as_pairs_and_through_str():
    inline = (f'import os, subprocess\nfor k, v in {{"A": 1, "B": "x"}}.items():\n'
              f'    os.environ[k] = str(v)\nsubprocess.Popen({LAUNCH})\n')
    assert script_environment(inline) == ["A=1", "B=x"]
    by_key = (f'import os, subprocess\nD = {{"A": "1"}}\nfor k in D:\n'
              f'    os.environ[k] = D[k]\nsubprocess.Popen({LAUNCH})\n')
    assert script_environment(by_key) == ["A=1"]
    pairs = (f'import os, subprocess\nfor k, v in [("A", "1"), ("B", "2")]:\n'
             f'    os.environ.setdefault(k, v)\nsubprocess.Popen({LAUNCH})\n')
    assert script_environment(pairs) == ["A=1", "B=2"]


def test_a_loop_in_a_function_or_under_a_guard_still_sets_its_entries():
    text = (f'import os, subprocess\nENV = {ENV!r}\n\ndef main():\n'
            '    for name, val in ENV.items():\n        if val:\n'
            '            os.environ[name] = val\n'
            f'    subprocess.Popen({LAUNCH})\n\nif __name__ == "__main__":\n    main()\n')
    assert script_environment(text) == PAIRS


def test_a_loop_whose_entries_are_computed_gives_nothing_not_a_guess():
    text = (f'import os, subprocess\nfor k, v in load().items():\n    os.environ[k] = v\n'
            f'for k in ("A", "B"):\n    os.environ[k] = compute(k)\n'
            f'subprocess.Popen({LAUNCH})\n')
    assert script_environment(text) == []


def test_environ_update_of_a_named_dict_and_of_its_keywords():
    named = (f'import os, subprocess\nENV = {ENV!r}\nos.environ.update(ENV)\n'
             f'subprocess.Popen({LAUNCH})\n')
    assert script_environment(named) == PAIRS
    spread = (f'import os, subprocess\nENV = dict(A="1")\nos.environ.update(**ENV)\n'
              f'subprocess.Popen({LAUNCH})\n')
    assert script_environment(spread) == ["A=1"]


def test_an_env_keyword_spreading_os_environ_and_a_named_dict():
    for given in ("{**os.environ, **ENV}", "dict(os.environ, **ENV)", "os.environ | ENV",
                  "{**os.environ.copy(), **ENV}"):
        text = (f'import os, subprocess\nENV = {ENV!r}\n'
                f'subprocess.Popen({LAUNCH}, env={given})\n')
        assert script_environment(text) == PAIRS, given


def test_an_env_mapping_built_from_a_copy_and_a_named_dict_or_loop():
    updated = (f'import os, subprocess\nEXTRA = {ENV!r}\nenv = os.environ.copy()\n'
               f'env.update(EXTRA)\nsubprocess.Popen({LAUNCH}, env=env)\n')
    assert script_environment(updated) == PAIRS
    looped = (f'import os, subprocess\nEXTRA = {ENV!r}\nenv = {{**os.environ}}\n'
              'for k, v in EXTRA.items():\n    env[k] = v\n'
              f'subprocess.Popen({LAUNCH}, env=env)\n')
    assert script_environment(looped) == PAIRS
    spread = (f'import os, subprocess\nEXTRA = {ENV!r}\nenv = {{**os.environ, **EXTRA}}\n'
              f'subprocess.Popen({LAUNCH}, env=env)\n')
    assert script_environment(spread) == PAIRS


def test_an_engine_scripts_environment_loop_and_named_update_reach_the_engine():
    text = ('import os\nimport sglang as sgl\nENV = {"SGLANG_A": "1"}\n'
            'for k, v in ENV.items():\n    os.environ[k] = v\n'
            'os.environ.update(**{"SGLANG_B": "2"})\n'
            f'llm = sgl.Engine(model_path="{M}")\n')
    assert engine_launch(text)[1] == ["SGLANG_A=1", "SGLANG_B=2"]
