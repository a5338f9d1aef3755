"""Compiling the AICPU kernel runtime, the worker and kernel libraries, with a content-hash cache.

Artifacts:
- ``libnpusim_aicpu_runtime.a``: the runtime every kernel library links (``--whole-archive``) — registry,
  Tensor/TensorShape/AttrValue/CpuKernelContext, ParallelFor, log capture, ``RunCpuKernel``.  Each library gets
  its own copy, so each library has its own registry, as CANN's custom kernel libraries do.
- ``npusim_aicpu_worker``: the simulated AI CPU process (see worker.py).
- ``libmindspore_aicpu_kernels.so``: npusim's default kernels, from ``ops/aicpu/*.cc`` of a source checkout.

At install, setup.py calls :func:`build_install_artifacts` to put them in ``aicpu_loader/lib``.  When that
directory lacks an artifact (source checkout) or its sources changed since, the artifact is built on first use
into the cache (``$NPUSIM_CACHE_DIR/aicpu``, else ``$XDG_CACHE_HOME/npusim/aicpu``, else ``~/.cache/npusim/aicpu``).

This module uses the standard library only: setup.py loads it by file path before npusim is importable.
"""
from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterable, Sequence

try:
    from npusim.errors.aicpu import AicpuBuildError
except Exception:  # setup.py time: npusim itself may not be importable yet; the message is what matters
    class AicpuBuildError(RuntimeError):  # type: ignore[no-redef]
        """Compiling an AICPU artifact failed."""

PACKAGE_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = PACKAGE_DIR / "include"
RUNTIME_SRC_DIR = PACKAGE_DIR / "src" / "runtime"
WORKER_SRC = PACKAGE_DIR / "src" / "worker" / "worker_main.cc"
INSTALLED_LIB_DIR = PACKAGE_DIR / "lib"
#: ops/aicpu of a source checkout (absent in an installed wheel, whose default library was built at install)
DEFAULT_KERNEL_DIR = PACKAGE_DIR.parent / "ops" / "aicpu"

RUNTIME_ARCHIVE_NAME = "libnpusim_aicpu_runtime.a"
WORKER_NAME = "npusim_aicpu_worker"
DEFAULT_LIBRARY_NAME = "libmindspore_aicpu_kernels.so"
MANIFEST_SUFFIX = ".manifest.json"

BASE_CXXFLAGS = ("-std=c++17", "-O2", "-fPIC", "-pthread")
#: runtime internals stay hidden so that two kernel libraries in one process never bind to each other's registry
RUNTIME_CXXFLAGS = BASE_CXXFLAGS + ("-fvisibility=hidden", "-fvisibility-inlines-hidden")
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".inc", ".inl", ".ipp")


@dataclasses.dataclass(frozen=True)
class KernelBuild:
    """A built kernel library: where it is and whether the cache already had it."""

    path: Path
    from_cache: bool


# ---- configuration ---------------------------------------------------------------------------------------------
def compiler() -> str:
    """The C++ compiler: ``$CXX`` or g++."""
    return os.environ.get("CXX", "g++")


def build_jobs() -> int:
    """Parallel compile jobs: ``$NPUSIM_BUILD_JOBS``, else at most 2 (machines here are small and shared)."""
    env = os.environ.get("NPUSIM_BUILD_JOBS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(2, os.cpu_count() or 1))


def cache_root() -> Path:
    """Directory of cached builds (created on demand)."""
    if os.environ.get("NPUSIM_CACHE_DIR"):
        root = Path(os.environ["NPUSIM_CACHE_DIR"]) / "aicpu"
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = Path(base) / "npusim" / "aicpu"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _site_dirs() -> list[str]:
    dirs = [sysconfig.get_paths().get("purelib"), sysconfig.get_paths().get("platlib")]
    with contextlib.suppress(Exception):
        import site
        dirs += site.getsitepackages() + [site.getusersitepackages()]
    dirs += [p for p in sys.path if p]
    return [d for d in dict.fromkeys(dirs) if d]


def eigen_include_dirs() -> list[Path]:
    """Eigen 3 headers: ``$NPUSIM_EIGEN_INCLUDE``, the ``cmeel-eigen`` wheel (a declared dependency), then the
    system's ``libeigen3-dev``.  Empty when none is installed (kernels without Eigen still build)."""
    candidates = [Path(os.environ["NPUSIM_EIGEN_INCLUDE"])] if os.environ.get("NPUSIM_EIGEN_INCLUDE") else []
    candidates += [Path(d) / "cmeel.prefix" / "include" / "eigen3" for d in _site_dirs()]
    candidates += [Path("/usr/include/eigen3"), Path("/usr/local/include/eigen3")]
    for candidate in candidates:
        if (candidate / "Eigen" / "Core").is_file():
            return [candidate]
    return []


def compile_flags(include_dirs: Sequence[os.PathLike | str] = ()) -> list[str]:
    """Flags for compiling a kernel source: C++17, PIC, the CANN-named headers, Eigen, then ``include_dirs``."""
    flags = list(BASE_CXXFLAGS) + ["-I", str(INCLUDE_DIR)]
    for path in eigen_include_dirs():
        flags += ["-isystem", str(path)]
    for path in include_dirs:
        flags += ["-I", str(path)]
    return flags


def link_flags(archive: Path | None = None) -> list[str]:
    """Flags that link a kernel library against the runtime (building the runtime first if needed)."""
    archive = runtime_archive() if archive is None else archive
    return ["-shared", "-Wl,--whole-archive", str(archive), "-Wl,--no-whole-archive", "-pthread"]


# ---- hashing and the cache -------------------------------------------------------------------------------------
def _sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _content_key(kind: str, flags: Sequence[str], files: Iterable[Path], extra: Sequence[str] = ()) -> str:
    digest = hashlib.sha256()
    for part in [kind, *flags, *extra]:
        digest.update(part.encode() + b"\0")
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _headers_under(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.suffix in HEADER_SUFFIXES and p.is_file())


def _manifest_ok(manifest: Path, key: str) -> bool:
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return False
    if data.get("key") != key:
        return False
    for dep, sha in (data.get("deps") or {}).items():
        try:
            if _sha256_file(Path(dep)) != sha:
                return False
        except OSError:
            return False
    return True


def _write_manifest(artifact: Path, key: str, deps: Iterable[Path] = ()) -> None:
    dep_hashes = {str(p): _sha256_file(p) for p in sorted(set(deps)) if p.is_file()}
    manifest = artifact.with_name(artifact.name + MANIFEST_SUFFIX)
    manifest.write_text(json.dumps({"key": key, "deps": dep_hashes}, indent=1))


@contextlib.contextmanager
def _file_lock(path: Path):
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _cached(kind: str, key: str, artifact_name: str, produce: Callable[[Path], list[Path]]) -> tuple[Path, bool]:
    """The cached artifact for ``key``; ``produce(dir)`` builds it into ``dir`` and returns its dependencies.

    Returns (path, from_cache).  Builds happen under a file lock and are moved into place atomically, so
    concurrent processes never see half-written files and never build the same key twice.
    """
    root = cache_root()
    final_dir = root / f"{kind}-{key[:24]}"
    artifact = final_dir / artifact_name
    manifest = final_dir / (artifact_name + MANIFEST_SUFFIX)
    if artifact.is_file() and _manifest_ok(manifest, key):
        return artifact, True
    with _file_lock(root / f"{kind}-{key[:24]}.lock"):
        if artifact.is_file() and _manifest_ok(manifest, key):
            return artifact, True
        work_dir = Path(tempfile.mkdtemp(prefix=f".{kind}-", dir=root))
        try:
            deps = produce(work_dir)
            _write_manifest(work_dir / artifact_name, key, deps)
            if final_dir.exists():
                shutil.rmtree(final_dir)  # stale: a dependency changed (loaded copies keep their inode)
            os.replace(work_dir, final_dir)
        finally:
            shutil.rmtree(work_dir, ignore_errors=True)
    return artifact, False


# ---- compiling -------------------------------------------------------------------------------------------------
def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise AicpuBuildError(f"building {what} failed (exit {proc.returncode}):\n$ {shlex.join(cmd)}\n"
                              f"{proc.stdout.strip()}")


def _parse_depfile(depfile: Path) -> list[Path]:
    text = depfile.read_text().replace("\\\n", " ").replace("\\ ", "\0")
    _, _, deps = text.partition(": ")
    return [Path(p.replace("\0", " ")).resolve() for p in deps.split()]


def _compile_objects(sources: Sequence[Path], flags: Sequence[str], out_dir: Path,
                     what: str) -> tuple[list[Path], list[Path]]:
    """Compiles each source to an object in ``out_dir`` (in parallel); returns (objects, dependency files)."""
    def one(index_source):
        index, source = index_source
        obj = out_dir / f"{index:03d}_{source.stem}.o"
        depfile = obj.with_suffix(".d")
        _run([compiler(), *flags, "-MMD", "-MF", str(depfile), "-c", str(source), "-o", str(obj)],
             f"{what} ({source.name})")
        return obj, _parse_depfile(depfile)

    with ThreadPoolExecutor(max_workers=build_jobs()) as pool:
        results = list(pool.map(one, enumerate(sources)))
    deps = [dep for _, ds in results for dep in ds]
    return [obj for obj, _ in results], deps


def _runtime_sources() -> list[Path]:
    return sorted(RUNTIME_SRC_DIR.glob("*.cc"))


def _default_kernel_sources() -> list[Path]:
    return sorted(DEFAULT_KERNEL_DIR.glob("*.cc")) if DEFAULT_KERNEL_DIR.is_dir() else []


def _build_runtime_into(directory: Path) -> list[Path]:
    flags = [*RUNTIME_CXXFLAGS, "-I", str(INCLUDE_DIR), "-I", str(RUNTIME_SRC_DIR)]
    objects, deps = _compile_objects(_runtime_sources(), flags, directory, "the AICPU runtime")
    _run(["ar", "rcsD", str(directory / RUNTIME_ARCHIVE_NAME), *map(str, objects)], "the AICPU runtime archive")
    for obj in objects:
        obj.unlink()
        obj.with_suffix(".d").unlink(missing_ok=True)
    return deps


def _build_worker_into(directory: Path) -> list[Path]:
    exe = directory / WORKER_NAME
    _run([compiler(), *BASE_CXXFLAGS, "-I", str(INCLUDE_DIR), str(WORKER_SRC), "-o", str(exe), "-ldl"],
         "the AICPU worker")
    return []


def _link_library(objects: Sequence[Path], archive: Path, output: Path, ldflags: Sequence[str], what: str) -> None:
    _run([compiler(), "-o", str(output), *map(str, objects), *link_flags(archive), *ldflags], what)


def _build_library_into(directory: Path, name: str, sources: Sequence[Path], cflags: Sequence[str],
                        ldflags: Sequence[str], archive: Path) -> list[Path]:
    objects, deps = _compile_objects(sources, cflags, directory, name)
    _link_library(objects, archive, directory / name, ldflags, name)
    for obj in objects:
        obj.unlink()
        obj.with_suffix(".d").unlink(missing_ok=True)
    return deps


# ---- the three npusim artifacts --------------------------------------------------------------------------------
def _runtime_key() -> str:
    return _content_key("runtime", RUNTIME_CXXFLAGS, _runtime_sources() + _headers_under(INCLUDE_DIR))


def _worker_key() -> str:
    return _content_key("worker", BASE_CXXFLAGS, [WORKER_SRC, INCLUDE_DIR / "npusim_aicpu" / "call_abi.h"])


def _default_library_key(archive: Path) -> str:
    files = _default_kernel_sources() + _headers_under(DEFAULT_KERNEL_DIR) + _headers_under(INCLUDE_DIR)
    return _content_key("default", BASE_CXXFLAGS, files, [_sha256_file(archive)])


def _installed(name: str, key_fn: Callable[[], str] | None) -> Path | None:
    """``aicpu_loader/lib/name`` when present and (if its sources are here to check) built from these sources."""
    path = INSTALLED_LIB_DIR / name
    if not path.is_file():
        return None
    if key_fn is None:
        return path
    return path if _manifest_ok(path.with_name(name + MANIFEST_SUFFIX), key_fn()) else None


def runtime_archive() -> Path:
    """The runtime archive kernel libraries link: the installed one, else a cached build."""
    installed = _installed(RUNTIME_ARCHIVE_NAME, _runtime_key if _runtime_sources() else None)
    if installed:
        return installed
    return _cached("runtime", _runtime_key(), RUNTIME_ARCHIVE_NAME, _build_runtime_into)[0]


def worker_executable() -> Path:
    """The worker program: the installed one, else a cached build."""
    installed = _installed(WORKER_NAME, _worker_key if WORKER_SRC.is_file() else None)
    if installed:
        return installed
    return _cached("worker", _worker_key(), WORKER_NAME, _build_worker_into)[0]


def default_library() -> Path:
    """npusim's ``libmindspore_aicpu_kernels.so``: the installed one, else built from ``ops/aicpu`` into the cache."""
    sources = _default_kernel_sources()
    archive = runtime_archive()
    installed = _installed(DEFAULT_LIBRARY_NAME, (lambda: _default_library_key(archive)) if sources else None)
    if installed:
        return installed
    if not sources:
        raise AicpuBuildError(f"npusim's default AICPU library {DEFAULT_LIBRARY_NAME} is not installed in "
                              f"{INSTALLED_LIB_DIR} and its sources ({DEFAULT_KERNEL_DIR}) are not here to build it")
    cflags = compile_flags([DEFAULT_KERNEL_DIR])
    return _cached("default", _default_library_key(archive), DEFAULT_LIBRARY_NAME,
                   lambda d: _build_library_into(d, DEFAULT_LIBRARY_NAME, sources, cflags, (), archive))[0]


def build_install_artifacts(lib_dir: os.PathLike | str) -> list[Path]:
    """Build the runtime, the worker and the default library into ``lib_dir`` (used by setup.py at install)."""
    lib_dir = Path(lib_dir)
    if not _default_kernel_sources():  # e.g. an sdist without ops/aicpu: never ship a library without kernels
        raise AicpuBuildError(f"cannot build {DEFAULT_LIBRARY_NAME}: no kernel sources in {DEFAULT_KERNEL_DIR} "
                              f"(a source distribution must include ops/aicpu, see MANIFEST.in)")
    lib_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="npusim-aicpu-") as tmp:
        work = Path(tmp)
        _build_runtime_into(work)
        _build_worker_into(work)
        archive = work / RUNTIME_ARCHIVE_NAME
        _build_library_into(work, DEFAULT_LIBRARY_NAME, _default_kernel_sources(), compile_flags([DEFAULT_KERNEL_DIR]),
                            (), archive)
        keys = {RUNTIME_ARCHIVE_NAME: _runtime_key(), WORKER_NAME: _worker_key(),
                DEFAULT_LIBRARY_NAME: _default_library_key(archive)}
        built = []
        for name, key in keys.items():
            _write_manifest(work / name, key)
            for produced in (work / name, work / (name + MANIFEST_SUFFIX)):
                staging = lib_dir / f".{produced.name}.tmp"
                shutil.copy2(produced, staging)
                os.replace(staging, lib_dir / produced.name)
            built.append(lib_dir / name)
    return built


# ---- user kernel libraries -------------------------------------------------------------------------------------
def build_kernel_library(sources: Sequence[os.PathLike | str], output: os.PathLike | str | None = None, *,
                         include_dirs: Sequence[os.PathLike | str] = (), defines: Sequence[str] = (),
                         cxxflags: Sequence[str] = (), ldflags: Sequence[str] = ()) -> KernelBuild:
    """Compile AICPU kernel sources into a shared library linked with npusim's runtime.

    sources: .cc/.cpp files (REGISTER_CPU_KERNEL / REGISTER_MS_CPU_KERNEL kernels).
    output: where to put the library (e.g. ``DIR/libNAME.so``, replaced atomically); None: only in the cache
    (as ``libkernels.so`` in a directory named after the build's hash).
    include_dirs / defines (``NAME`` or ``NAME=VALUE``) / cxxflags / ldflags: added to the compile and link.
    The build is cached by the sources' content, the flags and the runtime; a header a source includes is
    re-hashed on every call, so editing it triggers a rebuild.
    """
    source_paths = [Path(s).resolve() for s in sources]
    missing = [str(p) for p in source_paths if not p.is_file()]
    if not source_paths or missing:
        raise AicpuBuildError(f"AICPU kernel build: source file(s) not found: {missing or 'none given'}")
    name = "libkernels.so"  # the cached copy's name; the same build copied to any output name is a cache hit
    archive = runtime_archive()
    include_paths = [Path(d).resolve() for d in include_dirs]
    cflags = compile_flags(include_paths) + [f"-D{d}" for d in defines] + list(cxxflags)
    key = _content_key("kernels", cflags + list(ldflags), source_paths,
                       [_sha256_file(archive), *map(str, source_paths)])
    path, from_cache = _cached("kernels", key, name,
                               lambda d: _build_library_into(d, name, source_paths, cflags, ldflags, archive))
    if output is None:
        return KernelBuild(path, from_cache)
    target = Path(output).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.copy2(path, staging)
    os.replace(staging, target)  # a worker that has the old file mapped keeps its inode
    return KernelBuild(target, from_cache)
