// A kernel that never returns (a hung AICPU kernel: a loop whose exit condition never comes true), spinning the
// CPU as such kernels do.
#include "cpu_kernel.h"
#include "cpu_kernel_register.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {
const char *const kSpinForever = "SpinForever";
}  // namespace

class SpinForeverCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 1, 1), "[%s] check params failed.", kSpinForever)
    volatile const float *x = static_cast<const float *>(ctx.Input(0)->GetData());
    volatile uint64_t spins = 0;
    while (x[0] == x[0]) ++spins;  // x[0] is never NaN here
    return KERNEL_STATUS_OK;
  }
};

REGISTER_CPU_KERNEL(kSpinForever, SpinForeverCpuKernel);
}  // namespace aicpu
