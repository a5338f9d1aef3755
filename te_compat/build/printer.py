"""A readable listing of an npusim kernel: what ``print_ir: True`` prints.

    kernel add_2x2  block_dim=1
      params:
        data0       gm         float16[2, 2]
      buffers:
        ub_x        UB  @0x0   float16[128]
      body:
        for i0 in range(0, 4):
          data_move(dst=ub_x[0], src=data0[(i0 * 128)], sid=0, nburst=1, burst=8)
          if (block_idx < 1):
            ...
          else:
            ...

Long text operands (e.g. the TVMScript of a scalar-pipe ``tvm_call``) are printed as an indented block under
their instruction.
"""
from __future__ import annotations

from npusim.sim.kernel import If, Instr, Kernel, Loop, expr_str

INDENT = "  "
#: a str operand longer than this (or with a newline) is listed as a block under its instruction
INLINE_TEXT_CHARS = 60


def _shape_text(dtype: str, shape: tuple) -> str:
    return f"{dtype}[{', '.join(str(d) for d in shape)}]" if shape else dtype


def _instr_lines(instr: Instr, pad: str) -> list[str]:
    inline, blocks = [], []
    for key, value in instr.args:
        if isinstance(value, str) and (len(value) > INLINE_TEXT_CHARS or "\n" in value):
            inline.append(f"{key}=<text below>")
            blocks.append((key, value))
        else:
            inline.append(f"{key}={expr_str(value)}")
    lines = [f"{pad}{instr.opcode}({', '.join(inline)})"]
    for key, text in blocks:
        lines.append(f"{pad}{INDENT}# {key}:")
        lines.extend(f"{pad}{INDENT}{INDENT}{line}" if line.strip() else "" for line in text.splitlines())
    return lines


def body_lines(stmts, depth: int = 0) -> list[str]:
    """The statements of a kernel body as indented text lines."""
    pad = INDENT * depth
    lines: list[str] = []
    for stmt in stmts:
        if isinstance(stmt, Instr):
            lines.extend(_instr_lines(stmt, pad))
        elif isinstance(stmt, Loop):
            lines.append(f"{pad}for {stmt.var} in range({expr_str(stmt.begin)}, {expr_str(stmt.end)}):")
            lines.extend(body_lines(stmt.body, depth + 1) or [f"{pad}{INDENT}pass"])
        elif isinstance(stmt, If):
            lines.append(f"{pad}if {expr_str(stmt.cond)}:")
            lines.extend(body_lines(stmt.then_body, depth + 1) or [f"{pad}{INDENT}pass"])
            if stmt.else_body:
                lines.append(f"{pad}else:")
                lines.extend(body_lines(stmt.else_body, depth + 1))
        else:
            lines.append(f"{pad}<unknown statement {stmt!r}>")
    return lines


def kernel_text(kernel: Kernel) -> str:
    """The whole kernel as text: header, parameters, local buffers, scalar registers, body."""
    lines = [f"kernel {kernel.name}  block_dim={kernel.block_dim}", f"{INDENT}params:"]
    width = max([len(p.name) for p in kernel.params] + [len(b.name) for b in kernel.buffers] + [1])
    for param in kernel.params:
        lines.append(f"{INDENT * 2}{param.name.ljust(width)}  {param.kind.ljust(9)}  "
                     f"{_shape_text(param.dtype, param.shape)}" + ("  atomic_clean" if param.atomic_clean else ""))
    if kernel.buffers:
        lines.append(f"{INDENT}buffers:")
        for buf in kernel.buffers:
            where = f"{buf.scope} @{buf.addr_bytes:#x}"
            lines.append(f"{INDENT * 2}{buf.name.ljust(width)}  {where.ljust(9)}  {_shape_text(buf.dtype, buf.shape)}")
    if kernel.scalars:
        lines.append(f"{INDENT}scalars: " + ", ".join(f"{s.name}: {s.dtype}" for s in kernel.scalars))
    lines.append(f"{INDENT}body:")
    lines.extend(body_lines(kernel.body, 2) or [f"{INDENT * 2}pass"])
    return "\n".join(lines)
