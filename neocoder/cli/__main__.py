"""``python -m neocoder.cli``: the same as the ``neocoder`` command."""

from neocoder.cli import main

main()
