// npusim AICPU compatibility header: the kernel registry of one kernel library.
#ifndef NPUSIM_AICPU_CPU_KERNEL_REGISTER_H
#define NPUSIM_AICPU_CPU_KERNEL_REGISTER_H

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cpu_context.h"
#include "cpu_kernel.h"

namespace aicpu {
class AICPU_VISIBILITY CpuKernelRegister {
 public:
  // The registry of the library this code is linked into (each kernel library has its own).
  static CpuKernelRegister &Instance();
  // A fresh kernel object for `op_type`, or nullptr when it is not registered.
  std::shared_ptr<CpuKernel> GetCpuKernel(const std::string &op_type);
  // Every registered op type, sorted.
  std::vector<std::string> GetAllRegisteredOpTypes() const;
  // Creates the kernel for ctx.GetOpType() and runs Compute on it.
  uint32_t RunCpuKernel(CpuKernelContext &ctx);

  class Registerar {
   public:
    Registerar(const std::string &type, const KERNEL_CREATOR_FUN &fun);
    ~Registerar() = default;
    Registerar(const Registerar &) = delete;
    Registerar &operator=(const Registerar &) = delete;
  };

 protected:
  void Register(const std::string &type, const KERNEL_CREATOR_FUN &fun);

 private:
  CpuKernelRegister() = default;
  std::map<std::string, KERNEL_CREATOR_FUN> creators_;
};
}  // namespace aicpu
#endif  // NPUSIM_AICPU_CPU_KERNEL_REGISTER_H
