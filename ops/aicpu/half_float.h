// IEEE binary16 for npusim's default AICPU kernels, without Eigen (keeps their build light).
// Arithmetic is done in float; conversions round to nearest even, like numpy's float16.
#ifndef NPUSIM_OPS_AICPU_HALF_FLOAT_H
#define NPUSIM_OPS_AICPU_HALF_FLOAT_H

#include <cstdint>
#include <cstring>

namespace npusim_ops {

inline float HalfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0 && mantissa == 0) {
    bits = sign;
  } else if (exponent == 0) {  // subnormal: renormalise
    uint32_t shift = 0;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | ((127u - 15u + 1u - shift) << 23) | ((mantissa & 0x3ffu) << 13);
  } else if (exponent == 31) {  // inf / nan
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

inline uint16_t FloatToHalfBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) {  // inf or nan (nan stays quiet)
    return sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u | ((magnitude >> 13) & 0x3ffu) : 0u);
  }
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to inf
  if (magnitude < 0x38800000u) {  // below 2^-14: subnormal; adding 0.5 makes the FPU round at 2^-24
    float scaled;
    std::memcpy(&scaled, &magnitude, sizeof(scaled));
    scaled += 0.5f;
    uint32_t rounded;
    std::memcpy(&rounded, &scaled, sizeof(rounded));
    return sign | static_cast<uint16_t>(rounded - 0x3f000000u);
  }
  uint32_t odd = (magnitude >> 13) & 1u;
  magnitude += 0xc8000fffu + odd;  // rebias the exponent by -112 and round half to even at bit 13
  return sign | static_cast<uint16_t>(magnitude >> 13);
}

// A float16 value: storage is the 16 IEEE bits; converts to and from float.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float value) : bits(FloatToHalfBits(value)) {}
  explicit operator float() const { return HalfBitsToFloat(bits); }
};
static_assert(sizeof(Half) == 2, "Half must be 2 bytes");

}  // namespace npusim_ops
#endif  // NPUSIM_OPS_AICPU_HALF_FLOAT_H
