"""The input surface: flags, pasted texts, config files and start-up logs."""

#: What a pasted text must hold: the one wording every reader's "no launch" error uses.
EXPECTED_LAUNCH = ("an SGLang launch (python -m sglang.launch_server ..., sglang serve ..., or a "
                   "manifest or script that starts one)")
