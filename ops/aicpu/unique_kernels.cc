// Unique: the distinct values of a 1-D input in order of first appearance (output y, whose length the kernel
// sets: a dynamic output shape) and, for each input element, the index of its value in y (output idx, int32 or
// int64).  float16 values compare as floats; every NaN is its own value.
#include <unordered_map>
#include <vector>

#include "inc/kernel_log.h"
#include "inc/ms_cpu_kernel.h"
#include "type_dispatch.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {

const char *kUnique = "Unique";

template <typename T>
using KeyType = std::conditional_t<std::is_same<T, npusim_ops::Half>::value, float, T>;

template <typename T, typename Index>
int64_t UniqueInto(const T *x, int64_t count, T *y, Index *idx) {
  std::unordered_map<KeyType<T>, Index> seen;
  seen.reserve(static_cast<size_t>(count));
  Index next = 0;
  for (int64_t i = 0; i < count; ++i) {
    const KeyType<T> key = npusim_ops::ToCompute(x[i]);
    auto found = (key == key) ? seen.find(key) : seen.end();  // NaN never matches
    if (found == seen.end()) {
      if (key == key) seen.emplace(key, next);
      y[next] = x[i];
      idx[i] = next++;
    } else {
      idx[i] = found->second;
    }
  }
  return static_cast<int64_t>(next);
}

}  // namespace

class UniqueCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 1, 2), "Unique check failed.");
    Tensor *x = ctx.Input(0);
    Tensor *y = ctx.Output(0);
    Tensor *idx = ctx.Output(1);
    CUST_KERNEL_CHECK_FALSE(ctx, x->GetTensorShape()->GetDims() == 1, KERNEL_STATUS_PARAM_INVALID,
                            "Unique input must be 1-D, but got rank %d.", x->GetTensorShape()->GetDims());
    CUST_KERNEL_CHECK_FALSE(ctx, y->GetDataType() == x->GetDataType(), KERNEL_STATUS_PARAM_INVALID,
                            "Unique output y must have the input's data type.");
    const DataType idx_type = idx->GetDataType();
    CUST_KERNEL_CHECK_FALSE(ctx, idx_type == DT_INT32 || idx_type == DT_INT64, KERNEL_STATUS_PARAM_INVALID,
                            "Unique output idx must be int32 or int64, got %s.", DTypeStr(idx_type).c_str());
    const int64_t count = x->NumElements();
    const uint64_t element_size = static_cast<uint64_t>(GetSizeByDataType(x->GetDataType()));
    CUST_KERNEL_CHECK_FALSE(ctx, y->GetDataSize() >= count * element_size &&
                                     idx->GetDataSize() >= count * uint64_t(GetSizeByDataType(idx_type)),
                            KERNEL_STATUS_PARAM_INVALID, "Unique outputs are too small for %lld elements.",
                            static_cast<long long>(count));
    int64_t unique_count = 0;
    const bool supported = npusim_ops::VisitRealType(x->GetDataType(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T *xd = static_cast<const T *>(x->GetData());
      T *yd = static_cast<T *>(y->GetData());
      unique_count = idx_type == DT_INT32
                         ? UniqueInto(xd, count, yd, static_cast<int32_t *>(idx->GetData()))
                         : UniqueInto(xd, count, yd, static_cast<int64_t *>(idx->GetData()));
    });
    CUST_KERNEL_CHECK_FALSE(ctx, supported, KERNEL_STATUS_PARAM_INVALID, "Unique does not support data type %s.",
                            DTypeStr(x->GetDataType()).c_str());
    y->GetTensorShape()->SetDimSizes({unique_count});
    y->GetTensorShape()->SetUnknownRank(false);
    idx->GetTensorShape()->SetDimSizes({count});
    return KERNEL_STATUS_OK;
  }
};

REGISTER_MS_CPU_KERNEL(kUnique, UniqueCpuKernel);
}  // namespace aicpu
