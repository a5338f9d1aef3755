// Broadcasting element-wise kernels written the way public MindSpore / canndev AICPU kernels use "utils/bcast.h":
//  - BcastMul (MindSpore style): BcastShapeType fast paths, else Bcast(ctx, x_shape, y_shape), IsValid(),
//    GetBroadcastXIndex / GetBroadcastYIndex inside ParallelFor.
//  - BcastAdd (canndev style): BCalcInfo + GenerateBcastInfo + BCastIndexes + GetBcastVec.
//  - BcastProbe: reports what Bcast computes (padded and collapsed shapes, repeat counts, index maps).
// No Eigen here, so this file also builds quickly into the canndev-style harness of node_def_harness.cc.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu_kernel/inc/cpu_ops_kernel.h"
#include "cpu_kernel_utils.h"
#include "inc/kernel_log.h"
#include "utils/bcast.h"
#include "utils/kernel_util.h"

namespace {
const char *kBcastMul = "BcastMul";
const char *kBcastAdd = "BcastAdd";
const char *kBcastProbe = "BcastProbe";
const int64_t kParallelDataNum = 2048;
}  // namespace

namespace aicpu {
class BcastMulCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, kInputNum, kOutputNum), "[%s] check input and output failed.", kBcastMul);
    switch (ctx.Input(0)->GetDataType()) {
      case DT_FLOAT: return MulCompute<float>(ctx);
      case DT_INT32: return MulCompute<int32_t>(ctx);
      case DT_DOUBLE: return MulCompute<double>(ctx);
      default:
        KERNEL_LOG_ERROR("[%s] data type [%s] not support.", kBcastMul, DTypeStr(ctx.Input(0)->GetDataType()).c_str());
        return KERNEL_STATUS_PARAM_INVALID;
    }
  }

 private:
  static constexpr uint32_t kInputNum = 2;
  static constexpr uint32_t kOutputNum = 1;

  template <typename T>
  static void SpecialCompute(BcastShapeType type, int64_t start, int64_t end, const T *x, const T *y, T *out) {
    for (int64_t i = start; i < end; ++i) {
      switch (type) {
        case BcastShapeType::SAME_SHAPE: out[i] = x[i] * y[i]; break;
        case BcastShapeType::X_ONE_ELEMENT: out[i] = x[0] * y[i]; break;
        case BcastShapeType::Y_ONE_ELEMENT: out[i] = x[i] * y[0]; break;
        default: break;
      }
    }
  }

  template <typename T>
  uint32_t MulCompute(CpuKernelContext &ctx) {
    auto x = reinterpret_cast<const T *>(ctx.Input(0)->GetData());
    auto y = reinterpret_cast<const T *>(ctx.Input(1)->GetData());
    auto out = reinterpret_cast<T *>(ctx.Output(0)->GetData());
    std::vector<int64_t> x_shape = ctx.Input(0)->GetTensorShape()->GetDimSizes();
    std::vector<int64_t> y_shape = ctx.Input(1)->GetTensorShape()->GetDimSizes();
    const int64_t x_num = ctx.Input(0)->NumElements();
    const int64_t y_num = ctx.Input(1)->NumElements();
    const int64_t data_num = ctx.Output(0)->NumElements();
    if (x_shape == y_shape || x_num == 1 || y_num == 1) {
      BcastShapeType type = x_shape == y_shape ? BcastShapeType::SAME_SHAPE
                            : (x_num == 1 ? BcastShapeType::X_ONE_ELEMENT : BcastShapeType::Y_ONE_ELEMENT);
      SpecialCompute<T>(type, 0, data_num, x, y, out);
      return KERNEL_STATUS_OK;
    }
    Bcast bcast(ctx, x_shape, y_shape);
    if (!bcast.IsValid()) {
      KERNEL_LOG_ERROR("[%s] broadcast failed.", ctx.GetOpType().c_str());
      return KERNEL_STATUS_PARAM_INVALID;
    }
    auto shard = [&](int64_t start, int64_t end) {
      for (int64_t i = start; i < end; ++i) {
        out[i] = x[bcast.GetBroadcastXIndex(i)] * y[bcast.GetBroadcastYIndex(i)];
      }
    };
    if (data_num < kParallelDataNum) {
      shard(0, data_num);
      return KERNEL_STATUS_OK;
    }
    const int64_t cores = std::max<int64_t>(1, static_cast<int64_t>(CpuKernelUtils::GetCPUNum(ctx)) - kResvCpuNum);
    KERNEL_HANDLE_ERROR(CpuKernelUtils::ParallelFor(ctx, data_num, data_num / cores, shard),
                        "[%s] ParallelFor failed.", kBcastMul);
    return KERNEL_STATUS_OK;
  }
};

class BcastAddCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    BCalcInfo calc_info;
    calc_info.input_0 = ctx.Input(kFirstInputIndex);
    calc_info.input_1 = ctx.Input(kSecondInputIndex);
    calc_info.output = ctx.Output(kFirstOutputIndex);
    KERNEL_CHECK_NULLPTR(calc_info.input_0, KERNEL_STATUS_PARAM_INVALID, "[%s] get input 0 failed.", kBcastAdd)
    KERNEL_CHECK_NULLPTR(calc_info.input_1, KERNEL_STATUS_PARAM_INVALID, "[%s] get input 1 failed.", kBcastAdd)
    KERNEL_CHECK_NULLPTR(calc_info.output, KERNEL_STATUS_PARAM_INVALID, "[%s] get output failed.", kBcastAdd)
    KERNEL_CHECK_FALSE(calc_info.input_0->GetDataType() == DT_FLOAT, KERNEL_STATUS_PARAM_INVALID,
                       "[%s] only DT_FLOAT here, got [%s].", kBcastAdd,
                       DTypeStr(calc_info.input_0->GetDataType()).c_str())
    Bcast bcast;
    if (bcast.GenerateBcastInfo(calc_info) != KERNEL_STATUS_OK) {
      KERNEL_LOG_ERROR("[%s] Generate broadcast info failed.", ctx.GetOpType().c_str());
      return KERNEL_STATUS_PARAM_INVALID;
    }
    bcast.BCastIndexes(calc_info.x_indexes, calc_info.y_indexes);
    bcast.GetBcastVec(calc_info);
    auto x = reinterpret_cast<const float *>(calc_info.input_0->GetData());
    auto y = reinterpret_cast<const float *>(calc_info.input_1->GetData());
    auto out = reinterpret_cast<float *>(calc_info.output->GetData());
    if (calc_info.shape_out.empty()) {
      out[0] = x[0] + y[0];
      return KERNEL_STATUS_OK;
    }
    for (size_t i = 0; i < calc_info.x_indexes.size(); ++i) {
      out[i] = x[calc_info.x_indexes[i]] + y[calc_info.y_indexes[i]];
    }
    return KERNEL_STATUS_OK;
  }
};

// Inputs x, y, z (z has the broadcast shape; only shapes are read).  Outputs (int64):
//   0: (5, R) rows reshape_0, reshape_1, bcast_0, bcast_1, shape_out of GenerateBcastInfo + GetBcastVec
//   1: (5, R) rows x_reshape(), y_reshape(), result_shape(), x_bcast(), y_bcast() of Bcast(x, y), 0-padded
//   2: (4, N) rows x_indexes, y_indexes of BCastIndexes, then GetBroadcastXIndex(i), GetBroadcastYIndex(i)
class BcastProbeCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 3, 3), "[%s] check input and output failed.", kBcastProbe);
    BCalcInfo calc_info;
    calc_info.input_0 = ctx.Input(0);
    calc_info.input_1 = ctx.Input(1);
    calc_info.output = ctx.Input(2);
    Bcast generated(ctx);
    KERNEL_HANDLE_ERROR(generated.GenerateBcastInfo(calc_info), "[%s] GenerateBcastInfo failed.", kBcastProbe);
    generated.BCastIndexes(calc_info.x_indexes, calc_info.y_indexes);
    generated.GetBcastVec(calc_info);
    const int64_t rank = ctx.Output(0)->GetTensorShape()->GetDimSize(1);
    auto padded = reinterpret_cast<int64_t *>(ctx.Output(0)->GetData());
    WriteRows({&calc_info.reshape_0, &calc_info.reshape_1, &calc_info.bcast_0, &calc_info.bcast_1,
               &calc_info.shape_out}, rank, padded);
    std::vector<int64_t> x_shape = calc_info.input_0->GetTensorShape()->GetDimSizes();
    std::vector<int64_t> y_shape = calc_info.input_1->GetTensorShape()->GetDimSizes();
    Bcast collapsed(x_shape, y_shape);
    KERNEL_CHECK_FALSE(collapsed.IsValid(), KERNEL_STATUS_PARAM_INVALID, "[%s] broadcast failed.", kBcastProbe)
    auto collapsed_out = reinterpret_cast<int64_t *>(ctx.Output(1)->GetData());
    WriteRows({&collapsed.x_reshape(), &collapsed.y_reshape(), &collapsed.result_shape(), &collapsed.x_bcast(),
               &collapsed.y_bcast()}, rank, collapsed_out);
    const int64_t count = ctx.Output(2)->GetTensorShape()->GetDimSize(1);
    KERNEL_CHECK_FALSE(static_cast<int64_t>(calc_info.x_indexes.size()) == count, KERNEL_STATUS_PARAM_INVALID,
                       "[%s] %zu indexes for %lld elements.", kBcastProbe, calc_info.x_indexes.size(),
                       static_cast<long long>(count))
    auto indexes = reinterpret_cast<int64_t *>(ctx.Output(2)->GetData());
    for (int64_t i = 0; i < count; ++i) {
      indexes[i] = calc_info.x_indexes[i];
      indexes[count + i] = calc_info.y_indexes[i];
      indexes[2 * count + i] = collapsed.GetBroadcastXIndex(i);
      indexes[3 * count + i] = collapsed.GetBroadcastYIndex(i);
    }
    return KERNEL_STATUS_OK;
  }

 private:
  static void WriteRows(const std::vector<const std::vector<int64_t> *> &rows, int64_t width, int64_t *out) {
    for (size_t r = 0; r < rows.size(); ++r) {
      for (int64_t c = 0; c < width; ++c) {
        const std::vector<int64_t> &row = *rows[r];
        out[r * width + c] = c < static_cast<int64_t>(row.size()) ? row[c] : 0;
      }
    }
  }
};

REGISTER_CPU_KERNEL(kBcastMul, BcastMulCpuKernel);
REGISTER_CPU_KERNEL(kBcastAdd, BcastAddCpuKernel);
REGISTER_CPU_KERNEL(kBcastProbe, BcastProbeCpuKernel);
}  // namespace aicpu
