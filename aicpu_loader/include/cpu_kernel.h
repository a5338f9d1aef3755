// npusim AICPU compatibility header: the CpuKernel base class and REGISTER_CPU_KERNEL.
#ifndef NPUSIM_AICPU_CPU_KERNEL_H
#define NPUSIM_AICPU_CPU_KERNEL_H

#include <functional>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

#include "cpu_context.h"

namespace aicpu {
class AICPU_VISIBILITY CpuKernel {
 public:
  virtual uint32_t Compute(CpuKernelContext &ctx) = 0;
  virtual ~CpuKernel() {}
};

using KERNEL_CREATOR_FUN = std::function<std::shared_ptr<CpuKernel>(void)>;

// Adds `type` to the registry of the library being loaded; returns true when registered.
AICPU_VISIBILITY bool RegistCpuKernel(const std::string &type, const KERNEL_CREATOR_FUN &fun);

// new(std::nothrow) into a shared_ptr: nullptr when allocation fails.
template <typename T, typename... Args>
static inline std::shared_ptr<T> MakeShared(Args &&...args) {
  using Plain = typename std::remove_const<T>::type;
  return std::shared_ptr<T>(new (std::nothrow) Plain(std::forward<Args>(args)...));
}

}  // namespace aicpu

// `type` is an identifier naming a string constant (e.g. `const char *kAdd = "Add";`); it is pasted into the names
// of a creator function and of a global whose initialiser registers the kernel when the library loads.
#define REGISTER_CPU_KERNEL(type, clazz)                                               \
  std::shared_ptr<::aicpu::CpuKernel> Creator_##type##_Kernel() {                      \
    return ::aicpu::MakeShared<clazz>();                                               \
  }                                                                                    \
  bool g_##type##_Kernel_Creator __attribute__((unused)) =                             \
      ::aicpu::RegistCpuKernel(type, Creator_##type##_Kernel)

#endif  // NPUSIM_AICPU_CPU_KERNEL_H
