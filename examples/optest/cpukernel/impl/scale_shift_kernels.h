// A kernel declared the way MindSpore's ms_kernel / canndev kernels are: class in its own header, which includes
// only "cpu_ops_kernel.h"; Compute is protected and defined in the .cc.
#ifndef NPUSIM_TEST_SCALE_SHIFT_KERNEL_H_
#define NPUSIM_TEST_SCALE_SHIFT_KERNEL_H_

#include "cpu_ops_kernel.h"

namespace aicpu {
class ScaleShiftCpuKernel : public CpuKernel {
 public:
  ScaleShiftCpuKernel() = default;
  ~ScaleShiftCpuKernel() override = default;

 protected:
  uint32_t Compute(CpuKernelContext &ctx) override;

 private:
  static uint32_t CheckParams(CpuKernelContext &ctx);
  template <typename T>
  static uint32_t DoCompute(CpuKernelContext &ctx);
};
}  // namespace aicpu
#endif  // NPUSIM_TEST_SCALE_SHIFT_KERNEL_H_
