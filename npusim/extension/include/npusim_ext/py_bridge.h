/**
 * The C++ side of the bridge to npusim's Python runtime (`npusim.extension.bridge`).
 *
 * Every Python callable an extension needs is looked up once per process (and per extension library) and kept in
 * a never-destroyed store: tensor wrapping, the autograd tape, the aclnn library, the error classes.  All of it is
 * used with the GIL held.  `OpScope` marks one C++ op call: the runtime its aclnn launches run on is resolved once
 * (at the first launch) for the whole call.
 */
#ifndef NPUSIM_EXT_PY_BRIDGE_H_
#define NPUSIM_EXT_PY_BRIDGE_H_

#include <string>
#include <utility>

#include "npusim_ext/pybind.h"
#include "npusim_ext/type_id.h"

namespace mindspore::npusim_ext {

/// An owned reference to a Python object that may be released without the GIL held (it takes the GIL then).
class PyRef {
 public:
  PyRef() = default;
  explicit PyRef(py::object obj) : ptr_(obj.release().ptr()) {}
  PyRef(const PyRef &other) : ptr_(other.ptr_) {
    if (ptr_ != nullptr) {
      PyGILState_STATE state = PyGILState_Ensure();
      Py_INCREF(ptr_);
      PyGILState_Release(state);
    }
  }
  PyRef(PyRef &&other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  PyRef &operator=(PyRef other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }
  ~PyRef() { reset(); }

  void reset() {
    if (ptr_ != nullptr && Py_IsInitialized()) {
      PyGILState_STATE state = PyGILState_Ensure();
      Py_DECREF(ptr_);
      PyGILState_Release(state);
    }
    ptr_ = nullptr;
  }
  bool empty() const { return ptr_ == nullptr; }
  PyObject *ptr() const { return ptr_; }
  /// A new reference as a py::object (GIL held).
  py::object object() const { return py::reinterpret_borrow<py::object>(ptr_); }

 private:
  PyObject *ptr_ = nullptr;
};

/// The kinds of npusim error a C++ op raises (classes of npusim.errors).
enum class ErrorKind { kRuntime, kGradient, kType, kValue, kUnsupported };

/// Hidden like pybind11's own types (members are py::object).
#define NPUSIM_EXT_HIDDEN __attribute__((visibility("hidden")))

/// The Python callables and classes of npusim the headers use, looked up once.
struct NPUSIM_EXT_HIDDEN Bridge {
  py::object module;           // npusim.extension.bridge
  py::object tensor_cls;       // npusim.frontend.tensor.Tensor
  py::object wrap;             // Tensor._wrap(array)
  py::object recording;        // autodiff.recording()
  py::object grad_flags;       // bridge.grad_flags(py_inputs) -> list[bool] | None
  py::object needs_grad;       // autodiff.needs_grad(tensor)
  py::object is_leaf;          // autodiff.is_leaf(tensor)
  py::object record_function;  // bridge.record_function(...)
  py::object suspended;        // autodiff.suspended (context manager class)
  py::object op_runtime;       // bridge.op_runtime(): the API edge's runtime lookup
  py::object host_op;          // bridge.host_op(name, *args): numpy work of ms::Tensor methods
  py::object errors[5];        // by ErrorKind
  py::object dtypes[kSparseTypeEnd + 1];  // numpy dtypes by TypeId (filled on first use)
};

inline Bridge &GetBridge() {
  PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<Bridge> store;
  return store
    .call_once_and_store_result([]() {
      Bridge b;
      b.module = py::module_::import("npusim.extension.bridge");
      b.tensor_cls = b.module.attr("Tensor");
      b.wrap = b.tensor_cls.attr("_wrap");
      b.recording = b.module.attr("recording");
      b.grad_flags = b.module.attr("grad_flags");
      b.needs_grad = b.module.attr("needs_grad");
      b.is_leaf = b.module.attr("is_leaf");
      b.record_function = b.module.attr("record_function");
      b.suspended = b.module.attr("suspended");
      b.op_runtime = b.module.attr("op_runtime");
      b.host_op = b.module.attr("host_op");
      const char *names[5] = {"ExtensionRuntimeError", "ExtensionGradientError", "ExtensionTypeError",
                              "ExtensionValueError", "ExtensionUnsupportedError"};
      for (int i = 0; i < 5; ++i) {
        b.errors[i] = b.module.attr(names[i]);
      }
      return b;
    })
    .get_stored();
}

/// Raise npusim's error of `kind` with `message` as a Python exception (propagates through pybind11).
[[noreturn]] inline void Raise(ErrorKind kind, const std::string &message) {
  py::gil_scoped_acquire gil;
  py::object cls = GetBridge().errors[static_cast<int>(kind)];
  PyErr_SetString(cls.ptr(), message.c_str());
  throw py::error_already_set();
}

/// The numpy dtype of `type` (an ExtensionTypeError for types npusim's tensors cannot hold, such as BFloat16).
inline const py::object &NumpyDtype(TypeId type) {
  const char *name = NumpyName(type);
  if (name == nullptr) {
    Raise(ErrorKind::kType, "npusim tensors cannot hold dtype " + TypeIdName(type) +
                              " (numpy has no such type); use Float16/Float32 instead");
  }
  auto &slot = GetBridge().dtypes[static_cast<int>(type)];
  if (!slot) {
    slot = py::dtype(name);
  }
  return slot;
}

/// One C++ op call (Function::Apply, PyboostRunner::Call): the runtime is resolved once for all its launches.
struct OpScopeState {
  int depth = 0;
  PyObject *runtime = nullptr;
};

inline OpScopeState &ScopeState() {
  thread_local OpScopeState state;
  return state;
}

class OpScope {
 public:
  OpScope() { ++ScopeState().depth; }
  ~OpScope() {
    auto &state = ScopeState();
    if (--state.depth == 0 && state.runtime != nullptr) {
      PyGILState_STATE gil = PyGILState_Ensure();
      Py_DECREF(state.runtime);
      PyGILState_Release(gil);
      state.runtime = nullptr;
    }
  }
  OpScope(const OpScope &) = delete;
  OpScope &operator=(const OpScope &) = delete;
};

/// The runtime of the current op call (resolved at its first launch), or None outside an op call (the Python
/// side resolves it per launch then).
inline py::object ScopeRuntime() {
  auto &state = ScopeState();
  if (state.depth == 0) {
    return py::none();
  }
  if (state.runtime == nullptr) {
    state.runtime = GetBridge().op_runtime().release().ptr();
  }
  return py::reinterpret_borrow<py::object>(state.runtime);
}

/// The demangled name of a C++ type (for op names in messages).
inline std::string Demangle(const char *name);
}  // namespace mindspore::npusim_ext

#include <cxxabi.h>
#include <cstdlib>

namespace mindspore::npusim_ext {
inline std::string Demangle(const char *name) {
  int status = -1;
  char *text = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string result = (status == 0 && text != nullptr) ? text : name;
  std::free(text);
  return result;
}
}  // namespace mindspore::npusim_ext

#endif  // NPUSIM_EXT_PY_BRIDGE_H_
