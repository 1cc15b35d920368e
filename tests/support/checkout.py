"""Where the tests find the checkout's own files (scripts/, docs/, data/) and the shared
inputs beside it (``../shared``: the NeoCoder release, LiveIdeaBench's files, ...)."""

from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
SHARED = CHECKOUT.parent / "shared"
