"""Lockstep execution: the blocks of a launch that run on different cores, executed together, one numpy
evaluation per instruction for all of them (see :mod:`npusim.sim.lockstep.runner`).  This package's
``__init__`` imports nothing, so instruction families can use its small modules without import cycles."""
