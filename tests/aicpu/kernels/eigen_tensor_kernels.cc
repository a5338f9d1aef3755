// Kernels written the way public AICPU kernels use "utils/eigen_tensor.h" (EigenTensor, TTypes):
//  - EigenAxpySquare: y = alpha * x + x^2 through flat<T>() (float, double).
//  - EigenCenterRows: y = x - mean of each row through matrix<T>() (a const view in, a mutable view out).
//  - EigenBcastAdd: canndev's Add pattern, Bcast GenerateBcastInfo + GetBcastVec then Eigen reshape/broadcast
//    per rank, with the ShapeVector form of EigenTensor and tensor<T, RANK>().
#include <cstdint>
#include <vector>

#include "cpu_kernel/inc/cpu_ops_kernel.h"
#include "inc/kernel_log.h"
#include "cpu_kernel/utils/bcast.h"          // MindSpore's include paths
#include "cpu_kernel/utils/eigen_tensor.h"
#include "utils/kernel_util.h"

namespace {
const char *kEigenAxpySquare = "EigenAxpySquare";
const char *kEigenCenterRows = "EigenCenterRows";
const char *kEigenBcastAdd = "EigenBcastAdd";
}  // namespace

namespace aicpu {
class EigenAxpySquareCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 1, 1, {"alpha"}), "[%s] check params failed.", kEigenAxpySquare);
    switch (ctx.Input(0)->GetDataType()) {
      case DT_FLOAT: return DoCompute<float>(ctx);
      case DT_DOUBLE: return DoCompute<double>(ctx);
      default:
        KERNEL_LOG_ERROR("[%s] unsupported data type [%s].", kEigenAxpySquare,
                         DTypeStr(ctx.Input(0)->GetDataType()).c_str());
        return KERNEL_STATUS_PARAM_INVALID;
    }
  }

 private:
  template <typename T>
  uint32_t DoCompute(CpuKernelContext &ctx) {
    const T alpha = static_cast<T>(ctx.GetAttr("alpha")->GetFloat());
    EigenTensor x(ctx.Input(0), ctx.Input(0)->GetData());
    EigenTensor y(ctx.Output(0), ctx.Output(0)->GetData());
    auto x_flat = x.flat<T>();
    y.flat<T>() = x_flat * alpha + x_flat.square();
    KERNEL_LOG_INFO("[%s] %lld elements.", kEigenAxpySquare, static_cast<long long>(x_flat.size()));
    return KERNEL_STATUS_OK;
  }
};

class EigenCenterRowsCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 1, 1), "[%s] check params failed.", kEigenCenterRows);
    KERNEL_CHECK_FALSE(ctx.Input(0)->GetDataType() == DT_FLOAT, KERNEL_STATUS_PARAM_INVALID,
                       "[%s] only DT_FLOAT.", kEigenCenterRows)
    KERNEL_CHECK_FALSE(IsMatrix(ctx.Input(0)->GetTensorShape()->GetDimSizes()), KERNEL_STATUS_PARAM_INVALID,
                       "[%s] input must be a matrix.", kEigenCenterRows)
    const EigenTensor x(ctx.Input(0), ctx.Input(0)->GetData());
    EigenTensor y(ctx.Output(0), ctx.Output(0)->GetData());
    TTypes<float>::ConstMatrix in = x.matrix<float>();
    TTypes<float>::Matrix out = y.matrix<float>();
    const Eigen::DenseIndex rows = in.dimension(0);
    const Eigen::DenseIndex cols = in.dimension(1);
    Eigen::array<Eigen::DenseIndex, 1> along_cols{{1}};
    Eigen::array<Eigen::DenseIndex, 2> as_column{{rows, 1}};
    Eigen::array<Eigen::DenseIndex, 2> across{{1, cols}};
    out = in - in.mean(along_cols).reshape(as_column).broadcast(across);
    return KERNEL_STATUS_OK;
  }
};

class EigenBcastAddCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 2, 1), "[%s] check params failed.", kEigenBcastAdd);
    BCalcInfo calc_info;
    calc_info.input_0 = ctx.Input(0);
    calc_info.input_1 = ctx.Input(1);
    calc_info.output = ctx.Output(0);
    Bcast bcast(ctx);
    if (bcast.GenerateBcastInfo(calc_info) != KERNEL_STATUS_OK) {
      KERNEL_LOG_ERROR("[%s] Generate broadcast info failed.", ctx.GetOpType().c_str());
      return KERNEL_STATUS_PARAM_INVALID;
    }
    bcast.GetBcastVec(calc_info);
    switch (calc_info.shape_out.size()) {
      case 0: {
        *static_cast<float *>(calc_info.output->GetData()) = *static_cast<const float *>(calc_info.input_0->GetData()) +
                                                              *static_cast<const float *>(calc_info.input_1->GetData());
        return KERNEL_STATUS_OK;
      }
      case 1: return RankCompute<1>(calc_info);
      case 2: return RankCompute<2>(calc_info);
      case 3: return RankCompute<3>(calc_info);
      case 4: return RankCompute<4>(calc_info);
      default:
        KERNEL_LOG_ERROR("[%s] rank %zu is not supported.", kEigenBcastAdd, calc_info.shape_out.size());
        return KERNEL_STATUS_PARAM_INVALID;
    }
  }

 private:
  template <int RANK>
  static uint32_t RankCompute(BCalcInfo &calc_info) {
    EigenTensor x(calc_info.reshape_0, calc_info.input_0->GetData());
    EigenTensor y(calc_info.reshape_1, calc_info.input_1->GetData());
    EigenTensor out(calc_info.output, calc_info.output->GetData());
    Eigen::DSizes<Eigen::DenseIndex, RANK> x_repeat;
    Eigen::DSizes<Eigen::DenseIndex, RANK> y_repeat;
    for (int d = 0; d < RANK; ++d) {
      x_repeat[d] = calc_info.bcast_0[d];
      y_repeat[d] = calc_info.bcast_1[d];
    }
    out.tensor<float, RANK>() =
        x.tensor<float, RANK>().broadcast(x_repeat) + y.tensor<float, RANK>().broadcast(y_repeat);
    return KERNEL_STATUS_OK;
  }
};

REGISTER_CPU_KERNEL(kEigenAxpySquare, EigenAxpySquareCpuKernel);
REGISTER_CPU_KERNEL(kEigenCenterRows, EigenCenterRowsCpuKernel);
REGISTER_CPU_KERNEL(kEigenBcastAdd, EigenBcastAddCpuKernel);
}  // namespace aicpu
