// npusim AICPU compatibility header (MindSpore path common/kernel_errcode.h): the kAicpuKernelState* codes that
// AICPU_CHK_STATUS_RET compares against.  Same values as the KERNEL_STATUS_* codes of status.h.
#ifndef NPUSIM_AICPU_COMMON_KERNEL_ERRCODE_H
#define NPUSIM_AICPU_COMMON_KERNEL_ERRCODE_H

#include <cstdint>

namespace aicpu {
constexpr uint32_t kAicpuKernelStateSucess = 0;
constexpr uint32_t kAicpuKernelStateInvalid = 1;
constexpr uint32_t kAicpuKernelStateFailed = 2;
constexpr uint32_t kAicpuKernelStateExecuteTimeout = 3;
constexpr uint32_t kAicpuKernelStateInternalError = 4;
constexpr uint32_t kAicpuKernelStateEndOfSequence = 201;
}  // namespace aicpu
#endif  // NPUSIM_AICPU_COMMON_KERNEL_ERRCODE_H
