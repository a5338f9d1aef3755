// The C++ half of the aot call path: tensor tables in MindSpore's C-ABI form, guarded calls into user code,
// and the per-signature launch state (AotExtra object + workspaces) the Cython bridge keeps.
#ifndef NPUSIM_AOT_LAUNCH_STATE_H_
#define NPUSIM_AOT_LAUNCH_STATE_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "attr_store.h"
#include "fault_guard.h"

namespace npusim_aot {

// The C ABI of MindSpore aot kernels.  AotExtra* travels as void*: same register, same meaning.
using KernelFn = int (*)(int, void **, int *, int64_t **, const char **, void *, void *);
using InitFn = int (*)(int *, int64_t **, const char **, void *);
// Declared extern "C" by kernels, yet returning std::vector<int64_t> by value (its layout is ABI-independent).
using InferShapeFn = std::vector<int64_t> (*)(int *, int64_t **, void *);

// Shape arrays are padded with 1s to at least this many entries, so kernels reading a few entries past the real
// rank (MindSpore's own add.cc does) see harmless 1s, as on MindSpore where such reads happen to work.
constexpr int kMinShapeEntries = 8;
// MindSpore's memory pool hands out blocks in multiples of 512 bytes; workspaces are rounded the same way so
// kernels that under-declare their workspace keep working as they do there.
constexpr size_t kWorkspaceAlignBytes = 512;

enum CallOutcome { kCallOk = 0, kCallNonZero = 1, kCallThrew = 2, kCallSignal = 3 };

struct CallResult {
  int outcome = kCallOk;
  int code = 0;  // the kernel's return value, or the signal number for kCallSignal
  std::string message;  // what() of a C++ exception thrown by user code
};

// ndims / shapes / dtypes arrays of a call's tensors (inputs then outputs), as kernels receive them.
class TensorTable {
 public:
  void Add(const int64_t *dims, int ndim, const char *dtype) {
    ndims_.push_back(ndim);
    std::vector<int64_t> padded(static_cast<size_t>(ndim < kMinShapeEntries ? kMinShapeEntries : ndim), 1);
    for (int i = 0; i < ndim; ++i) padded[static_cast<size_t>(i)] = dims[i];
    shapes_.push_back(std::move(padded));
    dtypes_.emplace_back(dtype);
    Relink();
  }
  int size() const { return static_cast<int>(ndims_.size()); }
  int *ndims() { return ndims_.empty() ? &empty_ndim_ : ndims_.data(); }
  int64_t **shapes() { return shape_ptrs_.empty() ? &empty_shape_ : shape_ptrs_.data(); }
  const char **dtypes() { return dtype_ptrs_.empty() ? &empty_dtype_ : dtype_ptrs_.data(); }

 private:
  void Relink() {
    shape_ptrs_.clear();
    dtype_ptrs_.clear();
    for (auto &shape : shapes_) shape_ptrs_.push_back(shape.data());
    for (auto &dtype : dtypes_) dtype_ptrs_.push_back(dtype.c_str());
  }

  std::vector<int> ndims_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<int64_t *> shape_ptrs_;
  std::vector<std::string> dtypes_;
  std::vector<const char *> dtype_ptrs_;
  int empty_ndim_ = 0;
  int64_t *empty_shape_ = nullptr;
  const char *empty_dtype_ = nullptr;
};

// Owns one AotExtra of the kernel library's string ABI.
class ExtraHandle {
 public:
  ExtraHandle(bool cxx11_abi, const AttrStore &attrs)
      : ops_(cxx11_abi ? &kCxx11ExtraOps : &kCowExtraOps), extra_(ops_->create(attrs)) {}
  ~ExtraHandle() { ops_->destroy(extra_); }
  ExtraHandle(const ExtraHandle &) = delete;
  ExtraHandle &operator=(const ExtraHandle &) = delete;

  void *get() const { return extra_; }
  const std::vector<size_t> &workspace_sizes() const { return *ops_->workspace_sizes(extra_); }

 private:
  const ExtraOps *ops_;
  void *extra_;
};

// Runs `call` (returning the kernel's int status), turning C++ exceptions into a CallResult
// and crashes (signals raised by the calling thread, see fault_guard.h) into kCallSignal.
template <typename Call>
CallResult GuardedCall(Call call) {
  CallResult result;
  InstallFaultHandlers();
  GuardSlot &slot = CurrentGuard();
  EnsureAltStack(slot);
  if (sigsetjmp(slot.env, 1) != 0) {
    result.outcome = kCallSignal;
    result.code = slot.signo;
    result.message = strsignal(slot.signo);
    return result;
  }
  slot.active = 1;
  try {
    result.code = call();
    slot.active = 0;
    result.outcome = result.code == 0 ? kCallOk : kCallNonZero;
  } catch (const std::exception &error) {
    slot.active = 0;
    result.outcome = kCallThrew;
    result.message = error.what();
  } catch (...) {
    slot.active = 0;
    result.outcome = kCallThrew;
    result.message = "a C++ exception that is not a std::exception";
  }
  return result;
}

// Calls `<func>InferShape` with a fresh AotExtra (as MindSpore does), storing the shape in `out_shape`.
inline CallResult CallInferShape(InferShapeFn fn, bool cxx11_abi, const AttrStore &attrs, TensorTable *inputs,
                                 std::vector<int64_t> *out_shape) {
  ExtraHandle extra(cxx11_abi, attrs);
  return GuardedCall([&]() {
    *out_shape = fn(inputs->ndims(), inputs->shapes(), extra.get());
    return 0;
  });
}

// C++ infer of Custom aot ops on Ascend (MindSpore 2.3+): the multi-output `<func>InferShape` returns one shape
// per output; `<func>InferType(std::vector<TypeId>, AotExtra *)` returns a TypeId (or std::vector<TypeId>).
// MindSpore's TypeId is `enum TypeId : int`, so these pass and return exactly as the int forms below do.
using InferShapesFn = std::vector<std::vector<int64_t>> (*)(int *, int64_t **, void *);
using InferTypeFn = int (*)(std::vector<int>, void *);
using InferTypesFn = std::vector<int> (*)(std::vector<int>, void *);

inline CallResult CallInferShapes(InferShapesFn fn, bool cxx11_abi, const AttrStore &attrs, TensorTable *inputs,
                                  std::vector<std::vector<int64_t>> *out_shapes) {
  ExtraHandle extra(cxx11_abi, attrs);
  return GuardedCall([&]() {
    *out_shapes = fn(inputs->ndims(), inputs->shapes(), extra.get());
    return 0;
  });
}

// Calls the single-output form when `multi` is null, else the multi-output form; `out_types` gets the result.
inline CallResult CallInferTypes(InferTypeFn single, InferTypesFn multi, bool cxx11_abi, const AttrStore &attrs,
                                 const std::vector<int> &type_ids, std::vector<int> *out_types) {
  ExtraHandle extra(cxx11_abi, attrs);
  return GuardedCall([&]() {
    if (multi != nullptr) {
      *out_types = multi(type_ids, extra.get());
    } else {
      out_types->assign(1, single(type_ids, extra.get()));
    }
    return 0;
  });
}

// Calls a CUDA runtime's `int cudaGetDeviceCount(int *count)` (found in a kernel library's dependencies).
using DeviceCountFn = int (*)(int *);
inline CallResult CallDeviceCount(DeviceCountFn fn, int *count) {
  *count = 0;
  return GuardedCall([&]() { return fn(count); });
}

// Everything fixed for one (op, shapes, dtypes, attributes) signature: the tensor table, the AotExtra the Init
// function filled, and the workspace buffers it asked for.
class LaunchState {
 public:
  LaunchState(bool cxx11_abi, const AttrStore &attrs) : extra_(cxx11_abi, attrs) {}
  ~LaunchState() {
    for (void *buffer : workspaces_) std::free(buffer);
  }
  LaunchState(const LaunchState &) = delete;
  LaunchState &operator=(const LaunchState &) = delete;

  TensorTable *tensors() { return &tensors_; }

  CallResult RunInit(InitFn fn) {
    return GuardedCall([&]() { return fn(tensors_.ndims(), tensors_.shapes(), tensors_.dtypes(), extra_.get()); });
  }

  // Allocates the workspaces requested by Init (zero-filled, each rounded up to whole 512-byte blocks, at least
  // one); false when memory is exhausted.
  bool AllocateWorkspaces() {
    for (size_t size_bytes : extra_.workspace_sizes()) {
      size_t blocks = (size_bytes + kWorkspaceAlignBytes - 1) / kWorkspaceAlignBytes;
      size_t rounded = (blocks == 0 ? 1 : blocks) * kWorkspaceAlignBytes;
      void *buffer = std::aligned_alloc(kWorkspaceAlignBytes, rounded);
      if (buffer == nullptr) return false;
      std::memset(buffer, 0, rounded);
      workspaces_.push_back(buffer);
    }
    return true;
  }

  size_t num_workspaces() const { return workspaces_.size(); }

  // `io` holds the data pointers of the inputs then the outputs (tensors()->size() entries).  Safe to call
  // without the GIL and from several threads at once: the parameter array is local to the call.  `label` names
  // the call in the note left when a thread the kernel started crashes (fault_guard.h); it must outlive the call.
  CallResult Launch(KernelFn fn, void *const *io, const char *label) {
    RunningCall running(label);
    const int num_io = tensors_.size();
    const int nparam = num_io + static_cast<int>(workspaces_.size());
    if (nparam == 0) {  // MindSpore passes null pointers throughout when there is nothing to pass
      return GuardedCall([&]() { return fn(0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr); });
    }
    constexpr int kStackParams = 32;
    void *stack_params[kStackParams];
    std::vector<void *> heap_params;
    void **params = stack_params;
    if (nparam > kStackParams) {
      heap_params.resize(static_cast<size_t>(nparam));
      params = heap_params.data();
    }
    for (int i = 0; i < num_io; ++i) params[i] = io[i];
    for (size_t i = 0; i < workspaces_.size(); ++i) params[num_io + static_cast<int>(i)] = workspaces_[i];
    return GuardedCall([&]() {
      return fn(nparam, params, tensors_.ndims(), tensors_.shapes(), tensors_.dtypes(), nullptr, extra_.get());
    });
  }

 private:
  ExtraHandle extra_;
  TensorTable tensors_;
  std::vector<void *> workspaces_;
};

}  // namespace npusim_aot

#endif  // NPUSIM_AOT_LAUNCH_STATE_H_
