// npusim AICPU compatibility header (MindSpore path inc/ms_cpu_kernel.h): REGISTER_MS_CPU_KERNEL registers a
// kernel under `type` and under "Cust" + `type`.
#ifndef NPUSIM_AICPU_INC_MS_CPU_KERNEL_H
#define NPUSIM_AICPU_INC_MS_CPU_KERNEL_H

#include <string>

#include "../cpu_kernel.h"
#include "../status.h"

// MindSpore kernels also use the status names outside namespace aicpu.
using aicpu::KernelStatus;
using aicpu::KERNEL_STATUS_OK;
using aicpu::KERNEL_STATUS_PARAM_INVALID;
using aicpu::KERNEL_STATUS_INNER_ERROR;
using aicpu::KERNEL_STATUS_TIMEOUT;
using aicpu::KERNEL_STATUS_PROTOBUF_ERROR;
using aicpu::KERNEL_STATUS_SHARDER_ERROR;
using aicpu::KERNEL_STATUS_END_OF_SEQUENCE;

#define REGISTER_CUST_KERNEL(type, clazz)                                                      \
  std::shared_ptr<::aicpu::CpuKernel> Creator_Cust##type##_Kernel() {                          \
    return ::aicpu::MakeShared<clazz>();                                                       \
  }                                                                                            \
  bool g_Cust##type##_Kernel_Creator __attribute__((unused)) =                                 \
      ::aicpu::RegistCpuKernel(std::string("Cust") + std::string(type), Creator_Cust##type##_Kernel)

#define REGISTER_MS_CPU_KERNEL(type, clazz) \
  REGISTER_CPU_KERNEL(type, clazz);         \
  REGISTER_CUST_KERNEL(type, clazz);

#endif  // NPUSIM_AICPU_INC_MS_CPU_KERNEL_H
