# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
# distutils: language = c++
"""Compiled call path of ``ops.Custom(func_type="aot")``.

Loads kernel libraries (``dlopen``/``dlsym``), builds the AotExtra object kernels read attributes from, and calls
``int F(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes, void *stream, void *extra)``
on the data pointers of numpy arrays (no copies for C-contiguous native-endian inputs).

Per (shapes, dtypes, attributes) signature an :class:`AotKernel` keeps one ``LaunchState`` (tensor table,
Init-filled AotExtra, workspaces), so a repeated call costs a dict lookup, output allocation and the call itself.

Outputs are allocated inside guard zones (``csrc/output_guard.h``) checked after every call: a kernel writing
outside an output raises AotOutputOverrunError naming the output instead of corrupting the heap.
"""
from libc.stdint cimport int64_t, uintptr_t
from libc.stdlib cimport free, malloc
from libcpp cimport bool as cbool
from libcpp.string cimport string
from libcpp.vector cimport vector

cimport numpy as cnp
import numpy as np

from npusim.aot.attrs import ATTR_KINDS, encode_attrs
from npusim.aot.dtypes import ms_dtype_name
from npusim.errors import AotKernelCrash, AotKernelError, AotOutputOverrunError, KernelRuntimeError, OpValueError

cdef extern from "numpy/arrayobject.h":
    ctypedef struct RawDescr "PyArray_Descr":
        pass
    ctypedef struct PyTypeObject:
        pass
    PyTypeObject PyArray_Type
    RawDescr *raw_descr_from_type "PyArray_DescrFromType"(int typenum)
    object array_over_data "PyArray_NewFromDescr"(PyTypeObject *subtype, RawDescr *descr, int nd,
                                                  cnp.npy_intp *dims, cnp.npy_intp *strides, void *data,
                                                  int flags, void *owner)

cnp.import_array()

cdef extern from "<dlfcn.h>" nogil:
    void *dlopen(const char *filename, int flags)
    void *dlsym(void *handle, const char *symbol)
    char *dlerror()
    int RTLD_NOW
    int RTLD_LOCAL
    ctypedef struct Dl_info:
        const char *dli_fname
    int dladdr(const void *address, Dl_info *info)

cdef extern from "loaded_objects.h" namespace "npusim_aot":
    vector[string] LoadedObjectPaths() except +

cdef extern from "output_guard.h" namespace "npusim_aot" nogil:
    size_t kFrontGuardBytes
    size_t TailGuardBytes(size_t data_bytes)
    void FillGuard(unsigned char *zone, size_t size)
    cbool GuardIntact(const unsigned char *zone, size_t size)
    size_t BytesWrittenAfter(const unsigned char *tail, size_t size)
    size_t BytesWrittenBefore(const unsigned char *front, size_t size)

cdef extern from "fault_guard.h" namespace "npusim_aot":
    void RegisterCrashNote(char *buffer, size_t size)

cdef extern from "attr_store.h" namespace "npusim_aot":
    cdef cppclass AttrStore:
        void AddBool(const char *name, cbool value)
        void AddInt(const char *name, int64_t value)
        void AddFloat(const char *name, double value)
        void AddStr(const char *name, const char *data, size_t size)
        void AddInts(const char *name, const int64_t *values, size_t count)
        void AddFloats(const char *name, const double *values, size_t count)
        void StartInt2D(const char *name)
        void StartFloat2D(const char *name)
        void AppendIntRow(const int64_t *values, size_t count)
        void AppendFloatRow(const double *values, size_t count)

cdef extern from "launch_state.h" namespace "npusim_aot":
    ctypedef int (*KernelFn)(int, void **, int *, int64_t **, const char **, void *, void *)
    ctypedef int (*InitFn)(int *, int64_t **, const char **, void *)
    ctypedef vector[int64_t] (*InferShapeFn)(int *, int64_t **, void *)
    int kCallOk
    int kCallNonZero
    int kCallSignal
    cdef cppclass CallResult:
        int outcome
        int code
        string message
    cdef cppclass TensorTable:
        void Add(const int64_t *dims, int ndim, const char *dtype)
        int size()
    CallResult CallInferShape(InferShapeFn fn, cbool cxx11_abi, const AttrStore &attrs, TensorTable *inputs,
                              vector[int64_t] *out_shape) except +
    ctypedef vector[vector[int64_t]] (*InferShapesFn)(int *, int64_t **, void *)
    ctypedef int (*InferTypeFn)(vector[int], void *)
    ctypedef vector[int] (*InferTypesFn)(vector[int], void *)
    CallResult CallInferShapes(InferShapesFn fn, cbool cxx11_abi, const AttrStore &attrs, TensorTable *inputs,
                               vector[vector[int64_t]] *out_shapes) except +
    CallResult CallInferTypes(InferTypeFn single, InferTypesFn multi, cbool cxx11_abi, const AttrStore &attrs,
                              const vector[int] &type_ids, vector[int] *out_types) except +
    cdef cppclass LaunchState:
        LaunchState(cbool cxx11_abi, const AttrStore &attrs) except +
        TensorTable *tensors()
        CallResult RunInit(InitFn fn) except +
        cbool AllocateWorkspaces() except +
        size_t num_workspaces()
        CallResult Launch(KernelFn fn, void *const *io, const char *label) nogil
    ctypedef int (*DeviceCountFn)(int *)
    CallResult CallDeviceCount(DeviceCountFn fn, int *count)

# Above this many bytes of tensor data the kernel runs with the GIL released; below it the release costs
# more than it can give other threads.
cdef Py_ssize_t RELEASE_GIL_MIN_BYTES = 1 << 18
# Signatures kept per kernel before the oldest is dropped (each may hold workspace memory).
cdef Py_ssize_t MAX_PLANS = 64
cdef Py_ssize_t MAX_INFERRED = 256


def open_library(str path):
    """``dlopen(path, RTLD_NOW | RTLD_LOCAL)``; returns the handle as an int, raises OSError with dlerror()."""
    cdef bytes encoded = path.encode()
    cdef void *handle = dlopen(encoded, RTLD_NOW | RTLD_LOCAL)
    if handle == NULL:
        raise OSError((<bytes>dlerror()).decode(errors="replace"))
    return <uintptr_t>handle


def find_symbol(uintptr_t handle, str name):
    """Address of ``name`` in the library (and its dependencies), or 0 when it has no such symbol."""
    cdef bytes encoded = name.encode()
    dlerror()
    return <uintptr_t>dlsym(<void *>handle, encoded)


def read_c_int(uintptr_t address):
    """The ``int`` stored at ``address`` (used for the ABI marker variable of custom_aot_extra.h)."""
    return (<int *>address)[0]


def symbol_origin(uintptr_t address):
    """File name of the shared object holding ``address`` ("" when unknown)."""
    cdef Dl_info info
    if address == 0 or dladdr(<void *>address, &info) == 0 or info.dli_fname == NULL:
        return ""
    return (<bytes>info.dli_fname).decode(errors="replace")


def loaded_object_paths():
    """File names of the shared objects loaded in this process."""
    return [(<bytes>path).decode(errors="replace") for path in LoadedObjectPaths()]


def cuda_device_count(uintptr_t address):
    """(status, count) of ``int cudaGetDeviceCount(int *)`` at ``address``; status -1 if the call crashed."""
    cdef int count = 0
    cdef CallResult result = CallDeviceCount(<DeviceCountFn>address, &count)
    if result.outcome == kCallOk or result.outcome == kCallNonZero:
        return result.code, count
    return -1, 0


def register_crash_note(uintptr_t address, size_t size):
    """(aot worker) Let crashes on kernel threads and uncaught C++ exceptions leave a note in this buffer."""
    RegisterCrashNote(<char *>address, size)


cdef void fill_attr_store(AttrStore *store, tuple encoded) except *:
    """Copy attributes encoded by :func:`npusim.aot.attrs.encode_attrs` into a C++ AttrStore."""
    cdef bytes name
    cdef bytes text
    cdef cnp.ndarray ints
    cdef cnp.ndarray floats
    for entry in encoded:
        name = (<str>entry[0]).encode()
        kind = entry[1]
        value = entry[2]
        if kind == "bool":
            store.AddBool(name, value)
        elif kind == "int":
            store.AddInt(name, value)
        elif kind == "float":
            store.AddFloat(name, value)
        elif kind == "str":
            text = (<str>value).encode()
            store.AddStr(name, text, len(text))
        elif kind == "ints":
            ints = np.ascontiguousarray(value, dtype=np.int64)
            store.AddInts(name, <int64_t *>cnp.PyArray_DATA(ints), ints.shape[0])
        elif kind == "floats":
            floats = np.ascontiguousarray(value, dtype=np.float64)
            store.AddFloats(name, <double *>cnp.PyArray_DATA(floats), floats.shape[0])
        elif kind == "ints2d":
            store.StartInt2D(name)
            for row in value:
                ints = np.ascontiguousarray(row, dtype=np.int64)
                store.AppendIntRow(<int64_t *>cnp.PyArray_DATA(ints), ints.shape[0])
        elif kind == "floats2d":
            store.StartFloat2D(name)
            for row in value:
                floats = np.ascontiguousarray(row, dtype=np.float64)
                store.AppendFloatRow(<double *>cnp.PyArray_DATA(floats), floats.shape[0])
        else:
            raise ValueError(f"unknown attribute kind {kind!r} (known: {ATTR_KINDS})")


cdef object freeze(object value):
    """A hashable copy of ``value``: lists, tuples and arrays become tuples, recursively."""
    cdef type kind = type(value)
    if kind is tuple or kind is list:
        return tuple([freeze(item) for item in <object>value])
    if kind is np.ndarray:
        return freeze(value.tolist())
    if isinstance(value, (list, tuple)):
        return tuple([freeze(item) for item in value])
    return value


cdef void add_tensor(TensorTable *table, tuple shape, str dtype_name) except *:
    cdef vector[int64_t] dims
    for extent in shape:
        dims.push_back(extent)
    cdef bytes dtype_bytes = dtype_name.encode()
    table.Add(dims.data(), <int>dims.size(), dtype_bytes)


cdef inline cnp.ndarray as_kernel_array(object value):
    """``value`` as an aligned, C-contiguous, native-endian ndarray: the array itself when it already is one
    (zero-copy), else a copy (0-d stays 0-d)."""
    if not cnp.PyArray_Check(value):
        value = np.asarray(value)
    cdef cnp.ndarray array = <cnp.ndarray>value
    if cnp.PyArray_ISCARRAY_RO(array) and cnp.PyArray_ISNOTSWAPPED(array):
        return array
    return np.array(array, dtype=array.dtype.newbyteorder("="), order="C", copy=True)


# Guard blocks up to this size come from malloc (a cheap owner object); larger ones from numpy's allocator, which
# backs big arrays with huge pages as it does for numpy's own results.
cdef size_t SMALL_BLOCK_MAX_BYTES = 1 << 20


cdef class GuardBlock:
    """The malloc'ed memory of a small guarded output (its base object)."""
    cdef void *memory

    def __dealloc__(self):
        free(self.memory)


cdef object guarded_output(cnp.ndarray dims, int typenum, size_t data_bytes, unsigned char **front):
    """A new uninitialised array of ``dims``/``typenum`` inside a block with filled guard zones before and after
    (csrc/output_guard.h); ``front`` receives the block's start.  The block is the array's base."""
    cdef size_t tail = TailGuardBytes(data_bytes)
    cdef cnp.npy_intp block_bytes = kFrontGuardBytes + data_bytes + tail
    cdef unsigned char *start
    cdef GuardBlock small
    cdef object block
    if <size_t>block_bytes <= SMALL_BLOCK_MAX_BYTES:
        small = GuardBlock.__new__(GuardBlock)
        small.memory = malloc(block_bytes)
        if small.memory == NULL:
            raise MemoryError(f"cannot allocate an aot output of {data_bytes} bytes")
        start = <unsigned char *>small.memory
        block = small
    else:
        block = cnp.PyArray_EMPTY(1, &block_bytes, cnp.NPY_UINT8, 0)
        start = <unsigned char *>cnp.PyArray_DATA(<cnp.ndarray>block)
    FillGuard(start, kFrontGuardBytes)
    FillGuard(start + kFrontGuardBytes + data_bytes, tail)
    front[0] = start
    array = array_over_data(&PyArray_Type, raw_descr_from_type(typenum), <int>dims.shape[0],
                            <cnp.npy_intp *>cnp.PyArray_DATA(dims), NULL, start + kFrontGuardBytes,
                            cnp.NPY_ARRAY_CARRAY, NULL)
    cnp.set_array_base(<cnp.ndarray>array, block)
    return array


def overrun_error(str op_name, str function, str file_path, int index, output, size_t before, size_t after,
                  size_t front_zone, size_t tail_zone):
    """The AotOutputOverrunError for output ``index`` (shared by the in-process path and the aot worker)."""
    where = []
    if after:
        where.append(f"{after} bytes past the end")
    if before:
        where.append(f"{before} bytes before the start")
    beyond = after >= tail_zone or before >= front_zone
    return AotOutputOverrunError(
        f"Custom op '{op_name}': {function} in '{file_path}' wrote {' and '.join(where)} of output {index} "
        f"({output.dtype.name}, shape {tuple(output.shape)}, {output.nbytes} bytes); npusim caught the writes in "
        "guard bytes around the output" + (" but they reach beyond them, so other memory may be damaged"
                                           if beyond else "") + ". Check the kernel's loop bounds and indexing",
        output_index=index, bytes_before=before, bytes_after=after)


cdef void check_result(CallResult result, str op_name, str function, str file_path) except *:
    """Raise for a user function's CallResult: AotKernelError (non-zero return), AotKernelCrash (signal),
    KernelRuntimeError (C++ exception)."""
    if result.outcome == kCallOk:
        return
    if result.outcome == kCallNonZero:
        raise AotKernelError(
            f"Custom op '{op_name}': {function} in '{file_path}' returned {result.code}; "
            "any non-zero return value is treated as the kernel's error code", code=result.code)
    if result.outcome == kCallSignal:
        raise AotKernelCrash(
            f"Custom op '{op_name}': {function} in '{file_path}' crashed with signal "
            f"{result.code} ({(<bytes>result.message).decode(errors='replace')}); npusim caught it and your "
            "process continues, but memory the kernel was writing (outputs, its own heap) may be inconsistent",
            signal_number=result.code)
    raise KernelRuntimeError(
        f"Custom op '{op_name}': {function} in '{file_path}' threw a C++ exception: "
        + (<bytes>result.message).decode(errors="replace"))


cdef class CallPlan:
    """One signature's LaunchState plus what is needed to allocate its outputs."""
    cdef LaunchState *state
    cdef int num_inputs
    cdef int num_outputs
    cdef list out_dims  # per output: ndarray of npy_intp extents
    cdef list out_typenums
    cdef vector[size_t] out_nbytes

    def __dealloc__(self):
        del self.state


cdef class AotKernel:
    """One user function of one kernel library, ready to be launched.

    ``fn``, ``init_fn`` and ``infer_fn`` are symbol addresses (0 = absent).  ``fixed_attrs`` are encoded
    attributes (reg-info values) every call sees unless the call passes the same name.
    """
    cdef readonly str op_name
    cdef readonly str file_path
    cdef readonly str func_name
    cdef KernelFn fn
    cdef InitFn init_fn
    cdef InferShapeFn infer_fn
    cdef readonly bint cxx11_abi
    cdef tuple fixed_attrs
    cdef dict plans
    cdef dict inferred
    cdef bytes label  # names the call in crash notes (fault_guard.h)

    def __init__(self, str op_name, str file_path, str func_name, uintptr_t fn, uintptr_t init_fn,
                 uintptr_t infer_fn, bint cxx11_abi, tuple fixed_attrs=()):
        if fn == 0:
            raise ValueError("the kernel function address must not be 0")
        self.op_name = op_name
        self.file_path = file_path
        self.func_name = func_name
        self.fn = <KernelFn>fn
        self.init_fn = <InitFn>init_fn
        self.infer_fn = <InferShapeFn>infer_fn
        self.cxx11_abi = cxx11_abi
        self.fixed_attrs = fixed_attrs
        self.plans = {}
        self.inferred = {}
        self.label = f"'{op_name}' ({func_name} in '{file_path}')".encode(errors="replace")

    @property
    def has_init(self):
        return self.init_fn != NULL

    @property
    def has_infer_shape(self):
        return self.infer_fn != NULL

    def launch(self, list inputs, attrs, list out_shapes, list out_dtypes):
        """Run the kernel on ``inputs`` (numpy arrays); returns the list of new output arrays."""
        cdef list arrays = [None] * len(inputs)
        plan = self.plan_for(inputs, arrays, attrs, out_shapes, out_dtypes)
        return self.run_plan(plan, arrays, None)

    def launch_into(self, list inputs, attrs, list outputs):
        """Run the kernel writing into ``outputs`` (C-contiguous arrays the caller owns and guards; used by the aot
        worker), with the GIL released for the whole call."""
        cdef list arrays = [None] * len(inputs)
        plan = self.plan_for(inputs, arrays, attrs, [o.shape for o in outputs], [o.dtype.name for o in outputs])
        self.run_plan(plan, arrays, outputs)

    cdef CallPlan plan_for(self, list inputs, list arrays, attrs, list out_shapes, list out_dtypes):
        """The CallPlan of this signature (made on first use); fills ``arrays`` with kernel-ready inputs."""
        cdef Py_ssize_t num_inputs = len(inputs)
        cdef Py_ssize_t i
        cdef cnp.ndarray array
        signature = [None] * (2 * num_inputs)
        for i in range(num_inputs):
            array = as_kernel_array(inputs[i])
            arrays[i] = array
            signature[2 * i] = (<object>array).shape
            signature[2 * i + 1] = cnp.PyArray_TYPE(array)
        attrs_key = self.attr_key(attrs) if self.init_fn != NULL else None
        key = (tuple(signature), tuple(out_shapes), tuple(out_dtypes), attrs_key)
        try:
            plan = self.plans.get(key)
        except TypeError:  # output shapes given as lists
            out_shapes = [tuple(shape) for shape in out_shapes]
            key = (tuple(signature), tuple(out_shapes), tuple(out_dtypes), attrs_key)
            plan = self.plans.get(key)
        if plan is None:
            plan = self.make_plan(arrays, attrs, out_shapes, out_dtypes)
            if len(self.plans) >= MAX_PLANS:
                del self.plans[next(iter(self.plans))]
            self.plans[key] = plan
        return <CallPlan>plan

    def infer_shape(self, list in_shapes, list in_dtypes, attrs):
        """The output shape ``<func>InferShape`` computes for inputs of these shapes (a tuple of ints)."""
        if self.infer_fn == NULL:
            raise OpValueError(
                f"Custom op '{self.op_name}': 'out_shape' is None, so the output shape must come from "
                f"'{self.func_name}InferShape', which '{self.file_path}' does not define (declare it "
                f"extern \"C\" std::vector<int64_t> {self.func_name}InferShape(int *, int64_t **, AotExtra *))")
        key = (freeze(in_shapes), self.attr_key(attrs))
        shape = self.inferred.get(key)
        if shape is None:
            shape = self.call_infer_shape(in_shapes, in_dtypes, attrs)
            if len(self.inferred) >= MAX_INFERRED:
                del self.inferred[next(iter(self.inferred))]
            self.inferred[key] = shape
        return shape

    cdef object attr_key(self, attrs):
        """A hashable stand-in for the call's attribute values.

        Values that compare equal share a key (1, 1.0 and True too): Init reads them alike, except that an
        int64_t read of 1.0 would fail on a fresh Init but not on the shared one.
        """
        if attrs is None:
            return None
        values = attrs.values
        try:
            hash(values)
            return (attrs.names, values)
        except TypeError:
            return (attrs.names, freeze(values))

    cdef void fill_attrs(self, AttrStore *store, attrs) except *:
        fill_attr_store(store, self.fixed_attrs)
        if attrs is not None:
            fill_attr_store(store, encode_attrs(attrs.names, attrs.values, self.op_name))

    cdef tuple call_infer_shape(self, list in_shapes, list in_dtypes, attrs):
        cdef AttrStore store
        cdef TensorTable table
        cdef vector[int64_t] out_shape
        self.fill_attrs(&store, attrs)
        for shape, dtype_name in zip(in_shapes, in_dtypes):
            add_tensor(&table, tuple(shape), ms_dtype_name(dtype_name, self.op_name))
        cdef CallResult result = CallInferShape(self.infer_fn, self.cxx11_abi, store, &table, &out_shape)
        self.check(result, self.func_name + "InferShape")
        shape = tuple(out_shape)
        if any(extent < 0 for extent in shape):
            raise OpValueError(f"Custom op '{self.op_name}': {self.func_name}InferShape in '{self.file_path}' "
                               f"returned the shape {list(shape)}; npusim needs static (non-negative) extents")
        return shape

    cdef CallPlan make_plan(self, list arrays, attrs, list out_shapes, list out_dtypes):
        cdef AttrStore store
        cdef CallPlan plan = CallPlan.__new__(CallPlan)
        cdef cnp.ndarray array
        if len(out_shapes) != len(out_dtypes):
            raise OpValueError(f"Custom op '{self.op_name}': {len(out_shapes)} output shapes but "
                               f"{len(out_dtypes)} output dtypes")
        self.fill_attrs(&store, attrs)
        plan.state = new LaunchState(self.cxx11_abi, store)
        for array in arrays:
            add_tensor(plan.state.tensors(), (<object>array).shape, ms_dtype_name(array.dtype, self.op_name))
        plan.out_dims = []
        plan.out_typenums = []
        for shape, dtype_name in zip(out_shapes, out_dtypes):
            shape = tuple(int(extent) for extent in shape)
            if any(extent < 0 for extent in shape):
                raise OpValueError(f"Custom op '{self.op_name}': output shape {list(shape)} has a negative extent")
            add_tensor(plan.state.tensors(), shape, ms_dtype_name(dtype_name, self.op_name))
            plan.out_dims.append(np.array(shape, dtype=np.intp))
            plan.out_typenums.append(np.dtype(dtype_name).num)
            plan.out_nbytes.push_back(int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype_name).itemsize)
        plan.num_inputs = len(arrays)
        plan.num_outputs = len(out_shapes)
        if self.init_fn != NULL:
            self.check(plan.state.RunInit(self.init_fn), self.func_name + "Init")
        if not plan.state.AllocateWorkspaces():
            raise MemoryError(f"Custom op '{self.op_name}': cannot allocate the workspaces "
                              f"{self.func_name}Init asked for")
        return plan

    cdef list run_plan(self, CallPlan plan, list arrays, list given_outputs):
        """Call the kernel; outputs are new guarded arrays, or ``given_outputs`` (then the GIL is released)."""
        cdef int num_io = plan.num_inputs + plan.num_outputs
        cdef void *io_small[16]   # the parameter and guard tables of small calls live on the stack
        cdef unsigned char *fronts_small[8]
        cdef vector[void *] io_big
        cdef vector[unsigned char *] fronts_big
        cdef void **io = io_small
        cdef unsigned char **fronts = fronts_small
        cdef Py_ssize_t total_bytes = 0
        cdef cnp.ndarray array
        cdef int j
        if num_io > 16:
            io_big.resize(num_io)
            io = io_big.data()
        if plan.num_outputs > 8:
            fronts_big.resize(plan.num_outputs)
            fronts = fronts_big.data()
        for j in range(plan.num_inputs):
            array = <cnp.ndarray>arrays[j]
            io[j] = cnp.PyArray_DATA(array)
            total_bytes += cnp.PyArray_NBYTES(array)
        if given_outputs is None:
            outputs = [None] * plan.num_outputs
            for j in range(plan.num_outputs):
                outputs[j] = guarded_output(<cnp.ndarray>plan.out_dims[j], <int>plan.out_typenums[j],
                                            plan.out_nbytes[j], &fronts[j])
                io[plan.num_inputs + j] = fronts[j] + kFrontGuardBytes
                total_bytes += plan.out_nbytes[j]
        else:
            outputs = given_outputs
            for j in range(plan.num_outputs):
                io[plan.num_inputs + j] = cnp.PyArray_DATA(<cnp.ndarray>outputs[j])
            total_bytes = RELEASE_GIL_MIN_BYTES
        cdef CallResult result
        cdef const char *label = self.label
        if total_bytes >= RELEASE_GIL_MIN_BYTES:
            with nogil:
                result = plan.state.Launch(self.fn, io, label)
        else:
            result = plan.state.Launch(self.fn, io, label)
        if given_outputs is None and result.outcome != kCallSignal:
            for j in range(plan.num_outputs):
                self.check_guard(fronts[j], plan.out_nbytes[j], j, outputs[j])
        if result.outcome != kCallOk:
            self.check(result, self.func_name)
        return outputs

    cdef void check_guard(self, unsigned char *front, size_t data_bytes, int index, object output) except *:
        """AotOutputOverrunError when the kernel wrote into the guard zones of output ``index``."""
        cdef size_t tail = TailGuardBytes(data_bytes)
        cdef unsigned char *after = front + kFrontGuardBytes + data_bytes
        if GuardIntact(front, kFrontGuardBytes) and GuardIntact(after, tail):
            return
        raise overrun_error(self.op_name, self.func_name, self.file_path, index, output,
                            BytesWrittenBefore(front, kFrontGuardBytes), BytesWrittenAfter(after, tail),
                            kFrontGuardBytes, tail)

    cdef void check(self, CallResult result, str function) except *:
        check_result(result, self.op_name, function, self.file_path)


cdef class InferFunctions:
    """``<func>InferShape`` / ``<func>InferType`` of a C++ infer source: MindSpore's C++ infer of Custom aot ops on
    Ascend, whose computation is an aclnn operator rather than a function of the library.

    ``shape_fn`` / ``type_fn`` are symbol addresses (0 = absent).  ``multi``: the op has several outputs (or a
    dynamic one), so the functions return one entry per output (``std::vector<std::vector<int64_t>>`` and
    ``std::vector<TypeId>``) instead of one (``std::vector<int64_t>`` and ``TypeId``).  Attributes come encoded by
    :func:`npusim.aot.attrs.encode_attrs`; every call gets a fresh AotExtra holding them, as MindSpore's infer does.
    """
    cdef readonly str op_name
    cdef readonly str file_path
    cdef readonly str func_name
    cdef uintptr_t shape_fn
    cdef uintptr_t type_fn
    cdef readonly bint cxx11_abi
    cdef readonly bint multi

    def __init__(self, str op_name, str file_path, str func_name, uintptr_t shape_fn, uintptr_t type_fn,
                 bint cxx11_abi, bint multi):
        self.op_name, self.file_path, self.func_name = op_name, file_path, func_name
        self.shape_fn, self.type_fn = shape_fn, type_fn
        self.cxx11_abi, self.multi = cxx11_abi, multi

    @property
    def has_infer_shape(self):
        return self.shape_fn != 0

    @property
    def has_infer_type(self):
        return self.type_fn != 0

    def infer_shapes(self, list in_shapes, list in_dtypes, tuple encoded_attrs):
        """The output shapes (a list of tuples) for inputs of these shapes and dtype names."""
        cdef AttrStore store
        cdef TensorTable table
        cdef vector[int64_t] one
        cdef vector[vector[int64_t]] many
        cdef CallResult result
        if self.shape_fn == 0:
            raise ValueError(f"{self.func_name}InferShape is absent")
        fill_attr_store(&store, encoded_attrs)
        for shape, dtype_name in zip(in_shapes, in_dtypes):
            add_tensor(&table, tuple(shape), ms_dtype_name(dtype_name, self.op_name))
        if self.multi:
            result = CallInferShapes(<InferShapesFn>self.shape_fn, self.cxx11_abi, store, &table, &many)
            check_result(result, self.op_name, self.func_name + "InferShape", self.file_path)
            return [tuple(shape) for shape in many]
        result = CallInferShape(<InferShapeFn>self.shape_fn, self.cxx11_abi, store, &table, &one)
        check_result(result, self.op_name, self.func_name + "InferShape", self.file_path)
        return [tuple(one)]

    def infer_types(self, list type_ids, tuple encoded_attrs):
        """The output TypeId values (a list of ints) for inputs of these MindSpore TypeId values."""
        cdef AttrStore store
        cdef vector[int] ids
        cdef vector[int] out
        cdef InferTypeFn single = NULL
        cdef InferTypesFn multi = NULL
        if self.type_fn == 0:
            raise ValueError(f"{self.func_name}InferType is absent")
        if self.multi:
            multi = <InferTypesFn>self.type_fn
        else:
            single = <InferTypeFn>self.type_fn
        fill_attr_store(&store, encoded_attrs)
        for type_id in type_ids:
            ids.push_back(type_id)
        cdef CallResult result = CallInferTypes(single, multi, self.cxx11_abi, store, ids, &out)
        check_result(result, self.op_name, self.func_name + "InferType", self.file_path)
        return [int(type_id) for type_id in out]
