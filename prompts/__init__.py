"""The prompt texts, one file per prompt, shipped as the package ``neocoder.prompts``.

This folder stays at the top of the checkout; pyproject.toml maps it into the package so
a built wheel carries the texts too.  Read them with ``neocoder.resources.prompt_text``.
"""
