"""A justfile pasted whole: its recipes are read after just has interpolated ``{{...}}``."""

from __future__ import annotations

from launchplan.input.justfile import as_script, looks_like_justfile
from launchplan.input.pasted import launch_count, unpaste

JUSTFILE = (
    'COMMON := "--trust-remote-code"\nARGS := COMMON + " --disable-radix-cache"\n'
    'export SGLANG_X := "1"\n\n# Serve with `just serve`\n'
    'serve model tp="2":\n    python -m sglang.launch_server --model-path {{model}} '
    '--tp {{tp}} {{ARGS}}\n\n'
    'bench:\n  @python -m sglang.launch_server --model-path {{ MISSING }} --port 30001\n')


def test_just_interpolation_is_done_before_the_shell_reads_the_recipe():
    assert looks_like_justfile(JUSTFILE)
    argv, env = unpaste([JUSTFILE])
    # a parameter with no default is the value the paste does not give: left open
    assert argv == ["--model-path", "${model}", "--tp", "2", "--trust-remote-code",
                    "--disable-radix-cache"]
    assert env == ["SGLANG_X=1"]
    assert launch_count([JUSTFILE]) == 2
    assert unpaste([JUSTFILE], launch=2)[0] == [
        "--model-path", "${MISSING}", "--port", "30001"]


def test_a_shebang_recipe_is_one_script():
    script = as_script('T := "4"\nrun:\n  #!/usr/bin/env bash\n  ARGS="--tp {{T}}"\n'
                       "  python -m sglang.launch_server --model-path m $ARGS\n")
    assert unpaste([script])[0] == ["--model-path", "m", "--tp", "4"]


def test_yaml_and_helm_templates_are_not_justfiles():
    helm = ("spec:\n  containers:\n    - args:\n        - python -m sglang.launch_server "
            "--model-path {{ .Values.model }}\n")
    assert not looks_like_justfile(helm)


def test_a_text_with_other_lines_beside_a_justfile_is_not_read_as_one():
    page = ('Install just, then:\nM := "m"\nserve tp="2":\n'
            "  python -m sglang.launch_server --model-path {{M}} --tp {{tp}}\n")
    assert not looks_like_justfile(page)
