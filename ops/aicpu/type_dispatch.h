// Data-type dispatch and value conversion shared by npusim's default AICPU kernels.
#ifndef NPUSIM_OPS_AICPU_TYPE_DISPATCH_H
#define NPUSIM_OPS_AICPU_TYPE_DISPATCH_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cpu_types.h"
#include "half_float.h"

namespace npusim_ops {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>{}) for the C++ type of `dtype` (bool, ints, float16/32/64); false when unsupported.
template <typename Fn>
bool VisitRealType(aicpu::DataType dtype, Fn &&fn) {
  switch (dtype) {
    case aicpu::DT_BOOL: fn(TypeTag<bool>{}); return true;
    case aicpu::DT_INT8: fn(TypeTag<int8_t>{}); return true;
    case aicpu::DT_INT16: fn(TypeTag<int16_t>{}); return true;
    case aicpu::DT_INT32: fn(TypeTag<int32_t>{}); return true;
    case aicpu::DT_INT64: fn(TypeTag<int64_t>{}); return true;
    case aicpu::DT_UINT8: fn(TypeTag<uint8_t>{}); return true;
    case aicpu::DT_UINT16: fn(TypeTag<uint16_t>{}); return true;
    case aicpu::DT_UINT32: fn(TypeTag<uint32_t>{}); return true;
    case aicpu::DT_UINT64: fn(TypeTag<uint64_t>{}); return true;
    case aicpu::DT_FLOAT16: fn(TypeTag<Half>{}); return true;
    case aicpu::DT_FLOAT: fn(TypeTag<float>{}); return true;
    case aicpu::DT_DOUBLE: fn(TypeTag<double>{}); return true;
    default: return false;
  }
}

// The arithmetic type a value of T computes in (Half computes in float).
template <typename T>
using ComputeType = std::conditional_t<std::is_same<T, Half>::value, float, T>;

template <typename T>
ComputeType<T> ToCompute(T value) {
  if constexpr (std::is_same<T, Half>::value) {
    return static_cast<float>(value);
  } else {
    return value;
  }
}

// Converts an arithmetic value to To: bool is "non-zero"; float -> integer truncates toward zero and saturates
// (NaN -> 0) where C++ would leave out-of-range conversions undefined; Half rounds to nearest even.
template <typename To, typename From>
To ConvertValue(From value) {
  if constexpr (std::is_same<From, Half>::value) {
    return ConvertValue<To>(static_cast<float>(value));
  } else if constexpr (std::is_same<To, Half>::value) {
    return Half(static_cast<float>(value));
  } else if constexpr (std::is_same<To, bool>::value) {
    return value != From(0);
  } else if constexpr (std::is_integral<To>::value && std::is_floating_point<From>::value) {
    if (std::isnan(value)) return To(0);
    const long double v = static_cast<long double>(value);
    if (v <= static_cast<long double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (v >= static_cast<long double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(value);
  } else {
    return static_cast<To>(value);
  }
}

}  // namespace npusim_ops
#endif  // NPUSIM_OPS_AICPU_TYPE_DISPATCH_H
