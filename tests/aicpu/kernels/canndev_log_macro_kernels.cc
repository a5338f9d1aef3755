// Kernels written against canndev's own utils/log.h the way canndev's kernels use it: the check macros are bare
// `if` blocks and KERNEL_HANDLE_ERROR a brace block, so kernels leave out the `;` after them, often directly
// before a closing `}`.  Also MindSpore's spellings: AICPU_LOG* and AICPU_CHK_STATUS_RET carry their own `;`,
// CUST_KERNEL_HANDLE_ERROR is followed by `}` too.
//
// MacroAxpy:  y = alpha * x + b (float, double, int32), in canndev's Compute / CheckParam / DoCompute<T> layout.
// MacroTrip:  attribute "trip" selects one check macro to fire (0: none); output 0 (int64[1]) = rows * cols,
//             computed with KERNEL_CHECK_ASSIGN_64S_MULTI.
// CustMacroNeg (REGISTER_MS_CPU_KERNEL, also as MacroNeg): y = -x for float, with MindSpore's macros.
#include <cstdint>
#include <vector>

#include "cpu_kernel_utils.h"
#include "cpu_ops_kernel.h"
#include "inc/kernel_log.h"
#include "inc/ms_cpu_kernel.h"
#include "status.h"
#include "utils/kernel_util.h"
#include "utils/log.h"

namespace {
const char *const kMacroAxpy = "MacroAxpy";
const char *const kMacroTrip = "MacroTrip";
const char *const kMacroNeg = "MacroNeg";
const uint32_t kAxpyInputNum = 2;
const uint32_t kAxpyOutputNum = 1;
}  // namespace

namespace aicpu {
class MacroAxpyCpuKernel : public CpuKernel {
 public:
  MacroAxpyCpuKernel() = default;
  ~MacroAxpyCpuKernel() override = default;
  uint32_t Compute(CpuKernelContext &ctx) override;

 private:
  static uint32_t CheckParam(CpuKernelContext &ctx);
  template <typename T>
  static uint32_t DoCompute(CpuKernelContext &ctx);
};

uint32_t MacroAxpyCpuKernel::CheckParam(CpuKernelContext &ctx) {
  Tensor *x = ctx.Input(0);
  Tensor *b = ctx.Input(1);
  KERNEL_CHECK_NULLPTR(ctx.GetAttr("alpha"), KERNEL_STATUS_PARAM_INVALID, "[%s] get attr alpha failed.", kMacroAxpy)
  KERNEL_CHECK_FALSE((x->GetDataType() == b->GetDataType()), KERNEL_STATUS_PARAM_INVALID,
                     "[%s] the data type of x [%s] differs from b [%s].", kMacroAxpy,
                     DTypeStr(x->GetDataType()).c_str(), DTypeStr(b->GetDataType()).c_str())
  std::vector<int64_t> x_dims = x->GetTensorShape()->GetDimSizes();
  std::vector<int64_t> b_dims = b->GetTensorShape()->GetDimSizes();
  if (x_dims != b_dims) {
    KERNEL_LOG_ERROR("[%s] the shape of x [%s] differs from b [%s].", kMacroAxpy, VectorToString(x_dims).c_str(),
                     VectorToString(b_dims).c_str());
    return KERNEL_STATUS_PARAM_INVALID;
  }
  return KERNEL_STATUS_OK;
}

template <typename T>
uint32_t MacroAxpyCpuKernel::DoCompute(CpuKernelContext &ctx) {
  const T alpha = static_cast<T>(ctx.GetAttr("alpha")->GetFloat());
  const auto *x = static_cast<const T *>(ctx.Input(0)->GetData());
  const auto *b = static_cast<const T *>(ctx.Input(1)->GetData());
  auto *y = static_cast<T *>(ctx.Output(0)->GetData());
  const int64_t total = ctx.Input(0)->NumElements();
  auto shard = [&](int64_t start, int64_t end) {
    for (int64_t i = start; i < end; ++i) y[i] = alpha * x[i] + b[i];
  };
  if (total > 0) {
    KERNEL_HANDLE_ERROR(CpuKernelUtils::ParallelFor(ctx, total, 256, shard), "[%s] ParallelFor failed.", kMacroAxpy)
  }
  return KERNEL_STATUS_OK;
}

uint32_t MacroAxpyCpuKernel::Compute(CpuKernelContext &ctx) {
  KERNEL_HANDLE_ERROR(NormalCheck(ctx, kAxpyInputNum, kAxpyOutputNum), "[%s] check input and output failed.",
                      kMacroAxpy)
  KERNEL_HANDLE_ERROR(CheckParam(ctx), "[%s] check params failed.", kMacroAxpy)
  DataType data_type = ctx.Input(0)->GetDataType();
  switch (data_type) {
    case DT_FLOAT: {
      KERNEL_HANDLE_ERROR(DoCompute<float>(ctx), "[%s] compute float failed.", kMacroAxpy)
      break;
    }
    case DT_DOUBLE: {
      KERNEL_HANDLE_ERROR(DoCompute<double>(ctx), "[%s] compute double failed.", kMacroAxpy)
      break;
    }
    case DT_INT32: {
      KERNEL_HANDLE_ERROR(DoCompute<int32_t>(ctx), "[%s] compute int32 failed.", kMacroAxpy)
      break;
    }
    default: {
      KERNEL_LOG_ERROR("[%s] data type [%s] not support.", kMacroAxpy, DTypeStr(data_type).c_str());
      return KERNEL_STATUS_PARAM_INVALID;
    }
  }
  return KERNEL_STATUS_OK;
}

REGISTER_CPU_KERNEL(kMacroAxpy, MacroAxpyCpuKernel);

// ---- every check macro, each fired by one value of the "trip" attribute ----------------------------------------
namespace {
uint32_t InnerFailure(int64_t trip) {
  if (trip == 3) {
    KERNEL_CHECK_FALSE(false, KERNEL_STATUS_INNER_ERROR, "trip 3: inner failure (thread %lld).",
                       static_cast<long long>(aicpu::GetTid()))
  }
  return KERNEL_STATUS_OK;
}

uint32_t TimeoutFailure(int64_t trip) {
  if (trip == 6) {
    return KERNEL_STATUS_TIMEOUT;
  }
  return KERNEL_STATUS_OK;
}

void VoidChecks(int64_t trip, const int *present, bool &flagged) {
  const int *pointer = (trip == 8) ? nullptr : present;
  if (trip >= 8) {
    KERNEL_CHECK_NULLPTR_VOID(pointer, "trip %lld: null pointer in a void helper.", static_cast<long long>(trip))
  }
  KERNEL_CHECK_FALSE_VOID(trip != 9, "trip %lld: false condition in a void helper.", static_cast<long long>(trip))
  KERNEL_CHECK_FALSE_EXEC(trip != 10, flagged = true)
}

uint32_t Trip(CpuKernelContext &ctx, int64_t trip, int64_t rows, int64_t cols, int64_t &total) {
  Tensor *missing = ctx.Input(ctx.GetInputsSize());
  if (trip == 1) {
    KERNEL_CHECK_NULLPTR(missing, KERNEL_STATUS_PARAM_INVALID, "trip 1: input %u is missing.", ctx.GetInputsSize())
  }
  if (trip == 2) {
    KERNEL_CHECK_FALSE(rows < 0, KERNEL_STATUS_INNER_ERROR, "trip 2: rows %lld is not negative.",
                       static_cast<long long>(rows))
  }
  if (trip == 3) {
    KERNEL_HANDLE_ERROR(InnerFailure(trip), "trip 3: handled the inner failure.")
  }
  KERNEL_CHECK_ASSIGN_64S_MULTI(rows, cols, total, KERNEL_STATUS_PARAM_INVALID)
  KERNEL_CHECK_FALSE_RUN_INFO(trip != 5, KERNEL_STATUS_PARAM_INVALID, "trip 5: run info.")
  if (trip == 6)
    KERNEL_CHECK_ERROR(TimeoutFailure(trip));
  else
    AICPU_LOGI("trip %lld: no timeout check.", static_cast<long long>(trip))
  if (trip == 7)
    KERNEL_CHECK_RET(rows == cols, KERNEL_STATUS_SHARDER_ERROR);
  else
    total += 0;
  return KERNEL_STATUS_OK;
}
}  // namespace

class MacroTripCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    AttrValue *trip_attr = ctx.GetAttr("trip");
    KERNEL_CHECK_NULLPTR(trip_attr, KERNEL_STATUS_PARAM_INVALID, "[%s] get attr trip failed.", kMacroTrip)
    const int64_t trip = trip_attr->GetInt();
    const int64_t rows = ctx.GetAttr("rows")->GetInt();
    const int64_t cols = ctx.GetAttr("cols")->GetInt();
    int64_t total = 0;
    KERNEL_HANDLE_ERROR(Trip(ctx, trip, rows, cols, total), "[%s] trip %lld failed.", kMacroTrip,
                        static_cast<long long>(trip))
    bool flagged = false;
    const int present = 1;
    VoidChecks(trip, &present, flagged);
    if (trip >= 8) {
      KERNEL_LOG_WARN("[%s] trip %lld: void helper returned, flagged=%d.", kMacroTrip, static_cast<long long>(trip),
                      static_cast<int>(flagged));
      return KERNEL_STATUS_PARAM_INVALID;
    }
    *static_cast<int64_t *>(ctx.Output(0)->GetData()) = total;
    return KERNEL_STATUS_OK;
  }
};

REGISTER_CPU_KERNEL(kMacroTrip, MacroTripCpuKernel);

// ---- MindSpore's spellings -------------------------------------------------------------------------------------
class MacroNegCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    AICPU_CHK_STATUS_RET(NormalCheck(ctx, 1, 1))
    Tensor *x = ctx.Input(kFirstInputIndex);
    if (x->GetDataType() != DT_FLOAT) {
      AICPU_LOGE("[%s] takes float32, got %s.", kMacroNeg, DTypeStr(x->GetDataType()).c_str())
      return KERNEL_STATUS_PARAM_INVALID;
    }
    const int64_t total = x->NumElements();
    const auto *in = static_cast<const float *>(x->GetData());
    auto *out = static_cast<float *>(ctx.Output(kFirstOutputIndex)->GetData());
    if (total > 0) {
      CUST_KERNEL_HANDLE_ERROR(ctx, CpuKernelUtils::ParallelFor(ctx, total, 128, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = -in[i];
      }), "[%s] ParallelFor failed.", kMacroNeg)
    }
    return KERNEL_STATUS_OK;
  }
};

REGISTER_MS_CPU_KERNEL(kMacroNeg, MacroNegCpuKernel);
}  // namespace aicpu
