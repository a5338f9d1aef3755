// y = x * scale + shift[i % len(shift)] along the last axis, for float16 (Eigen::half), float and double, written
// in the style of real AICPU kernels: Eigen TensorMap, securec memcpy_s, KERNEL_* / AICPU_* macros from
// "kernel_log.h", NormalCheck and kResvCpuNum from utils/kernel_util.h, ParallelFor sized by GetCPUNum.
#include "scale_shift_kernels.h"

#include <securec.h>

#include "Eigen/Core"
#include "unsupported/Eigen/CXX11/Tensor"
#include "cpu_kernel_utils.h"
#include "cpu_types.h"
#include "kernel_log.h"
#include "status.h"
#include "utils/kernel_util.h"

namespace {
const uint32_t kInputNum = 1;
const uint32_t kOutputNum = 1;
const char *kScaleShift = "ScaleShift";
const int64_t kParallelDataNum = 1024;
}  // namespace

namespace aicpu {
uint32_t ScaleShiftCpuKernel::CheckParams(CpuKernelContext &ctx) {
  KERNEL_HANDLE_ERROR(NormalCheck(ctx, kInputNum, kOutputNum, {"scale"}), "[%s] check params failed.", kScaleShift);
  KERNEL_CHECK_FALSE(ctx.Input(0)->GetDataType() == ctx.Output(0)->GetDataType(), KERNEL_STATUS_PARAM_INVALID,
                     "[%s] output data type [%s] differs from input [%s].", kScaleShift,
                     DTypeStr(ctx.Output(0)->GetDataType()).c_str(), DTypeStr(ctx.Input(0)->GetDataType()).c_str())
  return KERNEL_STATUS_OK;
}

template <typename T>
uint32_t ScaleShiftCpuKernel::DoCompute(CpuKernelContext &ctx) {
  auto x = reinterpret_cast<T *>(ctx.Input(0)->GetData());
  auto y = reinterpret_cast<T *>(ctx.Output(0)->GetData());
  AttrValue *scale_attr = ctx.GetAttr("scale");
  KERNEL_CHECK_NULLPTR(scale_attr, KERNEL_STATUS_PARAM_INVALID, "[%s] get attr scale failed.", kScaleShift)
  const float scale = scale_attr->GetFloat();
  auto shift_attr = ctx.GetAttr("shift");
  std::vector<float> shift = shift_attr == nullptr ? std::vector<float>{0.0f} : shift_attr->GetListFloat();
  KERNEL_CHECK_FALSE(!shift.empty(), KERNEL_STATUS_PARAM_INVALID, "[%s] shift must not be empty.", kScaleShift)
  std::vector<int64_t> dims = ctx.Input(0)->GetTensorShape()->GetDimSizes();
  const int64_t total = ctx.Input(0)->NumElements();
  if (FloatEqual(scale, 0.0f)) {
    AICPU_LOGW("[%s] scale is zero (thread %lld).", kScaleShift, static_cast<long long>(GetTid()));
  }
  Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor>> in_map(x, total);
  std::vector<T> staged(static_cast<size_t>(total));
  auto shard = [&](int64_t start, int64_t end) {
    for (int64_t i = start; i < end; ++i) {
      const float s = shift[static_cast<size_t>(i) % shift.size()];
      staged[static_cast<size_t>(i)] = static_cast<T>(static_cast<float>(in_map(i)) * scale + s);
    }
  };
  if (total >= kParallelDataNum) {
    uint32_t min_core_num = 1;
    int64_t max_core_num = std::max(min_core_num, aicpu::CpuKernelUtils::GetCPUNum(ctx) - kResvCpuNum);
    max_core_num = std::min(max_core_num, total);
    KERNEL_HANDLE_ERROR(CpuKernelUtils::ParallelFor(ctx, total, total / max_core_num, shard),
                        "[%s] ParallelFor failed.", kScaleShift);
  } else {
    shard(0, total);
  }
  const uint64_t bytes = static_cast<uint64_t>(total) * sizeof(T);
  auto ret = memcpy_s(y, ctx.Output(0)->GetDataSize(), staged.data(), bytes);
  KERNEL_CHECK_FALSE(ret == EOK, KERNEL_STATUS_INNER_ERROR, "[%s] memcpy_s failed: %d.", kScaleShift, ret)
  ctx.Output(0)->GetTensorShape()->SetDimSizes(dims);
  return KERNEL_STATUS_OK;
}

uint32_t ScaleShiftCpuKernel::Compute(CpuKernelContext &ctx) {
  AICPU_CHK_STATUS_RET(CheckParams(ctx))
  DataType data_type = static_cast<DataType>(ctx.Input(0)->GetDataType());
  switch (data_type) {
    case DT_FLOAT16:
      return DoCompute<Eigen::half>(ctx);
    case DT_FLOAT:
      return DoCompute<float>(ctx);
    case DT_DOUBLE:
      return DoCompute<double>(ctx);
    default:
      KERNEL_LOG_ERROR("[%s] unsupported data type [%s].", ctx.GetOpType().c_str(), DTypeStr(data_type).c_str());
      return KERNEL_STATUS_PARAM_INVALID;
  }
}

REGISTER_CPU_KERNEL(kScaleShift, ScaleShiftCpuKernel);
}  // namespace aicpu
