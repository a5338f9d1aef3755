// Kernels of a library that ships its own utils/kernel_util.cc (next to them, in utils/) and calls its helpers:
// NormalCheck, CheckTensorTypeSame / CheckTensorShapeSame, DTypeStr / DType, FormatToSerialString,
// IsEmptyTensor and the shape predicates.
//
// DescribeTensor: output 0 (uint8, dynamic) = "DTYPE|FORMAT|data-or-empty|rank-kind|dtype-round-trips" of input 0.
// SameShapeSum:   y = x0 + x1 (float) after checking both inputs' type and shape with the library's helpers.
#include <securec.h>

#include <map>
#include <string>
#include <vector>

#include "cpu_kernel.h"
#include "cpu_kernel_register.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {
const char *const kDescribeTensor = "DescribeTensor";
const char *const kSameShapeSum = "SameShapeSum";

std::string RankKind(const std::vector<int64_t> &dims) {
  if (IsScalar(dims)) return "scalar";
  if (IsVector(dims)) return "vector";
  if (IsSquareMatrix(dims)) return "square";
  if (IsMatrix(dims)) return "matrix";
  return IsVectorOrHigher(dims) ? "higher" : "none";
}
}  // namespace

class DescribeTensorCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 1, 1), "[%s] check input and output failed.", kDescribeTensor)
    Tensor *x = ctx.Input(0);
    std::vector<int64_t> dims = x->GetTensorShape()->GetDimSizes();
    const bool round_trips = DType(DTypeStr(x->GetDataType())) == x->GetDataType();
    const Format format = x->GetTensorShape()->GetFormat();
    std::string text = ConcatString(DTypeStr(x->GetDataType()), "|", FormatToSerialString(format), "|",
                                    IsEmptyTensor(x) ? "empty" : "data", "|", RankKind(dims), "|",
                                    round_trips ? "round-trips" : "one-way");
    Tensor *y = ctx.Output(0);
    KERNEL_CHECK_FALSE(text.size() <= y->GetDataSize(), KERNEL_STATUS_PARAM_INVALID, "[%s] output too small.",
                       kDescribeTensor)
    auto ret = memcpy_s(y->GetData(), y->GetDataSize(), text.data(), text.size());
    KERNEL_CHECK_FALSE(ret == EOK, KERNEL_STATUS_INNER_ERROR, "[%s] memcpy_s failed.", kDescribeTensor)
    y->GetTensorShape()->SetDimSizes({static_cast<int64_t>(text.size())});
    return KERNEL_STATUS_OK;
  }
};

class SameShapeSumCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 2, 1), "[%s] check input and output failed.", kSameShapeSum)
    Tensor *x0 = ctx.Input(0);
    Tensor *x1 = ctx.Input(1);
    std::map<std::string, DataType> types = {{"x0", x0->GetDataType()}, {"x1", x1->GetDataType()}};
    KERNEL_HANDLE_ERROR(CheckTensorTypeSame(types, DT_FLOAT, kSameShapeSum), "[%s] type check failed.",
                        kSameShapeSum)
    std::map<std::string, TensorShapePtr> shapes = {{"x1", x1->GetTensorShape()}};
    KERNEL_HANDLE_ERROR(CheckTensorShapeSame(shapes, x0->GetTensorShape()->GetDimSizes(), kSameShapeSum),
                        "[%s] shape check failed.", kSameShapeSum)
    const auto *a = static_cast<const float *>(x0->GetData());
    const auto *b = static_cast<const float *>(x1->GetData());
    auto *y = static_cast<float *>(ctx.Output(0)->GetData());
    for (int64_t i = 0; i < x0->NumElements(); ++i) y[i] = a[i] + b[i];
    return KERNEL_STATUS_OK;
  }
};

REGISTER_CPU_KERNEL(kDescribeTensor, DescribeTensorCpuKernel);
REGISTER_CPU_KERNEL(kSameShapeSum, SameShapeSumCpuKernel);
}  // namespace aicpu
