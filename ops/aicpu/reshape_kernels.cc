// Reshape: copies x into the output and gives it a new shape.  The shape comes from a second int32/int64
// input, else a listInt attribute "shape", else the output's declared shape (the input's shape when that is
// dynamic).  One -1 entry is inferred; the element count must not change.
#include <cstring>
#include <vector>

#include "inc/kernel_log.h"
#include "inc/ms_cpu_kernel.h"
#include "securec.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {

const char *kReshape = "Reshape";

bool ShapeFromInput(const Tensor *shape_tensor, std::vector<int64_t> &shape) {
  const int64_t count = shape_tensor->NumElements();
  if (shape_tensor->GetDataType() == DT_INT32) {
    const int32_t *data = static_cast<const int32_t *>(shape_tensor->GetData());
    shape.assign(data, data + count);
    return true;
  }
  if (shape_tensor->GetDataType() == DT_INT64) {
    const int64_t *data = static_cast<const int64_t *>(shape_tensor->GetData());
    shape.assign(data, data + count);
    return true;
  }
  return false;
}

// Replaces one -1 by what the element count implies; false when the shape cannot hold `count` elements.
bool ResolveShape(std::vector<int64_t> &shape, int64_t count) {
  int64_t known = 1;
  int unknown_at = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && unknown_at < 0) {
      unknown_at = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return false;
    } else {
      known *= shape[i];
    }
  }
  if (unknown_at >= 0) {
    if (known == 0 || count % known != 0) return false;
    shape[static_cast<size_t>(unknown_at)] = count / known;
    return true;
  }
  return known == count;
}

}  // namespace

class ReshapeCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    CUST_KERNEL_CHECK_FALSE(ctx, ctx.GetInputsSize() == 1 || ctx.GetInputsSize() == 2, KERNEL_STATUS_PARAM_INVALID,
                            "Reshape takes 1 or 2 inputs, got %u.", ctx.GetInputsSize());
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, ctx.GetInputsSize(), 1), "Reshape check failed.");
    Tensor *x = ctx.Input(0);
    Tensor *y = ctx.Output(0);
    CUST_KERNEL_CHECK_FALSE(ctx, y->GetDataType() == x->GetDataType(), KERNEL_STATUS_PARAM_INVALID,
                            "Reshape output must have the input's data type.");
    std::vector<int64_t> shape = y->GetTensorShape()->GetDimSizes();
    if (ctx.GetInputsSize() == 2) {
      CUST_KERNEL_CHECK_FALSE(ctx, ShapeFromInput(ctx.Input(1), shape), KERNEL_STATUS_PARAM_INVALID,
                              "Reshape shape input must be int32 or int64.");
    } else if (ctx.GetAttr("shape") != nullptr) {
      shape = ctx.GetAttr("shape")->GetListInt();
    } else if (y->GetTensorShape()->GetUnknownRank() || y->NumElements() < 0) {
      shape = x->GetTensorShape()->GetDimSizes();
    }
    const int64_t count = x->NumElements();
    CUST_KERNEL_CHECK_FALSE(ctx, ResolveShape(shape, count), KERNEL_STATUS_PARAM_INVALID,
                            "Reshape cannot give %lld elements the shape [%s].", static_cast<long long>(count),
                            VectorToString(shape).c_str());
    const uint64_t bytes = static_cast<uint64_t>(count) * GetSizeByDataType(x->GetDataType());
    CUST_KERNEL_CHECK_FALSE(ctx, memcpy_s(y->GetData(), y->GetDataSize(), x->GetData(), bytes) == EOK,
                            KERNEL_STATUS_PARAM_INVALID, "Reshape copy of %llu bytes failed.",
                            static_cast<unsigned long long>(bytes));
    y->GetTensorShape()->SetDimSizes(shape);
    y->GetTensorShape()->SetUnknownRank(false);
    return KERNEL_STATUS_OK;
  }
};

REGISTER_MS_CPU_KERNEL(kReshape, ReshapeCpuKernel);
}  // namespace aicpu
