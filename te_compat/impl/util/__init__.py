"""``impl.util``: ``platform_adapter``, ``util_common`` and ``util_select_op_base``."""
