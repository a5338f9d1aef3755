// npusim AICPU compatibility header (MindSpore/canndev path utils/kernel_util.h): helpers real kernels use
// (NormalCheck, overflow-checked arithmetic, dtype names, shape predicates ...).  Brings in the log and check
// macros and the status codes, since kernels use them after including only this header.
//
// Kernel libraries often ship their own copy of kernel_util.cc (and .h).  So that they link and load:
// - the runtime defines the out-of-line functions below as weak symbols: a library's own definitions of the same
//   functions win at link time, its kernels then call its copies;
// - the include guard is the one canndev's and MindSpore's kernel_util.h use: a translation unit that reaches the
//   library's copy of the header first never sees this one as well (no redefinitions);
// - the functions canndev / MindSpore define out of line are only declared here (none is inline), both in the
//   non-const-context form canndev declares and the const form of older MindSpore.
#ifndef AICPU_UTILS_KERNEL_UTIL_H_
#define AICPU_UTILS_KERNEL_UTIL_H_

#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../cpu_context.h"
#include "../cpu_kernel_utils.h"
#include "../inc/kernel_log.h"
#include "../log.h"
#include "../status.h"

namespace aicpu {
constexpr uint32_t kResvCpuNum = 2;
constexpr uint32_t kThreadNum = 32;
constexpr uint32_t kFirstInputIndex = 0;
constexpr uint32_t kSecondInputIndex = 1;
constexpr uint32_t kThirdInputIndex = 2;
constexpr uint32_t kFourthInputIndex = 3;
constexpr uint32_t kFirstOutputIndex = 0;
constexpr uint32_t kSecondOutputIndex = 1;
constexpr uint32_t kDynamicInput = static_cast<uint32_t>(-1);
constexpr uint32_t kDynamicOutput = static_cast<uint32_t>(-2);
constexpr uint64_t kEigenAlignmentBytes = 16;

constexpr uint64_t kFormatNCHWIndexN = 0;
constexpr uint64_t kFormatNCHWIndexC = 1;
constexpr uint64_t kFormatNCHWIndexH = 2;
constexpr uint64_t kFormatNCHWIndexW = 3;
constexpr uint64_t kFormatNC1HWC0IndexN = 0;
constexpr uint64_t kFormatNC1HWC0IndexC1 = 1;
constexpr uint64_t kFormatNC1HWC0IndexH = 2;
constexpr uint64_t kFormatNC1HWC0IndexW = 3;
constexpr uint64_t kFormatNC1HWC0IndexC0 = 4;
constexpr uint64_t kFormatNHWCIndexN = 0;
constexpr uint64_t kFormatNHWCIndexH = 1;
constexpr uint64_t kFormatNHWCIndexW = 2;
constexpr uint64_t kFormatNHWCIndexC = 3;
constexpr uint64_t kFormatCHWIndexC = 0;
constexpr uint64_t kFormatCHWIndexH = 1;
constexpr uint64_t kFormatCHWIndexW = 2;
constexpr uint64_t kFormatHWCIndexH = 0;
constexpr uint64_t kFormatHWCIndexW = 1;
constexpr uint64_t kFormatHWCIndexC = 2;

constexpr size_t INPUT_NUM0 = 0;
constexpr size_t INPUT_NUM1 = 1;
constexpr size_t INPUT_NUM2 = 2;
constexpr size_t INPUT_NUM3 = 3;
constexpr size_t INPUT_NUM4 = 4;
constexpr size_t INPUT_NUM5 = 5;
constexpr size_t INPUT_NUM6 = 6;
constexpr size_t INPUT_NUM7 = 7;
constexpr size_t INPUT_NUM8 = 8;
constexpr size_t INPUT_NUM9 = 9;
constexpr size_t INPUT_NUM32 = 32;

using TensorShapePtr = std::shared_ptr<TensorShape>;

// Streams every argument into one string.
template <typename... Ts>
std::string ConcatString(const Ts &...args) {
  std::ostringstream oss;
  (oss << ... << args);
  return oss.str();
}

// "a, b, c"
template <typename T>
std::string VectorToString(const std::vector<T> &values) {
  std::ostringstream oss;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0) oss << ", ";
    oss << values[i];
  }
  return oss.str();
}

// "[value]"
template <typename T>
std::string FmtToStr(const T &value) {
  std::ostringstream oss;
  oss << "[" << value << "]";
  return oss.str();
}

// |a - b| within the type's epsilon.
template <typename T>
bool FloatEqual(T a, T b) {
  using std::abs;
  return abs(a - b) <= std::numeric_limits<T>::epsilon();
}

inline int32_t GetPrimaryFormat(int32_t format) { return static_cast<int32_t>(static_cast<uint32_t>(format) & 0xffU); }
inline int32_t GetSubFormat(int32_t format) {
  return static_cast<int32_t>((static_cast<uint32_t>(format) & 0xffff00U) >> 8);
}
inline bool HasSubFormat(int32_t format) { return GetSubFormat(format) > 0; }

// x * y for non-negative values; false on overflow or a negative operand.
inline bool MulWithoutOverflow(const int64_t x, const int64_t y, int64_t &xy) {
  if (x < 0 || y < 0) return false;
  if (x != 0 && y > std::numeric_limits<int64_t>::max() / x) return false;
  xy = x * y;
  return true;
}

// x + y; false on signed overflow (sum is still written, wrapped).
inline bool AddWithoutOverflow(const int64_t x, const int64_t y, int64_t &sum) {
  sum = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
  return !((x >= 0) == (y >= 0) && (sum >= 0) != (x >= 0));
}

inline bool ShapeVectorIsSame(const std::vector<int64_t> &shape, const std::vector<int64_t> &check_shape) {
  return shape == check_shape;
}

std::string FormatToSerialString(Format format);
// MindSpore's later spelling (logs through the context).
std::string FormatToSerialString(CpuKernelContext &ctx, Format format);
// The op type without MindSpore's "Cust" prefix.
std::string GetOpName(CpuKernelContext &ctx);
// A tensor with no elements.
bool IsEmptyTensor(Tensor *tensor);
// Inputs 0..1 and output 0 exist and have data.
uint32_t NormalMathCheck(CpuKernelContext &ctx);
uint32_t NormalMathCheck(const CpuKernelContext &ctx);
// Exactly `inputs_num` inputs and `outputs_num` outputs (kDynamicInput / kDynamicOutput: any number), each with
// data, and every named attribute present.
uint32_t NormalCheck(CpuKernelContext &ctx, const uint32_t inputs_num, const uint32_t outputs_num);
uint32_t NormalCheck(const CpuKernelContext &ctx, const uint32_t inputs_num, const uint32_t outputs_num);
uint32_t NormalCheck(CpuKernelContext &ctx, const uint32_t inputs_num, const uint32_t outputs_num,
                     const std::vector<std::string> &attr_names);
uint32_t NormalCheck(const CpuKernelContext &ctx, const uint32_t inputs_num, const uint32_t outputs_num,
                     const std::vector<std::string> &attr_names);
bool IsScalar(const std::vector<int64_t> &shape);
bool IsMatrix(const std::vector<int64_t> &shape);
bool IsVector(const std::vector<int64_t> &shape);
bool IsSquareMatrix(const std::vector<int64_t> &shape);
bool IsVectorOrHigher(const std::vector<int64_t> &shape);
bool AddrAlignedCheck(const void *addr, uint64_t alignment = kEigenAlignmentBytes);
// "DT_FLOAT" <-> DT_FLOAT; unknown names give DT_UNDEFINED, unknown types "DT_UNDEFINED".
DataType DType(std::string dtype_str);
std::string DTypeStr(DataType dtype);
uint32_t CheckTensorTypeSame(const std::map<std::string, DataType> &types, const DataType &check_type,
                             const std::string &prim_name);
uint32_t CheckTensorTypeSame(CpuKernelContext &ctx, const std::map<std::string, DataType> &types,
                             const DataType &check_type, const std::string &prim_name);
uint32_t CheckTensorShapeSame(const std::map<std::string, TensorShapePtr> &shapes,
                              const std::vector<int64_t> &check_shape, const std::string &prim_name);
uint32_t CheckTensorShapeSame(CpuKernelContext &ctx, const std::map<std::string, TensorShapePtr> &shapes,
                              const std::vector<int64_t> &check_shape, const std::string &prim_name);

inline size_t IntToSize(int u) {
  if (u < 0) {
    KERNEL_LOG_ERROR("The int value [%d] is less than 0.", u);
    return SIZE_MAX;
  }
  return static_cast<size_t>(u);
}
inline int SizeToInt(size_t u) {
  if (u > static_cast<size_t>(std::numeric_limits<int>::max())) {
    KERNEL_LOG_ERROR("The size_t value [%zu] exceeds the maximum value of int.", u);
    return INT_MAX;
  }
  return static_cast<int>(u);
}
inline size_t LongToSize(int64_t u) {
  if (u < 0) {
    KERNEL_LOG_ERROR("The int64_t value [%lld] is less than 0.", static_cast<long long>(u));
    return SIZE_MAX;
  }
  return static_cast<size_t>(u);
}
inline int32_t LongToInt(int64_t u) {
  if (u > static_cast<int64_t>(std::numeric_limits<int32_t>::max())) {
    KERNEL_LOG_ERROR("The int64_t value [%lld] exceeds the maximum value of int.", static_cast<long long>(u));
    return INT_MAX;
  }
  return static_cast<int32_t>(u);
}
}  // namespace aicpu
#endif  // AICPU_UTILS_KERNEL_UTIL_H_
