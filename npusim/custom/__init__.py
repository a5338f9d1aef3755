"""``ops.Custom`` and its registration info."""
