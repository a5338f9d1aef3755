"""Running a run of accumulation-chain links (:mod:`npusim.sim.isa.batch_chain`) as one closure of a batched
program: the accumulator is read once, every source is combined into it in program order with the instructions'
own operations, and it is stored once; the trace gets every instruction's record.  When the chip saturates and
the result holds a non-finite value, the run goes instruction by instruction instead (nothing was stored)."""
from __future__ import annotations

from typing import Callable

from npusim.sim.isa.batch_local import reader, writer
from npusim.sim.isa.saturate import has_nonfinite
from npusim.sim.lockstep import runs

#: runs shorter than this keep their instructions' own closures
MIN_LINKS = 3


def chain_of(node):
    """The node's chain link, or None."""
    instr = getattr(node, "instr", None)
    return None if instr is None else instr.extra.get("chain")


def fused(links: list) -> Callable:
    """One batched closure running ``links`` (a run where every link continues the first)."""
    first = links[0]
    acc_key, raw, fix, npdt = first.acc_key, first.raw, first.fix, first.npdt
    load, store = reader(first.acc_plan, first.acc_base), writer(first.acc_plan, first.acc_base)
    sources = tuple((reader(link.src_plan, link.src_base), link.src_key) for link in links)
    records = [link.record for link in links]
    singles = tuple(link.batch for link in links)

    def run(b):
        views, rows = b.views, b.rows
        acc = load(views[acc_key], rows)
        for get, key in sources:
            acc = raw((acc, get(views[key], rows)), None, npdt)
        if fix is not None and has_nonfinite(acc):
            for single in singles:
                single(b)
            return
        store(views[acc_key], rows, acc)
        b.append_records(records)
    return run


def fuse_body(nodes, closures: list) -> list:
    """``closures`` (one per node) with every run of at least :data:`MIN_LINKS` chain links, and every run of
    reductions (:mod:`npusim.sim.lockstep.runs`), replaced by one."""
    out, i = [], 0
    while i < len(nodes):
        count = runs.run_length(nodes, i)
        if count >= runs.MIN_LINKS:
            run = runs.fused([runs.link_of(n) for n in nodes[i:i + count]])
            if run is not None:
                out.append(run)
                i += count
                continue
        link = chain_of(nodes[i])
        j = i + 1
        if link is not None:
            while j < len(nodes) and (other := chain_of(nodes[j])) is not None and link.continues(other):
                j += 1
        if j - i >= MIN_LINKS:
            out.append(fused([chain_of(n) for n in nodes[i:j]]))
        else:
            out.extend(closures[i:j])
        i = j
    return out
