// npusim AICPU compatibility header: the status codes a kernel's Compute returns.
#ifndef NPUSIM_AICPU_STATUS_H
#define NPUSIM_AICPU_STATUS_H

#include <cstdint>

namespace aicpu {
enum KernelStatus : uint32_t {
  KERNEL_STATUS_OK = 0,
  KERNEL_STATUS_PARAM_INVALID = 1,
  KERNEL_STATUS_INNER_ERROR = 2,
  KERNEL_STATUS_TIMEOUT = 3,
  KERNEL_STATUS_PROTOBUF_ERROR = 4,
  KERNEL_STATUS_SHARDER_ERROR = 5,
  KERNEL_STATUS_END_OF_SEQUENCE = 201,
};
}  // namespace aicpu
#endif  // NPUSIM_AICPU_STATUS_H
