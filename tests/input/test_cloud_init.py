"""cloud-init user data pasted whole: its written files and runcmd lines, as the VM runs them."""

from __future__ import annotations

from launchplan.input.pasted import launch_count, unpaste

USER_DATA = """#cloud-config
package_update: true
write_files:
  - path: /opt/serve.sh
    permissions: "0755"
    content: |
      #!/bin/bash
      export SGLANG_X=1
      python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --host 0.0.0.0
runcmd:
  - [systemctl, restart, docker]
  - docker run -d --gpus all -e HF_TOKEN=t lmsysorg/sglang:latest python3 -m
    sglang.launch_server --model-path Qwen/Qwen3-4B --port 30000
  - [bash, /opt/serve.sh]
"""


def test_runcmd_lines_and_a_written_script_they_run_are_the_launches():
    assert launch_count([USER_DATA]) == 2
    assert unpaste([USER_DATA]) == (["--model-path", "Qwen/Qwen3-4B", "--port", "30000"],
                                    ["HF_TOKEN=t"])
    # the script write_files puts on the disk runs when a runcmd item runs it
    assert unpaste([USER_DATA], launch=2) == (
        ["--model-path", "Qwen/Qwen3-8B", "--tp", "2", "--host", "0.0.0.0"], ["SGLANG_X=1"])


def test_an_argv_list_item_is_one_command():
    data = ("#cloud-config\nruncmd:\n  - [python3, -m, sglang.launch_server, --model-path, m, "
            "--chat-template, 'a b']\n")
    assert unpaste([data])[0] == ["--model-path", "m", "--chat-template", "a b"]
