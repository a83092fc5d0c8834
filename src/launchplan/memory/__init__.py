"""The memory plan: what a launch's weights and KV cache take on each GPU."""
