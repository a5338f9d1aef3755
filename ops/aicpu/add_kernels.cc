// Add with numpy broadcasting.  Integers wrap like numpy's; bool adds as logical or; float16 adds in float.
// Large outputs are split over the AI CPU's threads with ParallelFor.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "cpu_kernel_utils.h"
#include "inc/kernel_log.h"
#include "inc/ms_cpu_kernel.h"
#include "type_dispatch.h"
#include "utils/kernel_util.h"

namespace aicpu {
namespace {

const char *kAdd = "Add";
constexpr int64_t kElementsPerShard = 16384;

// Output dims and each input's element strides over them (0 along broadcast dimensions).
struct Broadcast {
  std::vector<int64_t> dims;
  std::vector<int64_t> x_strides;
  std::vector<int64_t> y_strides;
  int64_t count = 1;
};

std::vector<int64_t> PaddedStrides(const std::vector<int64_t> &shape, const std::vector<int64_t> &out) {
  const size_t rank = out.size();
  std::vector<int64_t> padded(rank - shape.size(), 1);
  padded.insert(padded.end(), shape.begin(), shape.end());
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    strides[i] = padded[i] == 1 ? 0 : stride;
    stride *= padded[i];
  }
  return strides;
}

bool MakeBroadcast(const std::vector<int64_t> &a, const std::vector<int64_t> &b, Broadcast &out) {
  const size_t rank = std::max(a.size(), b.size());
  out.dims.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    out.dims[i] = da == 1 ? db : da;
  }
  out.count = 1;
  for (int64_t d : out.dims) out.count *= d;
  out.x_strides = PaddedStrides(a, out.dims);
  out.y_strides = PaddedStrides(b, out.dims);
  return true;
}

template <typename T>
T AddValues(T a, T b) {
  if constexpr (std::is_same<T, bool>::value) {
    return a || b;
  } else if constexpr (std::is_same<T, npusim_ops::Half>::value) {
    return npusim_ops::Half(static_cast<float>(a) + static_cast<float>(b));
  } else if constexpr (std::is_integral<T>::value) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// Output elements [begin, end): walk the multi-index like an odometer.
template <typename T>
void AddRange(const Broadcast &bc, const T *x, const T *y, T *out, int64_t begin, int64_t end) {
  const size_t rank = bc.dims.size();
  std::vector<int64_t> index(rank, 0);
  int64_t xi = 0;
  int64_t yi = 0;
  for (size_t d = rank, rest = static_cast<size_t>(begin); d-- > 0;) {
    index[d] = static_cast<int64_t>(rest % static_cast<size_t>(bc.dims[d]));
    rest /= static_cast<size_t>(bc.dims[d]);
    xi += index[d] * bc.x_strides[d];
    yi += index[d] * bc.y_strides[d];
  }
  for (int64_t i = begin; i < end; ++i) {
    out[i] = AddValues(x[xi], y[yi]);
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      xi += bc.x_strides[d];
      yi += bc.y_strides[d];
      if (index[d] < bc.dims[d]) break;
      xi -= bc.x_strides[d] * bc.dims[d];
      yi -= bc.y_strides[d] * bc.dims[d];
      index[d] = 0;
    }
  }
}

}  // namespace

class AddCpuKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    KERNEL_HANDLE_ERROR(NormalCheck(ctx, 2, 1), "Add check failed.");
    Tensor *x = ctx.Input(0);
    Tensor *y = ctx.Input(1);
    Tensor *out = ctx.Output(0);
    const DataType dtype = x->GetDataType();
    CUST_KERNEL_CHECK_FALSE(ctx, y->GetDataType() == dtype && out->GetDataType() == dtype,
                            KERNEL_STATUS_PARAM_INVALID, "Add needs one data type, got %s + %s -> %s.",
                            DTypeStr(dtype).c_str(), DTypeStr(y->GetDataType()).c_str(),
                            DTypeStr(out->GetDataType()).c_str());
    Broadcast bc;
    const auto x_dims = x->GetTensorShape()->GetDimSizes();
    const auto y_dims = y->GetTensorShape()->GetDimSizes();
    CUST_KERNEL_CHECK_FALSE(ctx, MakeBroadcast(x_dims, y_dims, bc), KERNEL_STATUS_PARAM_INVALID,
                            "Add cannot broadcast shapes [%s] and [%s].", VectorToString(x_dims).c_str(),
                            VectorToString(y_dims).c_str());
    const int element_size = GetSizeByDataType(dtype);
    CUST_KERNEL_CHECK_FALSE(ctx, element_size > 0 && out->GetDataSize() >= uint64_t(bc.count) * element_size,
                            KERNEL_STATUS_PARAM_INVALID, "Add output buffer holds %llu bytes, needs %lld elements.",
                            static_cast<unsigned long long>(out->GetDataSize()), static_cast<long long>(bc.count));
    uint32_t status = KERNEL_STATUS_OK;
    const bool supported = npusim_ops::VisitRealType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T *xd = static_cast<const T *>(x->GetData());
      const T *yd = static_cast<const T *>(y->GetData());
      T *od = static_cast<T *>(out->GetData());
      status = CpuKernelUtils::ParallelFor(ctx, bc.count, kElementsPerShard,
                                           [&](int64_t begin, int64_t end) { AddRange(bc, xd, yd, od, begin, end); });
    });
    CUST_KERNEL_CHECK_FALSE(ctx, supported, KERNEL_STATUS_PARAM_INVALID, "Add does not support data type %s.",
                            DTypeStr(dtype).c_str());
    out->GetTensorShape()->SetDimSizes(bc.dims);
    return status;
  }
};

REGISTER_MS_CPU_KERNEL(kAdd, AddCpuKernel);
}  // namespace aicpu
