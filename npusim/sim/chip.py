"""Chip models: the YAML files in ``npusim/sim/chips`` loaded into frozen dataclasses.

Hardware numbers live only in those files; every number there names its source (see the files' ``references``).
Which chip is in use is not decided here: see :mod:`npusim.sim.runtime` (``set_chip``, ``NPUSIM_SOC``,
``set_overflow_mode``) and :class:`npusim.sim.target.Target`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Optional, Union

import yaml

from npusim.errors.sim import ChipModelError, UnknownChipError
from npusim.sim import geometry, overflow

DEFAULT_CHIP = "Ascend910"
CHIP_DIR = Path(__file__).with_name("chips")
LOCAL_SCOPES = ("UB", "L1", "L0A", "L0B", "L0C")
#: ``identity`` fields: how CANN names the chip (strings; ``product_2020`` may be null)
_IDENTITY_FIELDS = ("short_soc_version", "product_2020")
#: optional fields of a ``paths`` row (PathSpec)
_PATH_OPTIONAL = ("setup_cycles", "setup_bytes_per_cycle", "latency_bytes_per_cycle")

_SECTION_FIELDS = {
    "cores": ("aicore_num", "cube_core_num", "vector_core_num"),
    "clock": ("clock_mhz",),
    "memory": ("ub_bytes", "l1_bytes", "l0a_bytes", "l0b_bytes", "l0c_bytes", "l2_bytes", "l2_line_bytes",
               "l2_read_bytes_per_cycle", "hbm_bytes", "hbm_gbps"),
    "compute": ("peak_fp16_tflops", "vector_width_bytes", "block_bytes", "max_repeat", "cube_m", "cube_n",
                "cube_k_fp16"),
    "sync": ("event_ids",),
    "dsl": ("vrec_newton_steps",),
    "cube_costs": ("fixed_cycles", "setup_cycles"),
    "scalar_costs": ("issue_cycles", "alu_cycles", "load_cycles", "store_cycles", "mem_cycles", "flag_cycles"),
}
#: keys of a cost section or row that are not numbers of the model (``follows``: the published source a cost row
#: reproduces, read by benchmarks/bench_cycle_calibration.py)
_NOT_COST_KEYS = ("source", "sources", "follows")


@dataclass(frozen=True)
class PathSpec:
    """One data_move path: which pipe runs it and what a transfer of ``n`` bytes costs.

    The pipe is occupied ``max(setup_cycles + n / setup_bytes_per_cycle, n / bytes_per_cycle)`` cycles (the next
    transfer may start then); the transfer is complete ``max(occupancy, latency_cycles + n /
    latency_bytes_per_cycle)`` cycles after it started.  ``bytes_per_cycle`` is the sustained per-core rate; GM
    paths also share the chip's HBM bandwidth between the active cores (:mod:`npusim.sim.cost`).
    """

    src_scope: str
    dst_scope: str
    pipe: str
    bytes_per_cycle: float
    latency_cycles: float
    setup_cycles: float = 0.0
    setup_bytes_per_cycle: float = 0.0      # 0: bytes_per_cycle
    latency_bytes_per_cycle: float = 0.0    # 0: bytes_per_cycle

    @property
    def touches_gm(self) -> bool:
        return "GM" in (self.src_scope, self.dst_scope)

    def occupancy_cycles(self, nbytes: float) -> float:
        """Cycles a transfer of ``nbytes`` holds its pipe, before any HBM contention."""
        setup_rate = self.setup_bytes_per_cycle or self.bytes_per_cycle
        return max(self.setup_cycles + nbytes / setup_rate, nbytes / self.bytes_per_cycle)

    def completion_cycles(self, nbytes: float) -> float:
        """Cycles from a transfer's start to its completion, before any HBM contention."""
        latency_rate = self.latency_bytes_per_cycle or self.bytes_per_cycle
        return max(self.occupancy_cycles(nbytes), self.latency_cycles + nbytes / latency_rate)


@dataclass(frozen=True)
class VectorCost:
    """Cost row of a vector instruction: it holds the vector pipe ``per_repeat * repeat_times`` cycles and its
    result is complete ``startup`` cycles after that (``startup_<dtype>`` / ``per_repeat_<dtype>`` override the
    defaults per operand dtype)."""

    startup_cycles: float
    per_repeat_cycles: float
    per_repeat_by_dtype: Mapping[str, float]
    startup_by_dtype: Mapping[str, float] = dataclasses.field(default_factory=dict)

    def startup(self, dtype: str) -> float:
        """Start-up cycles for ``dtype`` operands (paid once per back-to-back run of independent instructions)."""
        return self.startup_by_dtype.get(dtype, self.startup_cycles)

    def per_repeat(self, dtype: str) -> float:
        """Cycles each repeat holds the vector pipe, for ``dtype`` operands."""
        return self.per_repeat_by_dtype.get(dtype, self.per_repeat_cycles)

    def cycles(self, repeat_times: int, dtype: str) -> float:
        """Cycles of one isolated instruction with ``repeat_times`` repeats of ``dtype`` operands."""
        return self.startup(dtype) + self.per_repeat(dtype) * repeat_times


@dataclass(frozen=True)
class Chip:
    """A simulated Ascend SoC.  Sizes in bytes, clock in MHz, bandwidths in GB/s or bytes/cycle as named."""

    name: str
    aliases: tuple
    description: str
    aicore_num: int
    cube_core_num: int
    vector_core_num: int
    clock_mhz: float
    ub_bytes: int
    l1_bytes: int
    l0a_bytes: int
    l0b_bytes: int
    l0c_bytes: int
    l2_bytes: int
    l2_line_bytes: int             # the L2's line (what a GM read brings in)
    l2_read_bytes_per_cycle: float  # one core's rate of reads the L2 serves (npusim.sim.cost.l2)
    hbm_bytes: int
    hbm_gbps: float
    peak_fp16_tflops: float
    vector_width_bytes: int
    block_bytes: int
    max_repeat: int
    cube_m: int
    cube_n: int
    cube_k_fp16: int
    event_ids: int
    pipes: tuple
    paths: Mapping[tuple, PathSpec]
    vector_costs: Mapping[str, VectorCost]
    mmad_fixed_cycles: float     # completion latency of an mmad after its tiles
    mmad_setup_cycles: float     # cycles an mmad holds the cube beyond its tiles
    mmad_kstep: Mapping[str, int]
    scalar_issue_cycles: float
    scalar_alu_cycles: float
    scalar_load_cycles: float
    scalar_store_cycles: float
    scalar_mem_cycles: float     # one memory access of a scalar program (tvm_call)
    flag_cycles: float
    dependence_latency: Mapping[str, float]   # pipe -> cycles a dependent instruction waits after its producer
    barrier_drain: Mapping[str, float]        # pipe -> cycles pipe_barrier(pipe) adds when work is outstanding
    isa: Mapping[str, frozenset]
    vsel_modes: frozenset
    sources: Mapping[str, str]
    overflow_mode: str      # "saturation" or "inf_nan" (npusim.sim.overflow)
    overflow_modes: tuple   # the modes the chip supports
    short_soc_version: str  # CANN's SHORT_SOC_VERSION ("Ascend910B" for every 910B model)
    product_2020: Optional[str]  # CANN 2020 product name ("cloud", "mini"); None when there is none
    vrec_newton_steps: int  # Newton steps TBE's DSL vrec adds after the vrec instruction

    @property
    def repeat_bytes(self) -> int:
        """Bytes one vector repeat covers (the vector unit's width)."""
        return self.vector_width_bytes

    def block_elems(self, itemsize: int) -> int:
        """Elements of ``itemsize`` bytes in one block."""
        return self.block_bytes // itemsize

    def lanes(self, itemsize: int) -> int:
        """Lanes of one vector repeat over elements of ``itemsize`` bytes: the vector width over the itemsize, at
        most the mask register's width (:data:`npusim.sim.geometry.MASK_BITS`)."""
        return min(geometry.MASK_BITS, self.vector_width_bytes // itemsize)

    @property
    def saturates(self) -> bool:
        """Whether float results saturate (inf -> +-max, NaN -> 0) rather than follow IEEE 754."""
        return self.overflow_mode == overflow.SATURATION

    def with_overflow_mode(self, mode: str, origin: str = "overflow_mode") -> "Chip":
        """This chip running in overflow ``mode`` ("saturation"/"inf_nan" or CANN's 0/1); raises
        OverflowModeError if the chip does not support it (Ascend 910 has only saturation)."""
        mode = overflow.check_supported(self.name, self.overflow_modes, overflow.parse_overflow_mode(mode, origin),
                                        origin)
        return self if mode == self.overflow_mode else dataclasses.replace(self, overflow_mode=mode)

    def scope_bytes(self, scope: str) -> int:
        """Capacity of a local scope ("UB", "L1", "L0A", "L0B", "L0C") in bytes."""
        return {"UB": self.ub_bytes, "L1": self.l1_bytes, "L0A": self.l0a_bytes, "L0B": self.l0b_bytes,
                "L0C": self.l0c_bytes}[scope]

    def supports(self, opcode: str, key: str) -> bool:
        """Whether ``opcode`` accepts ``key`` (a dtype name, a vconv "f162s32r" key, an mmad key) on this chip."""
        return key in self.isa.get(opcode, ())

    @property
    def hbm_bytes_per_cycle(self) -> float:
        """Chip-wide HBM/DDR bandwidth in bytes per AI-core cycle."""
        return self.hbm_gbps * 1e3 / self.clock_mhz

    def cycles_to_us(self, cycles: float) -> float:
        """Convert AI-core cycles to microseconds at this chip's clock."""
        return cycles / self.clock_mhz

    def soc_spec(self, key: str):
        """The value CANN's ``get_soc_spec(key)`` returns for this chip (SOC_VERSION, CORE_NUM, UB_SIZE ...)."""
        table = {
            "SOC_VERSION": self.name, "SHORT_SOC_VERSION": self.short_soc_version, "AICORE_TYPE": "AiCore",
            "CORE_NUM": self.aicore_num, "UB_SIZE": self.ub_bytes, "L1_SIZE": self.l1_bytes,
            "L2_SIZE": self.l2_bytes, "L0A_SIZE": self.l0a_bytes, "L0B_SIZE": self.l0b_bytes,
            "L0C_SIZE": self.l0c_bytes, "CUBE_SIZE": [self.cube_m, self.cube_k_fp16, self.cube_n],
            "CUBE_CORE_CNT": self.cube_core_num, "VECTOR_CORE_CNT": self.vector_core_num,
        }
        if key not in table:
            raise ChipModelError(f"get_soc_spec: unknown key {key!r}; known: {', '.join(sorted(table))}")
        return table[key]


def chip_names() -> list[str]:
    """Names of every chip model shipped in ``npusim/sim/chips``, sorted."""
    return sorted(p.stem for p in CHIP_DIR.glob("*.yaml"))


class ChipCatalog:
    """The chip models of a directory (default ``npusim/sim/chips``), each loaded once per overflow mode.

    A catalog is held by the runtime store (:class:`npusim.sim.runtime.RuntimeStore`); :func:`npusim.sim.get_chip`
    reads the process's.  ``get`` is thread-safe (a model loaded twice by racing threads is equal either way)."""

    def __init__(self, chip_dir: Path = CHIP_DIR):
        self.chip_dir = Path(chip_dir)
        self._aliases: Optional[Mapping[str, str]] = None
        self._models: dict = {}

    def names(self) -> list[str]:
        return sorted(p.stem for p in self.chip_dir.glob("*.yaml"))

    def canonical_name(self, name: str) -> str:
        """Map a chip name or alias (case-insensitive) to the model's name; raise UnknownChipError if none."""
        if self._aliases is None:
            table = {}
            for model in self.names():
                table[model.lower()] = model
                for alias in _read_yaml(self.chip_dir / f"{model}.yaml").get("aliases", ()) or ():
                    table[str(alias).lower()] = model
            self._aliases = MappingProxyType(table)
        found = self._aliases.get(str(name).strip().lower())
        if found is None:
            raise UnknownChipError(f"unknown Ascend chip {name!r}; npusim models: {', '.join(self.names())}")
        return found

    def get(self, name: str = DEFAULT_CHIP, overflow_mode: Union[str, int, None] = None) -> Chip:
        """The chip model called ``name`` (an alias such as "Ascend910B" works too), in its default overflow mode
        or in ``overflow_mode`` (OverflowModeError if the chip does not support it)."""
        mode = None if overflow_mode is None else overflow.parse_overflow_mode(overflow_mode, "get_chip")
        key = (self.canonical_name(name), mode)
        chip = self._models.get(key)
        if chip is None:
            if mode is None:
                path = self.chip_dir / f"{key[0]}.yaml"
                chip = _build_chip(_read_yaml(path), path)
            else:
                chip = self.get(key[0]).with_overflow_mode(mode, "get_chip")
            chip = self._models.setdefault(key, chip)
        return chip


def _read_yaml(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except (OSError, yaml.YAMLError) as exc:
        raise ChipModelError(f"cannot read chip model {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ChipModelError(f"chip model {path} is not a mapping")
    return data


class _SourceTracker:
    """Resolves the source of every number and collects them as ``section.field -> citation``."""

    def __init__(self, data: dict, path: Path):
        self.refs = data.get("references") or {}
        self.path = path
        self.sources: dict = {}

    def record(self, section: str, field: str, section_data: dict, row: Optional[dict] = None) -> None:
        ref_id = None
        if row is not None and isinstance(row, dict):
            ref_id = row.get("source")
        ref_id = ref_id or (section_data.get("sources") or {}).get(field) or section_data.get("source")
        if ref_id is None:
            raise ChipModelError(f"{self.path.name}: {section}.{field} has no source")
        if ref_id not in self.refs:
            raise ChipModelError(f"{self.path.name}: {section}.{field} cites unknown reference {ref_id!r}")
        self.sources[f"{section}.{field}"] = f"{ref_id}: {self.refs[ref_id]}"


def _section(data: dict, name: str, path: Path) -> dict:
    section = data.get(name)
    if not isinstance(section, dict):
        raise ChipModelError(f"{path.name}: missing section {name!r}")
    return section


def _number(section: dict, field: str, where: str):
    value = section.get(field)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ChipModelError(f"{where}: field {field!r} must be a number, got {value!r}")
    return value


def _scalar_fields(data: dict, path: Path, tracker: _SourceTracker) -> dict:
    fields = {}
    for section_name, names in _SECTION_FIELDS.items():
        section = _section(data, section_name, path)
        for field in names:
            fields[field] = _number(section, field, f"{path.name}: {section_name}")
            tracker.record(section_name, field, section)
    return fields


def _paths(data: dict, path: Path, tracker: _SourceTracker, pipes: tuple) -> Mapping:
    section = _section(data, "paths", path)
    result = {}
    for key, row in section.items():
        if key in _NOT_COST_KEYS:
            continue
        src, sep, dst = key.partition("->")
        if not sep or not isinstance(row, dict):
            raise ChipModelError(f"{path.name}: path {key!r} must be 'SRC->DST: {{pipe, bytes_per_cycle, ...}}'")
        if row.get("pipe") not in pipes:
            raise ChipModelError(f"{path.name}: path {key} runs on unknown pipe {row.get('pipe')!r}")
        optional = {name: float(_number(row, name, key)) for name in _PATH_OPTIONAL if name in row}
        spec = PathSpec(src, dst, row["pipe"], float(_number(row, "bytes_per_cycle", key)),
                        float(_number(row, "latency_cycles", key)), **optional)
        if spec.bytes_per_cycle <= 0 or spec.latency_cycles < 0 or any(v < 0 for v in optional.values()):
            raise ChipModelError(f"{path.name}: path {key} needs a positive bytes_per_cycle and no negative figure")
        result[(src, dst)] = spec
        tracker.record("paths", key, section, row)
    return MappingProxyType(result)


def _vector_costs(data: dict, path: Path, tracker: _SourceTracker) -> Mapping:
    section = _section(data, "vector_costs", path)
    result = {}
    for opcode, row in section.items():
        if opcode in _NOT_COST_KEYS:
            continue
        by_dtype = {k[len("per_repeat_"):]: float(_number(row, k, opcode)) for k in row
                    if k.startswith("per_repeat_") and k != "per_repeat_cycles"}
        startup = {k[len("startup_"):]: float(_number(row, k, opcode)) for k in row
                   if k.startswith("startup_") and k != "startup_cycles"}
        result[opcode] = VectorCost(float(_number(row, "startup_cycles", opcode)),
                                    float(_number(row, "per_repeat_cycles", opcode)), MappingProxyType(by_dtype),
                                    MappingProxyType(startup))
        tracker.record("vector_costs", opcode, section, row)
    return MappingProxyType(result)


def _pipe_cycles(sync: dict, field: str, pipes: tuple, path: Path, tracker: _SourceTracker) -> Mapping:
    """``sync.<field>``: a mapping pipe -> cycles (pipes the chip has)."""
    table = sync.get(field)
    if not isinstance(table, dict) or any(p not in pipes for p in table):
        raise ChipModelError(f"{path.name}: sync.{field} must map pipes among {list(pipes)} to cycles")
    tracker.record("sync", field, sync)
    return MappingProxyType({p: float(_number(table, p, f"{path.name}: sync.{field}")) for p in table})


def _isa(data: dict, path: Path, tracker: _SourceTracker) -> tuple:
    section = _section(data, "isa", path)
    isa = {}
    for opcode, keys in section.items():
        if opcode in ("source", "sources", "vsel_modes"):
            continue
        if not isinstance(keys, list):
            raise ChipModelError(f"{path.name}: isa.{opcode} must be a list of dtype keys")
        isa[opcode] = frozenset(str(k) for k in keys)
        tracker.record("isa", opcode, section)
    tracker.record("isa", "vsel_modes", section)
    return MappingProxyType(isa), frozenset(int(m) for m in section.get("vsel_modes", [0]))


def _numerics(data: dict, path: Path, tracker: _SourceTracker) -> tuple:
    """(default overflow mode, supported modes) from the ``numerics`` section."""
    section = _section(data, "numerics", path)
    default, modes = section.get("overflow_mode"), section.get("overflow_modes")
    if not isinstance(modes, list) or not modes or any(m not in overflow.OVERFLOW_MODES for m in modes):
        raise ChipModelError(f"{path.name}: numerics.overflow_modes must list modes among {overflow.OVERFLOW_MODES}")
    if default not in modes:
        raise ChipModelError(f"{path.name}: numerics.overflow_mode {default!r} is not among overflow_modes {modes}")
    tracker.record("numerics", "overflow_mode", section)
    tracker.record("numerics", "overflow_modes", section)
    return default, tuple(modes)


def _identity(data: dict, path: Path, tracker: _SourceTracker) -> dict:
    """The ``identity`` section: CANN's names for the chip (SHORT_SOC_VERSION, the 2020 product name or null)."""
    section = _section(data, "identity", path)
    found = {}
    for field in _IDENTITY_FIELDS:
        value = section.get(field)
        if field not in section or not (value is None and field == "product_2020" or isinstance(value, str)):
            raise ChipModelError(f"{path.name}: identity.{field} must be a string"
                                 f"{' or null' if field == 'product_2020' else ''}, got {value!r}")
        found[field] = value
        tracker.record("identity", field, section)
    return found


def _check_geometry(fields: dict, path: Path) -> None:
    """Block, repeat and max-repeat numbers that instructions can be built from."""
    block, width, repeat = fields["block_bytes"], fields["vector_width_bytes"], fields["max_repeat"]
    if block <= 0 or width <= 0 or width % block:
        raise ChipModelError(f"{path.name}: compute.vector_width_bytes ({width}) must be a positive multiple of "
                             f"compute.block_bytes ({block})")
    if repeat < 1:
        raise ChipModelError(f"{path.name}: compute.max_repeat must be at least 1, got {repeat}")
    if fields["vrec_newton_steps"] < 0:
        raise ChipModelError(f"{path.name}: dsl.vrec_newton_steps must not be negative")


def _build_chip(data: dict, path: Path) -> Chip:
    tracker = _SourceTracker(data, path)
    fields = _scalar_fields(data, path, tracker)
    _check_geometry(fields, path)
    identity = _identity(data, path, tracker)
    overflow_mode, overflow_modes = _numerics(data, path, tracker)
    sync = _section(data, "sync", path)
    pipes = tuple(sync.get("pipes") or ())
    if "S" not in pipes or "V" not in pipes:
        raise ChipModelError(f"{path.name}: sync.pipes must list at least S and V")
    cube = _section(data, "cube_costs", path)
    if not isinstance(cube.get("kstep"), dict) or not cube["kstep"]:
        raise ChipModelError(f"{path.name}: cube_costs.kstep must map input dtypes to the K step of one cube cycle")
    tracker.record("cube_costs", "kstep", cube)
    isa, vsel_modes = _isa(data, path, tracker)
    return Chip(
        name=str(data.get("name") or path.stem), aliases=tuple(data.get("aliases") or ()),
        description=str(data.get("description", "")),
        aicore_num=int(fields["aicore_num"]), cube_core_num=int(fields["cube_core_num"]),
        vector_core_num=int(fields["vector_core_num"]), clock_mhz=float(fields["clock_mhz"]),
        ub_bytes=int(fields["ub_bytes"]), l1_bytes=int(fields["l1_bytes"]), l0a_bytes=int(fields["l0a_bytes"]),
        l0b_bytes=int(fields["l0b_bytes"]), l0c_bytes=int(fields["l0c_bytes"]), l2_bytes=int(fields["l2_bytes"]),
        l2_line_bytes=int(fields["l2_line_bytes"]), l2_read_bytes_per_cycle=float(fields["l2_read_bytes_per_cycle"]),
        hbm_bytes=int(fields["hbm_bytes"]), hbm_gbps=float(fields["hbm_gbps"]),
        peak_fp16_tflops=float(fields["peak_fp16_tflops"]), vector_width_bytes=int(fields["vector_width_bytes"]),
        block_bytes=int(fields["block_bytes"]), max_repeat=int(fields["max_repeat"]), cube_m=int(fields["cube_m"]),
        cube_n=int(fields["cube_n"]), cube_k_fp16=int(fields["cube_k_fp16"]), event_ids=int(fields["event_ids"]),
        pipes=pipes, paths=_paths(data, path, tracker, pipes), vector_costs=_vector_costs(data, path, tracker),
        mmad_fixed_cycles=float(fields["fixed_cycles"]), mmad_setup_cycles=float(fields["setup_cycles"]),
        mmad_kstep=MappingProxyType({str(k): int(v) for k, v in cube["kstep"].items()}),
        scalar_issue_cycles=float(fields["issue_cycles"]), scalar_alu_cycles=float(fields["alu_cycles"]),
        scalar_load_cycles=float(fields["load_cycles"]), scalar_store_cycles=float(fields["store_cycles"]),
        scalar_mem_cycles=float(fields["mem_cycles"]), flag_cycles=float(fields["flag_cycles"]),
        dependence_latency=_pipe_cycles(sync, "dependence_latency_cycles", pipes, path, tracker),
        barrier_drain=_pipe_cycles(sync, "barrier_drain_cycles", pipes, path, tracker),
        isa=isa, vsel_modes=vsel_modes, sources=MappingProxyType(dict(tracker.sources)),
        overflow_mode=overflow_mode, overflow_modes=overflow_modes,
        short_soc_version=identity["short_soc_version"], product_2020=identity["product_2020"],
        vrec_newton_steps=int(fields["vrec_newton_steps"]),
    )
