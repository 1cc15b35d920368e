"""``python -m neocoder.cli``: the same as the ``neocoder`` command."""

from . import main

main()
