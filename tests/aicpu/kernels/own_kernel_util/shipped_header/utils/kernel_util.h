// A kernel library's own copy of the helper header utils/kernel_util.h (written for npusim's tests, declaring what
// canndev's declares, in canndev's signatures).  The tests put it next to the library's kernels, where their
// `#include "utils/kernel_util.h"` finds it before npusim's; the library's utils/kernel_util.cc defines it.
#ifndef AICPU_UTILS_KERNEL_UTIL_H_
#define AICPU_UTILS_KERNEL_UTIL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cpu_context.h"
#include "log.h"
#include "status.h"

namespace aicpu {
constexpr uint32_t kFirstInputIndex = 0;
constexpr uint32_t kFirstOutputIndex = 0;
constexpr int32_t kDynamicInput = -1;
constexpr int32_t kDynamicOutput = -2;
constexpr uint64_t kEigenAlignmentBytes = 16;

using TensorShapePtr = std::shared_ptr<TensorShape>;

template <typename T>
std::string ConcatString(T arg) {
  std::ostringstream oss;
  oss << arg;
  return oss.str();
}

template <typename T, typename... Ts>
std::string ConcatString(T arg, Ts... rest) {
  return ConcatString(arg) + ConcatString(rest...);
}

template <typename T>
std::string VectorToString(const std::vector<T> &values) {
  std::ostringstream oss;
  for (size_t i = 0; i < values.size(); ++i) oss << (i == 0 ? "" : ", ") << values[i];
  return oss.str();
}

inline int32_t GetPrimaryFormat(int32_t format) { return static_cast<int32_t>(static_cast<uint32_t>(format) & 0xff); }
inline int32_t GetSubFormat(int32_t format) {
  return static_cast<int32_t>((static_cast<uint32_t>(format) & 0xffff00) >> 8);
}
inline bool HasSubFormat(int32_t format) { return GetSubFormat(format) > 0; }

std::string FormatToSerialString(Format format);
bool IsEmptyTensor(Tensor *tensor);
uint32_t NormalMathCheck(CpuKernelContext &ctx);
uint32_t NormalCheck(CpuKernelContext &ctx, const uint32_t inputs_num, const uint32_t outputs_num);
uint32_t NormalCheck(CpuKernelContext &ctx, const uint32_t inputs_num, const uint32_t outputs_num,
                     const std::vector<std::string> &attr_names);
bool IsScalar(const std::vector<int64_t> &shape);
bool IsMatrix(const std::vector<int64_t> &shape);
bool IsVector(const std::vector<int64_t> &shape);
bool IsSquareMatrix(const std::vector<int64_t> &shape);
bool AddrAlignedCheck(const void *addr, uint64_t alignment = kEigenAlignmentBytes);
bool IsVectorOrHigher(const std::vector<int64_t> &shape);
DataType DType(std::string dtype_str);
std::string DTypeStr(DataType dtype);
uint32_t CheckTensorTypeSame(const std::map<std::string, DataType> &types, const DataType &check_type,
                             const std::string &prim_name);
uint32_t CheckTensorShapeSame(const std::map<std::string, TensorShapePtr> &shapes,
                              const std::vector<int64_t> &check_shape, const std::string &prim_name);
}  // namespace aicpu
#endif  // AICPU_UTILS_KERNEL_UTIL_H_
