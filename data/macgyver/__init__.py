"""The shipped MacGyver problems and annotated solutions (data/macgyver/README.md)."""
