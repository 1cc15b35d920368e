"""The sandbox image recipe (Dockerfile, the ``runner`` package), shipped as ``neocoder.sandbox_recipe``.

This folder stays at the top of the checkout; pyproject.toml maps it into the package so
a built wheel can build the image and run the process backend too.  Find it with
``neocoder.resources.sandbox_dir``.  The runner package (``runner/``, with the test
process ``runner/child.py``) is copied whole into the image and started there as
``python3 -m runner``; the host imports it normally, as
``neocoder.sandbox_recipe.runner``, for the program contract and the verdict rules.
"""
