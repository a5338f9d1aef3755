"""What ``from te import tik`` / ``from tbe import tik`` do until npusim provides TIK: a typed, explicit error."""
from npusim.errors import TikUnsupportedError


def raise_tik_unsupported(importer: str) -> None:
    """Raise the error for an import of ``<importer>.tik``."""
    raise TikUnsupportedError(
        f"{importer}.tik: TIK kernels are not supported yet by npusim (the TBE DSL is: te.lang.cce / tbe.dsl with "
        f"auto_schedule)")
