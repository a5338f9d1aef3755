// Cast: converts the input to the output tensor's data type (numpy's astype for in-range values; see
// type_dispatch.h ConvertValue for bool, float16 and out-of-range float -> integer).
#include "inc/kernel_log.h"
#include "inc/ms_cpu_kernel.h"
#include "type_dispatch.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {
const char *kCast = "Cast";
}  // namespace

class CastCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 1, 1), "Cast check failed.");
    Tensor *x = ctx.Input(0);
    Tensor *y = ctx.Output(0);
    const int64_t count = x->NumElements();
    const int out_size = GetSizeByDataType(y->GetDataType());
    CUST_KERNEL_CHECK_FALSE(ctx, out_size > 0 && y->GetDataSize() >= uint64_t(count) * uint64_t(out_size),
                            KERNEL_STATUS_PARAM_INVALID, "Cast output buffer is smaller than the input.");
    bool supported = false;
    npusim_ops::VisitRealType(x->GetDataType(), [&](auto from_tag) {
      using From = typename decltype(from_tag)::type;
      supported = npusim_ops::VisitRealType(y->GetDataType(), [&](auto to_tag) {
        using To = typename decltype(to_tag)::type;
        const From *in = static_cast<const From *>(x->GetData());
        To *out = static_cast<To *>(y->GetData());
        for (int64_t i = 0; i < count; ++i) out[i] = npusim_ops::ConvertValue<To>(in[i]);
      });
    });
    CUST_KERNEL_CHECK_FALSE(ctx, supported, KERNEL_STATUS_PARAM_INVALID, "Cast from %s to %s is not supported.",
                            DTypeStr(x->GetDataType()).c_str(), DTypeStr(y->GetDataType()).c_str());
    y->GetTensorShape()->SetDimSizes(x->GetTensorShape()->GetDimSizes());
    return KERNEL_STATUS_OK;
  }
};

REGISTER_MS_CPU_KERNEL(kCast, CastCpuKernel);
}  // namespace aicpu
