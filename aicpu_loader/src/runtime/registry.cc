// The kernel registry of one kernel library: filled by REGISTER_CPU_KERNEL initialisers when the library loads.
#include <cstdio>

#include "cpu_kernel_register.h"
#include "rt_internal.h"
#include "status.h"

namespace aicpu {

CpuKernelRegister &CpuKernelRegister::Instance() {
  // Function-local so that registrations made by other translation units' static initialisers find it ready.
  static CpuKernelRegister *instance = new CpuKernelRegister();
  return *instance;
}

std::shared_ptr<CpuKernel> CpuKernelRegister::GetCpuKernel(const std::string &op_type) {
  auto it = creators_.find(op_type);
  if (it == creators_.end() || !it->second) return nullptr;
  return it->second();
}

std::vector<std::string> CpuKernelRegister::GetAllRegisteredOpTypes() const {
  std::vector<std::string> types;
  for (const auto &entry : creators_) types.push_back(entry.first);
  return types;
}

uint32_t CpuKernelRegister::RunCpuKernel(CpuKernelContext &ctx) {
  std::shared_ptr<CpuKernel> kernel = GetCpuKernel(ctx.GetOpType());
  if (kernel == nullptr) return KERNEL_STATUS_PARAM_INVALID;
  return kernel->Compute(ctx);
}

void CpuKernelRegister::Register(const std::string &type, const KERNEL_CREATOR_FUN &fun) {
  if (creators_.count(type) != 0) {
    std::fprintf(stderr, "[npusim aicpu] kernel type '%s' registered twice in one library; keeping the first\n",
                 type.c_str());
    return;
  }
  creators_[type] = fun;
}

CpuKernelRegister::Registerar::Registerar(const std::string &type, const KERNEL_CREATOR_FUN &fun) {
  CpuKernelRegister::Instance().Register(type, fun);
}

bool RegistCpuKernel(const std::string &type, const KERNEL_CREATOR_FUN &fun) {
  CpuKernelRegister::Registerar registrar(type, fun);
  return true;
}

}  // namespace aicpu
