// custom_aot_extra.h -- the AotExtra object that npusim passes to ops.Custom(func_type="aot") kernels.
//
// Kernels include this header to read operator attributes in their `<func>Init` / `<func>InferShape`
// functions, to request workspace buffers and to keep per-kernel state:
//
//   extern "C" int MyOpInit(int *ndims, int64_t **shapes, const char **dtypes, AotExtra *extra) {
//     float scale = extra->Attr<float>("scale");
//     extra->SetWorkSpace({1024});          // bytes; the buffer arrives after the outputs in `params`
//     return 0;
//   }
//
// Binary layout (what a kernel built against any header of this shape relies on):
//   * one vtable pointer, then `workspace_` (std::vector<size_t>), then `kernel_data_` (pointer);
//   * virtual functions in this order: destructor, HasAttr, GetAttrBool, GetAttrInt, GetAttrFloat, GetAttrStr,
//     GetAttrIntVec, GetAttrFloatVec, GetAttrInt2DVec, GetAttrFloat2DVec.
// Kernels may be built with either libstdc++ string ABI (-D_GLIBCXX_USE_CXX11_ABI=0 or 1); npusim finds out which
// one a library uses and hands it a matching object (see the marker symbol at the end of this file).
#ifndef NPUSIM_AOT_CUSTOM_AOT_EXTRA_H_
#define NPUSIM_AOT_CUSTOM_AOT_EXTRA_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// npusim compiles this header twice into its own bridge (once per string ABI); it then sets
// NPUSIM_AOT_EXTRA_NAMESPACE so the two copies get distinct names.  Kernels never set it.
#ifdef NPUSIM_AOT_EXTRA_NAMESPACE
namespace NPUSIM_AOT_EXTRA_NAMESPACE {
#endif

// Base class for whatever state a kernel keeps between its Init and its launches (SetKernelData).
class AotKernelData {
 public:
  AotKernelData() = default;
  virtual ~AotKernelData() = default;
};

class AotExtra {
 public:
  AotExtra() = default;
  virtual ~AotExtra() = default;

  // True when the operator has an attribute called `name`.
  virtual bool HasAttr(std::string name) = 0;

  // The attribute `name` as T.  Supported T: bool, int64_t, float, std::string, std::vector<int64_t>,
  // std::vector<float>, std::vector<std::vector<int64_t>>, std::vector<std::vector<float>>.
  // Any other T yields a value-initialised T.  A missing attribute, or one of another kind, throws.
  template <typename T>
  inline T Attr(std::string name) {
    return T();
  }

  // Sizes in bytes of the scratch buffers the kernel wants; they are passed after the outputs.
  void SetWorkSpace(const std::vector<size_t> &workspace_sizes_bytes) { workspace_ = workspace_sizes_bytes; }
  const std::vector<size_t> &WorkSpace() const { return workspace_; }

  // Per-kernel state: owned by this object from now on and deleted with DestructKernelData().
  void SetKernelData(AotKernelData *kernel_data) { kernel_data_ = kernel_data; }
  AotKernelData *KernelData() const { return kernel_data_; }
  void DestructKernelData() {
    delete kernel_data_;
    kernel_data_ = nullptr;
  }

 private:
  virtual bool GetAttrBool(std::string name) = 0;
  virtual int64_t GetAttrInt(std::string name) = 0;
  virtual float GetAttrFloat(std::string name) = 0;
  virtual std::string GetAttrStr(std::string name) = 0;
  virtual std::vector<int64_t> GetAttrIntVec(std::string name) = 0;
  virtual std::vector<float> GetAttrFloatVec(std::string name) = 0;
  virtual std::vector<std::vector<int64_t>> GetAttrInt2DVec(std::string name) = 0;
  virtual std::vector<std::vector<float>> GetAttrFloat2DVec(std::string name) = 0;

  std::vector<size_t> workspace_;
  AotKernelData *kernel_data_{nullptr};
};

template <>
inline bool AotExtra::Attr<bool>(std::string name) {
  return GetAttrBool(name);
}

template <>
inline int64_t AotExtra::Attr<int64_t>(std::string name) {
  return GetAttrInt(name);
}

template <>
inline float AotExtra::Attr<float>(std::string name) {
  return GetAttrFloat(name);
}

template <>
inline std::string AotExtra::Attr<std::string>(std::string name) {
  return GetAttrStr(name);
}

template <>
inline std::vector<int64_t> AotExtra::Attr<std::vector<int64_t>>(std::string name) {
  return GetAttrIntVec(name);
}

template <>
inline std::vector<float> AotExtra::Attr<std::vector<float>>(std::string name) {
  return GetAttrFloatVec(name);
}

template <>
inline std::vector<std::vector<int64_t>> AotExtra::Attr<std::vector<std::vector<int64_t>>>(std::string name) {
  return GetAttrInt2DVec(name);
}

template <>
inline std::vector<std::vector<float>> AotExtra::Attr<std::vector<std::vector<float>>>(std::string name) {
  return GetAttrFloat2DVec(name);
}

#ifdef NPUSIM_AOT_EXTRA_NAMESPACE
}  // namespace NPUSIM_AOT_EXTRA_NAMESPACE
#else
// Marker telling npusim which std::string ABI this library was built with (1: C++11 ABI, 0: the old
// copy-on-write ABI).  Weak, so every translation unit of a kernel library may define it.  Libraries built
// against another copy of this header lack the marker; npusim then reads their imported symbols instead.
#if defined(_GLIBCXX_USE_CXX11_ABI)
extern "C" __attribute__((weak, visibility("default"))) const int npusim_aot_cxx11_abi = _GLIBCXX_USE_CXX11_ABI;
#endif
#endif

#endif  // NPUSIM_AOT_CUSTOM_AOT_EXTRA_H_
