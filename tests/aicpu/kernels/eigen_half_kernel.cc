// A kernel using Eigen::half (as most real AICPU kernels do): y = x * 2 + 1 in half precision.
#include <Eigen/Core>

#include "cpu_kernel.h"
#include "status.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {
const char *kHalfAffine = "HalfAffine";
}

class HalfAffineKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 1, 1), "HalfAffine check failed");
    KERNEL_CHECK_FALSE(ctx.Input(0)->GetDataType() == DT_FLOAT16, KERNEL_STATUS_PARAM_INVALID, "needs float16");
    const auto *x = static_cast<const Eigen::half *>(ctx.Input(0)->GetData());
    auto *y = static_cast<Eigen::half *>(ctx.Output(0)->GetData());
    const Eigen::half two(2.0f), one(1.0f);
    for (int64_t i = 0; i < ctx.Input(0)->NumElements(); ++i) y[i] = x[i] * two + one;
    return KERNEL_STATUS_OK;
  }
};

REGISTER_CPU_KERNEL(kHalfAffine, HalfAffineKernel);
}  // namespace aicpu
