"""launchplan: SGLang server-argument resolution, explained, without a GPU."""
