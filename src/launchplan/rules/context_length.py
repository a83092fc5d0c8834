"""The context length SGLang's model config accepts (``ModelConfig._derive_context_length``).

SGLang builds its model config during resolution, and a ``--context-length`` beyond what the
checkpoint's config derives is refused there (a configuration SGLang rejects, not a malformed
flag) unless an environment variable allows the longer length.
"""

from __future__ import annotations

from launchplan.engine.declarations import Refuse
from launchplan.engine.phases import Phase
from launchplan.engine.registry import rule
from launchplan.engine.view import View
from launchplan.facts import environment


@rule(
    phase=Phase.GRAPH_DEFAULTS,
    reads=("context_length",),
    facts=("model.derived_context_len",),
    sglang="ModelConfig._derive_context_length (first model_config_of, step 22)",
    triggers=("context_length",),
)
def context_length_limit(v: View) -> Refuse | None:
    """A --context-length above the length derived from config.json is refused.

    When: ``context_length`` exceeds ``model.derived_context_len`` and neither
        SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN nor SGLANG_IS_IN_CI is true.
    Effect: refuses: the context length is above the one derived from config.json; set
        SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 to allow a longer one.
    Why: the derived length (``max_position_embeddings`` with RoPE scaling and the other
        per-family keys) is what the checkpoint was trained for; SGLang refuses a longer one
        while building its model config (``ModelConfig._derive_context_length``).
    Assumes: both environment variables are unset unless the environment given sets them.
    """
    wanted, derived = v.context_length, v.model.derived_context_len
    if wanted is None or wanted <= derived:
        return None
    if environment.longer_context_allowed(v.env):
        return None
    return Refuse(f"--context-length {wanted} is above the context length derived from the "
                  f"model's config.json ({derived}); set "
                  "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 to allow a longer one")


# SGLang 0.5.21-0.5.23's registered config parsers (utils/hf_transformers/config.py); "auto"
# picks between them
CONFIG_PARSERS = ("auto", "hf", "mistral")


def _unregistered_parser(v: View) -> Refuse | None:
    if v.model_config_parser not in CONFIG_PARSERS:
        return Refuse(f"--model-config-parser {v.model_config_parser!r} is not registered; "
                      f"expected one of {', '.join(CONFIG_PARSERS)}")
    return None


@rule(
    phase=Phase.BOOTSTRAP,
    reads=("model_config_parser",),
    sglang="apply_muse_spark_env_defaults (get_config: get_model_config_parser)",
    triggers=("model_config_parser",),
)
def model_config_parser_known(v: View) -> Refuse | None:
    """The model's config is read by a registered parser: auto, hf or mistral.

    When: ``--model-config-parser`` is given.
    Effect: refuses a name other than auto, hf or mistral, right after the model-independent
        checks: before the multimodal, SSL and ASR validations and everything after them.
    Why: SGLang 0.5.23 first reads the model's config (to apply Muse Spark's environment
        defaults) right after those checks, and looks the parser up in its registry to do so
        (``apply_muse_spark_env_defaults``, ``get_model_config_parser``).
    Assumes: no out-of-tree parser is registered by a plugin; launchplan reads config.json
        whichever parser is named (the mistral parser's params.json is not read).
    """
    return _unregistered_parser(v)


@rule(
    phase=Phase.GRAPH_DEFAULTS,
    reads=("model_config_parser",),
    sglang="get_model_config_parser (first model_config_of, step 22; 0.5.21-0.5.22)",
    triggers=("model_config_parser",),
)
def model_config_parser_at_model_config(v: View) -> Refuse | None:
    """Before 0.5.23 the parser is looked up where the model config is first built.

    When: ``--model-config-parser`` is given (SGLang 0.5.21 and 0.5.22).
    Effect: refuses a name other than auto, hf or mistral, after the PD and DCP checks.
    Why: those releases read no model config before the model config is first built, ahead
        of the context length (``get_model_config_parser``).
    Assumes: as ``model_config_parser_known``.
    """
    return _unregistered_parser(v)
