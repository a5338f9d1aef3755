// Dropout2D / Dropout3D with MindSpore's semantics: one Bernoulli(p = 1 - keep_prob) draw per (N, C) channel of
// an NCHW / NCDHW input; a dropped channel gives 0 and mask false over its whole spatial extent, a kept one gives
// x / keep_prob (computed as MindSpore's kernel does: `x / (1 - p)` in C++'s arithmetic types) and mask true.
// p == 0 copies x with an all-true mask; p == 1 gives zeros and an all-false mask; p outside [0, 1] is invalid.
#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include "inc/kernel_log.h"
#include "inc/ms_cpu_kernel.h"
#include "type_dispatch.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {

const char *kDropout2D = "Dropout2D";
const char *kDropout3D = "Dropout3D";

template <typename T>
T ScaleKept(T x, float p) {
  if constexpr (std::is_same<T, npusim_ops::Half>::value) {
    // MindSpore divides by the divisor rounded to float16 first.
    const float divisor = static_cast<float>(npusim_ops::Half(1.0f - p));
    return npusim_ops::Half(static_cast<float>(x) / divisor);
  } else {
    return npusim_ops::ConvertValue<T>(x / (1.0f - p));
  }
}

template <typename T>
void ApplyChannels(const T *x, T *y, bool *mask, const std::vector<bool> &dropped, int64_t channel_size, float p) {
  for (size_t c = 0; c < dropped.size(); ++c) {
    const int64_t begin = static_cast<int64_t>(c) * channel_size;
    for (int64_t i = begin; i < begin + channel_size; ++i) {
      if (dropped[c]) {
        y[i] = npusim_ops::ConvertValue<T>(0);
        mask[i] = false;
      } else {
        y[i] = p == 0.0f ? x[i] : ScaleKept(x[i], p);
        mask[i] = true;
      }
    }
  }
}

std::vector<bool> DrawDroppedChannels(int64_t channels, float p) {
  std::vector<bool> dropped(static_cast<size_t>(channels), false);
  if (p <= 0.0f || p >= 1.0f) {
    dropped.assign(dropped.size(), p >= 1.0f);
    return dropped;
  }
  std::random_device device;
  std::mt19937_64 generator(device() ^ static_cast<uint64_t>(
                                           std::chrono::steady_clock::now().time_since_epoch().count()));
  std::bernoulli_distribution drop(p);
  for (size_t c = 0; c < dropped.size(); ++c) dropped[c] = drop(generator);
  return dropped;
}

uint32_t CheckTensors(CpuKernelContext &ctx, int32_t rank) {
  Tensor *x = ctx.Input(0);
  Tensor *y = ctx.Output(0);
  Tensor *mask = ctx.Output(1);
  const std::string op = ctx.GetOpType();
  CUST_KERNEL_CHECK_FALSE(ctx, x->GetTensorShape()->GetDims() == rank, KERNEL_STATUS_PARAM_INVALID,
                          "%s input must be %d-D, but got rank %d.", op.c_str(), rank,
                          x->GetTensorShape()->GetDims());
  CUST_KERNEL_CHECK_FALSE(ctx, y->GetDataType() == x->GetDataType(), KERNEL_STATUS_PARAM_INVALID,
                          "%s output y must have the input's data type.", op.c_str());
  CUST_KERNEL_CHECK_FALSE(ctx, mask->GetDataType() == DT_BOOL, KERNEL_STATUS_PARAM_INVALID,
                          "%s output mask must be bool.", op.c_str());
  const uint64_t bytes = static_cast<uint64_t>(x->NumElements()) * GetSizeByDataType(x->GetDataType());
  CUST_KERNEL_CHECK_FALSE(ctx, y->GetDataSize() >= bytes && mask->GetDataSize() >= uint64_t(x->NumElements()),
                          KERNEL_STATUS_PARAM_INVALID, "%s outputs are smaller than the input.", op.c_str());
  return KERNEL_STATUS_OK;
}

uint32_t ComputeDropout(CpuKernelContext &ctx, int32_t rank) {
  KERNEL_HANDLE_ERROR(NormalCheck(ctx, 1, 2, {"keep_prob"}), "%s check failed.", ctx.GetOpType().c_str());
  const float p = 1.0f - ctx.GetAttr("keep_prob")->GetFloat();
  if (p < 0.0f || p > 1.0f) {
    CUST_KERNEL_LOG_ERROR(ctx, "dropout probability must be between 0 and 1, but got %f", p);
    return KERNEL_STATUS_PARAM_INVALID;
  }
  KERNEL_HANDLE_ERROR(CheckTensors(ctx, rank), "%s tensor check failed.", ctx.GetOpType().c_str());
  Tensor *x = ctx.Input(0);
  const std::vector<int64_t> dims = x->GetTensorShape()->GetDimSizes();
  const int64_t channels = dims[0] * dims[1];
  const int64_t channel_size = channels == 0 ? 0 : x->NumElements() / channels;
  const std::vector<bool> dropped = DrawDroppedChannels(channels, p);
  bool *mask = static_cast<bool *>(ctx.Output(1)->GetData());
  const bool supported = npusim_ops::VisitRealType(x->GetDataType(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ApplyChannels(static_cast<const T *>(x->GetData()), static_cast<T *>(ctx.Output(0)->GetData()), mask, dropped,
                  channel_size, p);
  });
  CUST_KERNEL_CHECK_FALSE(ctx, supported, KERNEL_STATUS_PARAM_INVALID, "%s does not support data type %s.",
                          ctx.GetOpType().c_str(), DTypeStr(x->GetDataType()).c_str());
  ctx.Output(0)->GetTensorShape()->SetDimSizes(dims);
  ctx.Output(1)->GetTensorShape()->SetDimSizes(dims);
  return KERNEL_STATUS_OK;
}

}  // namespace

class Dropout2DCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override { return ComputeDropout(ctx, 4); }
};

class Dropout3DCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override { return ComputeDropout(ctx, 5); }
};

REGISTER_MS_CPU_KERNEL(kDropout2D, Dropout2DCpuKernel);
REGISTER_MS_CPU_KERNEL(kDropout3D, Dropout3DCpuKernel);
}  // namespace aicpu
