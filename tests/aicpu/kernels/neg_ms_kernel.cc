// A MindSpore-style kernel through the include paths MindSpore's tree uses (inc/, context/inc/, context/common/,
// cpu_kernel/inc/), with CUST_KERNEL_* macros, RETURN_IF_FAILURE and ParallelFor sized from GetCPUNum.
#include <algorithm>

#include "context/common/status.h"
#include "context/inc/cpu_kernel_utils.h"
#include "cpu_kernel/inc/cpu_context.h"
#include "inc/kernel_log.h"
#include "inc/ms_cpu_kernel.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {
const char *kNegMs = "NegMs";
}  // namespace

class NegMsCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    RETURN_IF_FAILURE(NormalCheck(const_cast<CpuKernelContext &>(ctx), 1, 1));
    Tensor *x = ctx.Input(kFirstInputIndex);
    CUST_KERNEL_CHECK_NULLPTR(ctx, x->GetData(), KERNEL_STATUS_PARAM_INVALID, "Get input data failed.")
    CUST_KERNEL_CHECK_FALSE(ctx, x->GetDataType() == DT_FLOAT, KERNEL_STATUS_PARAM_INVALID,
                            "NegMs takes float32, got %s.", DTypeStr(x->GetDataType()).c_str())
    const int64_t total = x->NumElements();
    if (total == 0) return KERNEL_STATUS_OK;
    auto cores = CpuKernelUtils::GetCPUNum(ctx);
    const int64_t per_unit = total / std::min(std::max(1L, static_cast<long>(cores) - 2L), total);
    const auto *in = static_cast<const float *>(x->GetData());
    auto *out = static_cast<float *>(ctx.Output(kFirstOutputIndex)->GetData());
    CUST_KERNEL_HANDLE_ERROR(ctx, CpuKernelUtils::ParallelFor(ctx, total, per_unit, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = -in[i];
    }), "NegMs ParallelFor failed.");
    CUST_KERNEL_LOG_INFO(ctx, "negated %lld values", static_cast<long long>(total));
    return KERNEL_STATUS_OK;
  }
};

REGISTER_MS_CPU_KERNEL(kNegMs, NegMsCpuKernel);
}  // namespace aicpu
