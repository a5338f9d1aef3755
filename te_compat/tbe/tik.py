"""``tbe.tik``: not provided yet; importing it raises :class:`npusim.errors.TikUnsupportedError`."""
from te_compat.surface.tik_missing import raise_tik_unsupported

raise_tik_unsupported("tbe")
