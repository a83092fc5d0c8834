"""Sixth harvest (h15), fixes by hp9: texts that are not a launch command as written (a
comment, a sentence, a review diff, a code view's table, a program's string) and branches
decided by a function's own arguments. Each excerpt is real; its source is named above it.
"""

from __future__ import annotations

import pytest

from launchplan.input.pasted import looks_pasted, unpaste
from tests.input.paste_support import first_error_line


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


_error = first_error_line


# F2: find_string id 69612431636 (2026 vLLM-vs-SGLang conformance script, serve_sglang()),
# cut to the function and one literal call, as probe/loop4.sh
_SERVE = ('serve_sglang() {  # $1=spec(off|ngram)\n'
          '  local extra=()\n'
          '  if [ "$1" = "ngram" ]; then\n'
          '    extra=(--speculative-algorithm NGRAM --speculative-num-steps "$GAMMA" '
          '--speculative-num-draft-tokens "$((GAMMA + 1))")\n'
          '  fi\n'
          '  "$SGLPY" -m sglang.launch_server --model-path "$MODEL" --port "$PORT" '
          '"${extra[@]}" > "$LOG" 2>&1 &\n'
          '}\n')
_HEAD = "GAMMA=7\nMODEL=m\nPORT=8000\nSGLPY=python\n"


def test_a_functions_test_on_its_own_argument_is_decided_by_the_scripts_call():
    notes: list[str] = []
    argv, _ = unpaste([_HEAD + _SERVE + "serve_sglang off\n"], notes=notes)
    assert argv == ["--model-path", "m", "--port", "8000"]
    argv, _ = unpaste([_HEAD + _SERVE + "serve_sglang ngram\n"])
    assert argv[-6:] == ["--speculative-algorithm", "NGRAM", "--speculative-num-steps", "7",
                         "--speculative-num-draft-tokens", "8"]


def test_an_if_else_on_the_functions_argument_gives_the_calls_branch():
    # probe/fn1.sh: the only call passes `small`, so TP=1 (was: '${TP}' left open)
    script = ('serve() {\n  if [ "$1" = "big" ]; then\n    TP=8\n  else\n    TP=1\n  fi\n'
              '  python -m sglang.launch_server --model-path m --tp $TP\n}\nserve small\n')
    assert unpaste([script])[0] == ["--model-path", "m", "--tp", "1"]


def test_a_branch_kept_on_an_undecided_test_is_said():
    # the same script, called from its loop over SPECS="off ngram" with "$spec": the test
    # decides nothing here, the branch's flags are planned, and the note says so
    script = _HEAD + _SERVE + 'for spec in $SPECS; do\n  serve_sglang "$spec"\ndone\n'
    notes: list[str] = []
    argv, _ = unpaste([script], notes=notes)
    assert "NGRAM" in argv
    assert any("$extra is planned as the branch of `if [ $1 = ngram ]`" in n for n in notes)
    # README: `if [ -z "$MODEL" ]; then MODEL=...; fi` fills in the default, silently
    notes = []
    script = ('MODEL=""\nif [ -z "$X" ]; then MODEL=m; fi\n'
              'python -m sglang.launch_server --model-path $MODEL\n')
    assert unpaste([script], notes=notes)[0] == ["--model-path", "m"]
    assert not any("planned as the branch" in n for n in notes)


# F8: https://leeroopedia.com/index.php/Workflow:Sgl_project_Sglang_Online_Serving_With_OpenAI_API
@pytest.mark.parametrize("text", [
    "  • Use python -m sglang.launch_server with --model-path and --port arguments\n"
    "  • Set --tp (tensor parallelism) for multi-GPU serving\n",
    "To serve it, run python -m sglang.launch_server with --tp 2 on two GPUs.",
    "Run sglang serve with the --model-path flag pointing at your checkpoint.",
])
def test_a_sentence_naming_the_launcher_is_not_a_launch(capsys, text):
    first = _error(capsys, text)
    assert "got a sentence that names the launcher" in first
    assert "positional" not in first and "expected an integer" not in first


def test_a_label_before_a_launch_is_still_a_launch(capsys):
    assert "got a sentence" in _error(capsys, "Use sglang serve with --port 1")
    assert unpaste(["Then run: python -m sglang.launch_server --model-path m --tp 2"])[0] == [
        "--model-path", "m", "--tp", "2"]
    assert unpaste(["uv run python -m sglang.launch_server --model-path m"])[0] == [
        "--model-path", "m"]


# F1: https://huggingface.co/lhca521/DeepSeek-V4-Pro (the 'Use this model > SGLang' widget as
# page text, flattened onto one line)
_WIDGET = ('# Install SGLang from pip: pip install sglang # Start the SGLang server: python3 -m '
           'sglang.launch_server \\ --model-path "lhca521/DeepSeek-V4-Pro" \\ --host 0.0.0.0 '
           '\\ --port 30000 # Call the server using curl (OpenAI-compatible API): curl -X POST '
           '"http://localhost:30000/v1/completions" \\ -H "Content-Type: application/json" '
           '\\ --data \'{ "model": "lhca521/DeepSeek-V4-Pro", "prompt": "Once upon a time,", '
           '"max_tokens": 512, "temperature": 0.5 }\'')


def test_a_flattened_model_page_snippet_is_read_as_its_commands():
    notes: list[str] = []
    argv, _ = unpaste([_WIDGET], notes=notes)
    assert argv == ["--model-path", "lhca521/DeepSeek-V4-Pro", "--host", "0.0.0.0",
                    "--port", "30000"]
    assert any("'# label: command' pieces" in n for n in notes)
    page = "- SGLang\nHow to use lhca521/DeepSeek-V4-Pro with SGLang:\n" \
           "Install from pip and serve model\n" + _WIDGET + "\n"
    assert unpaste([page])[0][:2] == ["--model-path", "lhca521/DeepSeek-V4-Pro"]


@pytest.mark.parametrize("text", ["# hello world",
                                  "# Install SGLang from pip: pip install sglang",
                                  "# one\n# two\n"])
def test_a_paste_of_comments_only_says_so(capsys, text):
    assert looks_pasted([text])
    first = _error(capsys, text)
    assert "got none: every line is a comment" in first


def test_a_root_session_is_still_read(capsys):
    first = _error(capsys, "#python3 -m sglang.launch_server --tp 2")
    assert "every line is a comment" in first and "follows a '#'" in first
    assert unpaste(["# python -m sglang.launch_server --model-path m"])[0] == [
        "--model-path", "m"]


# F7: https://huggingface.co/FasterDFlash/Hanrui/blob/main/test/start_server_dflash.sh as
# page text (each line a `| line | |` table row), cut
_ROWS = """| # Launch SGLang server with DFLASH speculative decoding. | |
| set -e | |
| TP=${1:-2} | |
| BASE_MODEL=/workspace/models/Qwen3-8B | |
| PORT=30000 | |
| echo " tp : $TP" | |
| /workspace/miniconda3/envs/dflash/bin/python -m sglang.launch_server \\ | |
| --model-path $BASE_MODEL \\ | |
| --speculative-algorithm DFLASH \\ | |
| --tp-size $TP \\ | |
| --port $PORT | |
"""


def test_a_code_view_scraped_as_table_rows_is_the_script():
    assert unpaste([_ROWS])[0] == ["--model-path", "/workspace/models/Qwen3-8B",
                                   "--speculative-algorithm", "DFLASH", "--tp-size", "2",
                                   "--port", "30000"]


# F6: https://github.com/SemiAnalysisAI/InferenceX/pull/1075 (review thread 2026-04-18), cut
_REVIEW = """claude[bot] · review thread · 2026-04-18
benchmarks/single_node/qwen3.5_fp4_b200_mtp.sh:75
```diff
+--quantization modelopt_fp4 --fp4-gemm-backend flashinfer_cutlass \\
+--kv-cache-dtype fp8_e4m3 \\
+--max-running-requests $MAX_RUNNING_REQUESTS \\
+--speculative-algorithm EAGLE \\
+--speculative-num-steps 3 \\
```
**claude[bot]**:
Add `SGLANG_ENABLE_SPEC_V2=1` before the `PYTHONNOUSERSITE=1 python3 -m sglang.launch_server` \
invocation to match the established pattern.
"""


def test_a_review_diff_of_flags_without_its_launch_is_named_first(capsys):
    first = _error(capsys, _REVIEW)
    assert "a review diff whose hunk adds SGLang flags" in first
    assert "give the flag after the paste" not in first
    first = _error(capsys, _REVIEW, "--max-running-requests", "64")
    assert "a review diff" in first and "claude[bot]" not in first


def test_a_diff_that_holds_its_launch_line_is_still_read(capsys):
    assert "a review diff" in _error(capsys, "@@ -1 +1 @@\n+--tp 4\n")
    diff = ("```diff\n python -m sglang.launch_server --model-path m \\\n"
            "-  --tp 2\n+  --tp 4\n```\n")
    assert unpaste([diff])[0] == ["--model-path", "m", "--tp", "4"]


# F4: find_string id 60492169155 (2026 Swift test suite holding a Compose file), cut
_SWIFT = '''@Suite("PlaintextExposure — multi-model shared compose")
struct MultiModelComposeTests {

    private let sharedCompose = """
    services:
      model-dsv4-flash-r1:
        image: dsv4-flash-sgl-fp8:local
        command: >
          sglang serve --model-path deepseek-ai/DeepSeek-V4-Flash
          --log-requests-level 0 --tp 2
    """
}
'''


@pytest.mark.parametrize(("text", "language"), [
    (_SWIFT, "Swift"),
    ("package main\n\nconst compose = `\nservices:\n  sglang:\n    image: lmsysorg/sglang\n"
     "    command: python3 -m sglang.launch_server --model-path m --tp 2\n`\n", "Go"),
    ('let compose = r#"\nservices:\n  sglang:\n    image: lmsysorg/sglang\n'
     '    command: python3 -m sglang.launch_server --model-path m --tp 2\n"#;\n', "Rust"),
])
def test_a_compose_file_in_another_languages_string_is_named_as_source(capsys, text,
                                                                       language):
    first = _error(capsys, text)
    assert f"it is {language} source, not a manifest" in first
    assert "line 1, column" not in first and "JavaScript" not in first
