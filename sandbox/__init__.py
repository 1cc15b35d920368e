"""The sandbox image recipe (Dockerfile, runner.py, child.py), shipped as ``neocoder.sandbox_recipe``.

This folder stays at the top of the checkout; pyproject.toml maps it into the package so
a built wheel can build the image and run the process backend too.  Find it with
``neocoder.resources.sandbox_dir``.  Nothing imports runner.py or child.py as modules:
they run as scripts inside the container (or under the process backend).
"""
