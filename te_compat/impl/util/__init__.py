"""``impl.util``: ``platform_adapter`` and ``util_common``."""
