"""``python3 -m runner --serve [--uids RUNNER:PROGRAM | --process TMPFS_MB]``: start the runner.

The host starts it from the folder that holds this package (``/opt/neocoder`` in the
image, a private copy in the process backend); see ``session.main``.
"""

import sys

from .session import main

sys.exit(main(sys.argv[1:]))
