// npusim AICPU compatibility header: CpuKernelUtils (object creation, ParallelFor on the AI CPU's threads).
#ifndef NPUSIM_AICPU_CPU_KERNEL_UTILS_H
#define NPUSIM_AICPU_CPU_KERNEL_UTILS_H

#include <functional>
#include <memory>

#include "cpu_attr_value.h"
#include "cpu_context.h"
#include "cpu_node_def.h"
#include "cpu_tensor.h"
#include "cpu_tensor_shape.h"

namespace aicpu {
class AICPU_VISIBILITY CpuKernelUtils {
 public:
  static std::shared_ptr<Tensor> CreateTensor();
  static std::shared_ptr<TensorShape> CreateTensorShape();
  static std::shared_ptr<AttrValue> CreateAttrValue();
  // An empty NodeDef (see cpu_node_def.h): what CpuKernelContext::Init(NodeDef *) builds a context from.
  static std::shared_ptr<NodeDef> CreateNodeDef();

  // Covers [0, total) by calling work(begin, end) on disjoint ranges, in parallel on the simulated AI CPU's
  // thread pool; ranges hold at least `per_unit_size` units (<= 0: split evenly over the threads).  Returns
  // KERNEL_STATUS_OK, or KERNEL_STATUS_PARAM_INVALID for a negative total.  An exception thrown by `work`
  // is rethrown in the caller after every range has finished.
  static uint32_t ParallelFor(const CpuKernelContext &ctx, int64_t total, int64_t per_unit_size,
                              const std::function<void(int64_t, int64_t)> &work);
  // Threads of the simulated AI CPU (NPUSIM_AICPU_THREADS, else the host's hardware threads).
  static uint32_t GetCPUNum(const CpuKernelContext &ctx);
};
}  // namespace aicpu
#endif  // NPUSIM_AICPU_CPU_KERNEL_UTILS_H
