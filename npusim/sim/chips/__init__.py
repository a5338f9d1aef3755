"""Chip model data: one YAML file per simulated Ascend SoC (loaded by :mod:`npusim.sim.chip`)."""
