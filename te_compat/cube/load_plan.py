"""The first sub-tile's GM -> L1 loads when a core runs one tile (``CubeTiling.first_loads``).

With one tile per core nothing overlaps the first load, and the first sub-tile also brings the resident A panel,
so its loads decide when the cube starts and whether it waits later.  Evenly sized loads of ``kl`` K fractals
make the cube wait for a whole first load; shorter loads start it sooner but pay the GM -> L1 set-up more often.
This module times a few alternatives -- a first load, equal middle loads, one or two short last loads (the last
A piece may come with the load before the last, so the last load moves B alone) -- on the chip's path rates (the
same occupancy / completion the cost model charges a move; L2 and HBM share are left out: they scale every plan
alike) and keeps the one whose last mmad ends first, or none when the even loads are as good.  :func:`head_plan`
weighs a head (the tile's first K fractals over its first two sub-tiles at once) against that plan on the same
model.
"""
from __future__ import annotations

from te_compat.dsl.cube import FRACTAL


def _move(chip, src: str, dst: str, nbytes: float) -> tuple:
    """(pipe cycles, completion cycles) of a data_move of ``nbytes`` on path src -> dst."""
    path = chip.paths.get((src, dst))
    if path is None:
        return nbytes / chip.block_bytes, nbytes / chip.block_bytes
    return path.occupancy_cycles(nbytes), path.completion_cycles(nbytes)


def _k_step_cycles(chip, mt: int, width: int, kt: int, frac_in: int) -> tuple:
    """(MTE1 cycles, MTE1 latency, cube cycles) of one k-step of ``width`` fractal columns."""
    a_move = _move(chip, "L1", "L0A", max(mt, kt) * frac_in)
    b_move = _move(chip, "L1", "L0B", kt * width * frac_in)
    mte1_cycles = min(mt, kt) * a_move[0] + b_move[0]
    mte1_latency = max(a_move[1] - a_move[0], b_move[1] - b_move[0])
    return mte1_cycles, mte1_latency, mt * width * kt + chip.mmad_setup_cycles


def plan_end_cycles(chip, plan: tuple, mt: int, width: int, kt: int, frac_in: int, head: tuple = (),
                    head_width: int = 0) -> float:
    """Modelled end of the first sub-tile's last mmad under ``plan`` = ((B K fractals, A K fractals), ...): one
    MTE2 move after another (two L1 slots for B, A resident), MTE1 k-steps into two L0 slots, one mmad each;
    ``head`` loads of ``head_width`` fractal columns come first (:func:`head_plan`)."""
    steps = {w: _k_step_cycles(chip, mt, w, kt, frac_in) for w in {width, head_width or width}}
    mte2, mte1, m_end = 0.0, 0.0, 0.0
    slot_free, l0_free = [0.0, 0.0], [0.0, 0.0]
    a_ready, step, k_first = [], 0, 0
    loads = [(b_count, a_count, head_width) for b_count, a_count in head] + \
        [(b_count, a_count, width) for b_count, a_count in plan]
    for r, (b_count, a_count, cols) in enumerate(loads):
        mte1_cycles, mte1_latency, cube = steps[cols]
        slot = (len(loads) - r) % 2
        mte2 = max(mte2, slot_free[slot])
        if a_count:
            cycles, complete = _move(chip, "GM", "L1", a_count * mt * frac_in)
            a_ready += [mte2 + complete] * a_count
            mte2 += cycles
        cycles, complete = _move(chip, "GM", "L1", b_count * cols * frac_in)
        b_ready = mte2 + complete
        mte2 += cycles
        ready = max([b_ready] + a_ready[k_first:k_first + b_count])
        k_first += b_count
        for _ in range(b_count // kt):
            start = max(mte1, ready, l0_free[step % 2])
            mte1 = start + mte1_cycles
            m_end = max(m_end, mte1 + mte1_latency) + cube
            l0_free[step % 2] = m_end
            step += 1
        slot_free[slot] = mte1
    return m_end


def _candidates(k1: int, kt: int, kl: int):
    """Plans of a first load, equal middle loads and one or two short last loads (sizes multiples of ``kt`` in
    steps of about a quarter of ``kl``, at most ``kl``), with or without the last A piece moved one load early."""
    step = max(kt, kl // 4 // kt * kt)
    sizes = list(range(step, kl + 1, step))
    big = [s for s in sizes if 2 * s >= kl]
    for first in big:
        for middle in big:
            for last in sizes:
                for tail in [0] + sizes:
                    rest = k1 - first - last - tail
                    if rest < 0 or rest % middle:
                        continue
                    loads = (first,) + (middle,) * (rest // middle) + (last,) + ((tail,) if tail else ())
                    paired = tuple((x, x) for x in loads)
                    yield paired
                    if len(loads) > 2:
                        yield paired[:-2] + ((loads[-2], loads[-2] + loads[-1]), (loads[-1], 0))


def first_loads(chip, k1: int, mt: int, width: int, kt: int, kl: int) -> tuple:
    """The fastest plan of the first sub-tile's loads (see the module docstring), or () when ``kl``-sized loads
    are as fast."""
    frac_in = FRACTAL * chip.block_bytes
    even = tuple((kl, kl) for _ in range(k1 // kl))
    best_end, best = plan_end_cycles(chip, even, mt, width, kt, frac_in), ()
    for plan in _candidates(k1, kt, kl):
        end = plan_end_cycles(chip, plan, mt, width, kt, frac_in)
        if end < best_end:
            best_end, best = end, plan
    return best


def head_shape_fits(chip, parts: tuple, kt: int) -> bool:
    """Whether sub-tiles of ``parts`` fractal columns can start with a head: two or more of them, the second at
    least as wide as every later one of its L0C slot, and two k-steps of the first two's B panel fit L0B."""
    return len(parts) >= 2 and parts[1] == max(parts[1::2]) and \
        2 * kt * (parts[0] + parts[1]) * FRACTAL * chip.block_bytes <= chip.l0b_bytes


def head_plan(chip, k1: int, mt: int, parts: tuple, kt: int, kl: int, b_room: int) -> tuple:
    """(head, first_loads): the loads of a head (the tile's first K fractals over its first two sub-tiles' width
    at once, see :meth:`te_compat.cube.kernel.CubeWriter._led_tile`) and of the first sub-tile's rest of K, or
    ((), the plan :func:`first_loads` gives) when no head is modelled faster.  A head feeds the cube twice as long
    per A panel while the first loads ramp up, and does the second sub-tile's first k-steps, which the second
    sub-tile then need not run: plans are ranked by the first sub-tile's modelled end plus the second one's
    remaining k-steps at its own pace (the slower of its mmad and its L1 -> L0 moves).  Heads of four k-steps (a
    turn of the L0A ring, which the second sub-tile, starting again after the head, must keep), in one or two
    loads whose B panel fits ``b_room`` fractals of an L1 slot, are tried with the rest of K in equal loads of a
    size the rest divides into (at most ``kl``), or those with their last A piece one load early."""
    frac_in = FRACTAL * chip.block_bytes
    wide, second = parts[0], parts[1]
    both = wide + second
    mte1_cycles, _, cube = _k_step_cycles(chip, mt, second, kt, frac_in)
    second_step = max(mte1_cycles, cube)

    def score(head, rest) -> float:
        done = sum(count for count, _ in head) // kt
        end = plan_end_cycles(chip, rest, mt, wide, kt, frac_in, head, both)
        return end + (k1 // kt - done) * second_step

    plan = first_loads(chip, k1, mt, wide, kt, kl)
    best = (score((), plan or tuple((kl, kl) for _ in range(k1 // kl))), (), plan)
    turn = 4 * kt                                   # four k-steps: one turn of the L0A ring
    heads = [((s, s), (turn - s, turn - s)) if s < turn else ((s, s),) for s in range(kt, turn + 1, kt)]
    heads = [head for head in heads if all(count * both <= b_room for count, _ in head)]
    for head in heads:
        left = k1 - sum(count for count, _ in head)
        for size in range(kt, kl + 1, kt):
            if left <= 0 or left % size or left // size < 2:
                continue
            even = tuple((size, size) for _ in range(left // size))
            for rest in (even, even[:-2] + ((size, 2 * size), (size, 0))):
                cycles = score(head, rest)
                if cycles < best[0]:
                    best = (cycles, head, rest)
    return best[1], best[2]


__all__ = ["first_loads", "head_plan", "head_shape_fits", "plan_end_cycles"]
