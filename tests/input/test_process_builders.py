"""A Rust ``Command::new(...)`` chain read as the launch it starts (``input/process_builders``)."""

from __future__ import annotations

import pytest

from launchplan.input.pasted import unpaste

LAUNCH = ["--model-path", "qwen3-8b", "--tp", "2", "--context-length", "200000"]
ENV = ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"]


@pytest.mark.parametrize("program", [
    # one .arg a token, the environment between them
    'let child = Command::new("python3")\n    .arg("-m")\n    .arg("sglang.launch_server")\n'
    '    .arg("--model-path")\n    .arg("qwen3-8b")\n    .arg("--tp")\n    .arg("2")\n'
    '    .env("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "1")\n'
    '    .arg("--context-length")\n    .arg("200000")\n    .spawn()?;\n',
    # .args with an array, then a bound variable the next statement goes on with
    'let mut cmd = tokio::process::Command::new("python3");\n'
    '// cmd.arg("--enable-mixed-chunk");\n'
    'cmd.args(["-m", "sglang.launch_server", "--model-path", "qwen3-8b", "--tp", "2"])\n'
    '    .env("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "1")\n'
    '    .arg("--context-length").arg("200000");\nlet child = cmd.spawn()?;\n',
])
def test_a_rust_command_chain_is_the_launch_it_spawns(program):
    assert unpaste([program]) == (LAUNCH, ENV)


def test_an_argument_the_program_computes_stays_open():
    program = ('fn start(model_path: &str, port: u16) {\n'
               '    Command::new("python3").arg("-m").arg("sglang.launch_server")\n'
               '        .arg("--model-path").arg(model_path)\n'
               '        .arg("--port").arg(port.to_string()).spawn();\n}\n')
    assert unpaste([program])[0] == ["--model-path", "${model_path}", "--port",
                                     "${port_to_string}"]


def test_a_node_spawn_with_an_argv_array_is_the_launch_it_starts():
    script = ('const model = "qwen3-8b";\nconst port = 30001;\n'
              "const proc = spawn('python3', ['-m', 'sglang.launch_server', '--model-path', "
              "model, '--tp', '2', '--port', String(port), '--served-model-name', 'a,b'], {\n"
              '  env: { ...process.env, SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: "1" },\n});\n')
    assert unpaste([script]) == (["--model-path", "qwen3-8b", "--tp", "2", "--port", "30001",
                                  "--served-model-name", "a,b"], ENV)


@pytest.mark.parametrize("env", [
    'cmd.Env = append(os.Environ(), "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1")',
    'cmd.Env = []string{\n\t"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",\n}',
])
def test_a_go_commands_env_is_the_launchs_environment(env):
    program = ('cmd := exec.Command("python3", "-m", "sglang.launch_server",\n'
               '\t"--model-path", "qwen3-8b", "--context-length", "200000")\n'
               f"{env}\nif err := cmd.Start(); err != nil {{ log.Fatal(err) }}\n")
    assert unpaste([program]) == (["--model-path", "qwen3-8b", "--context-length", "200000"],
                                  ["SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"])
