// A kernel with the bugs that write past an output, canndev style: SplitAt splits x (float) at attribute "head"
// into output 0 (x[:head]) and output 1 (x[head:]).  Attribute "bug" picks the mistake:
//   0: none;  1: `<=` instead of `<` in output 0's loop (one element too many);
//   2: memcpy_s of output 0 sized by the input instead of the output (the rest of x lands past output 0);
//   3: `<=` in output 1's loop (one element past the last output).
#include <securec.h>

#include "cpu_kernel.h"
#include "cpu_kernel_register.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {
const char *const kSplitAt = "SplitAt";
}  // namespace

class SplitAtCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 1, 2, {"head", "bug"}), "[%s] check params failed.", kSplitAt)
    Tensor *x = ctx.Input(0);
    const int64_t total = x->NumElements();
    const int64_t head = ctx.GetAttr("head")->GetInt();
    const int64_t bug = ctx.GetAttr("bug")->GetInt();
    KERNEL_CHECK_FALSE(head >= 0 && head <= total, KERNEL_STATUS_PARAM_INVALID,
                       "[%s] head %lld is outside [0, %lld].", kSplitAt, static_cast<long long>(head),
                       static_cast<long long>(total))
    const auto *in = static_cast<const float *>(x->GetData());
    auto *first = static_cast<float *>(ctx.Output(0)->GetData());
    auto *second = static_cast<float *>(ctx.Output(1)->GetData());
    if (bug == 2) {
      auto ret = memcpy_s(first, x->GetDataSize(), in, x->GetDataSize());
      KERNEL_CHECK_FALSE(ret == EOK, KERNEL_STATUS_INNER_ERROR, "[%s] memcpy_s failed.", kSplitAt)
    } else {
      const int64_t first_end = bug == 1 ? head + 1 : head;
      for (int64_t i = 0; i < first_end; ++i) first[i] = i < total ? in[i] : 0.0f;
    }
    const int64_t second_end = bug == 3 ? total - head + 1 : total - head;
    for (int64_t i = 0; i < second_end; ++i) second[i] = (head + i < total ? in[head + i] : 0.0f) * 2.0f;
    return KERNEL_STATUS_OK;
  }
};

REGISTER_CPU_KERNEL(kSplitAt, SplitAtCpuKernel);
}  // namespace aicpu
