"""Reading what a kernel library links against from its ELF file: DT_NEEDED entries and imported symbols.

Only the dynamic section and dynamic symbol table are read (through the section headers), enough to tell whether
a library starts threads of its own (imports ``pthread_create``, ``std::thread``, OpenMP ...) and which shared
libraries it names.  64- and 32-bit little- and big-endian files are understood; anything else reads as a library
that needs and imports nothing, and the callers treat that as "unknown", never as an error.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

ELF_MAGIC = b"\x7fELF"
SHT_DYNSYM = 11
SHT_DYNAMIC = 6
DT_NULL, DT_NEEDED = 0, 1
SHN_UNDEF = 0


@dataclass(frozen=True)
class DynamicInfo:
    """needed: the DT_NEEDED names in file order; imports: names of undefined dynamic symbols."""

    needed: tuple = ()
    imports: frozenset = frozenset()


@dataclass(frozen=True)
class _Layout:
    """Struct formats of one ELF class/byte order: header fields, section header, dynamic entry, symbol."""

    endian: str
    header: str        # e_shoff, e_shentsize, e_shnum at their offsets
    header_offset: int
    section: str       # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, ...
    dyn: str
    sym: str
    sym_name_index: int
    sym_shndx_index: int


def _layout(elf_class: int, data: int):
    endian = "<" if data == 1 else ">" if data == 2 else None
    if endian is None:
        return None
    if elf_class == 2:   # 64-bit
        return _Layout(endian, "Q10xHHH", 0x28, "IIQQQQIIQQ", "qQ", "IBBHQQ", 0, 3)
    if elf_class == 1:   # 32-bit
        return _Layout(endian, "I10xHHH", 0x20, "IIIIIIIIII", "iI", "IIIBBH", 0, 5)
    return None


def read_dynamic_info(path) -> DynamicInfo:
    """The DT_NEEDED names and imported symbol names of the ELF file at ``path`` (empty when unreadable)."""
    try:
        image = Path(path).read_bytes()
    except OSError:
        return DynamicInfo()
    if image[:4] != ELF_MAGIC or len(image) < 64:
        return DynamicInfo()
    layout = _layout(image[4], image[5])
    if layout is None:
        return DynamicInfo()
    try:
        return _parse(image, layout)
    except (struct.error, IndexError, ValueError):
        return DynamicInfo()


def _parse(image: bytes, layout: _Layout) -> DynamicInfo:
    shoff, shentsize, shnum, _shstrndx = struct.unpack_from(layout.endian + layout.header, image,
                                                            layout.header_offset)
    sections = [struct.unpack_from(layout.endian + layout.section, image, shoff + i * shentsize)
                for i in range(shnum)] if shoff else []
    needed, imports = [], set()
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind == SHT_DYNAMIC:
            needed.extend(_needed(image, layout, offset, size, entsize, sections[link]))
        elif kind == SHT_DYNSYM:
            imports.update(_undefined_symbols(image, layout, offset, size, entsize, sections[link]))
    return DynamicInfo(tuple(needed), frozenset(imports))


def _string(image: bytes, table, index: int) -> str:
    start = table[4] + index
    end = image.index(b"\0", start)
    return image[start:end].decode("utf-8", errors="replace")


def _needed(image, layout, offset, size, entsize, strtab) -> list:
    names = []
    for position in range(offset, offset + size, entsize or struct.calcsize(layout.endian + layout.dyn)):
        tag, value = struct.unpack_from(layout.endian + layout.dyn, image, position)
        if tag == DT_NULL:
            break
        if tag == DT_NEEDED:
            names.append(_string(image, strtab, value))
    return names


def _undefined_symbols(image, layout, offset, size, entsize, strtab) -> list:
    names = []
    step = entsize or struct.calcsize(layout.endian + layout.sym)
    for position in range(offset + step, offset + size, step):   # entry 0 is the null symbol
        fields = struct.unpack_from(layout.endian + layout.sym, image, position)
        if fields[layout.sym_shndx_index] == SHN_UNDEF and fields[layout.sym_name_index]:
            names.append(_string(image, strtab, fields[layout.sym_name_index]))
    return names
