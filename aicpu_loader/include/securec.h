// npusim AICPU compatibility header: the bounds-checked memory and string functions of Huawei's securec
// library that kernels call (memcpy_s, memset_s, strcpy_s, snprintf_s ...), as inline functions.
// Each returns EOK (0) on success; on a bad argument or a too-small destination it returns an error code and,
// like securec, clears the destination where that is possible.
#ifndef NPUSIM_AICPU_SECUREC_H
#define NPUSIM_AICPU_SECUREC_H

#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
#ifndef EINVAL_AND_RESET
#define EINVAL_AND_RESET (22 | 128)
#endif
#ifndef ERANGE_AND_RESET
#define ERANGE_AND_RESET (34 | 128)
#endif
#ifndef EOVERLAP_AND_RESET
#define EOVERLAP_AND_RESET (54 | 128)
#endif
#ifndef SECUREC_MEM_MAX_LEN
#define SECUREC_MEM_MAX_LEN (0x7fffffffUL)
#endif

typedef int errno_t;

inline errno_t memset_s(void *dest, size_t dest_max, int c, size_t count) {
  if (dest == nullptr || dest_max > SECUREC_MEM_MAX_LEN) return EINVAL;
  if (count > dest_max) {
    std::memset(dest, c, dest_max);
    return ERANGE_AND_RESET;
  }
  std::memset(dest, c, count);
  return EOK;
}

inline errno_t memcpy_s(void *dest, size_t dest_max, const void *src, size_t count) {
  if (dest == nullptr || dest_max > SECUREC_MEM_MAX_LEN) return EINVAL;
  if (src == nullptr) {
    std::memset(dest, 0, dest_max);
    return EINVAL_AND_RESET;
  }
  if (count > dest_max) {
    std::memset(dest, 0, dest_max);
    return ERANGE_AND_RESET;
  }
  const char *s = static_cast<const char *>(src);
  char *d = static_cast<char *>(dest);
  if (count != 0 && ((d <= s && s < d + count) || (s <= d && d < s + count)) && d != s) {
    std::memset(dest, 0, dest_max);
    return EOVERLAP_AND_RESET;
  }
  if (count != 0) std::memcpy(dest, src, count);
  return EOK;
}

inline errno_t memmove_s(void *dest, size_t dest_max, const void *src, size_t count) {
  if (dest == nullptr || dest_max > SECUREC_MEM_MAX_LEN) return EINVAL;
  if (src == nullptr) {
    std::memset(dest, 0, dest_max);
    return EINVAL_AND_RESET;
  }
  if (count > dest_max) {
    std::memset(dest, 0, dest_max);
    return ERANGE_AND_RESET;
  }
  if (count != 0) std::memmove(dest, src, count);
  return EOK;
}

inline errno_t strncpy_s(char *dest, size_t dest_max, const char *src, size_t count) {
  if (dest == nullptr || dest_max == 0 || dest_max > SECUREC_MEM_MAX_LEN) return EINVAL;
  if (src == nullptr) {
    dest[0] = '\0';
    return EINVAL_AND_RESET;
  }
  size_t len = std::strlen(src);
  if (len > count) len = count;
  if (len >= dest_max) {
    dest[0] = '\0';
    return ERANGE_AND_RESET;
  }
  std::memcpy(dest, src, len);
  dest[len] = '\0';
  return EOK;
}

inline errno_t strcpy_s(char *dest, size_t dest_max, const char *src) {
  return strncpy_s(dest, dest_max, src, src == nullptr ? 0 : std::strlen(src));
}

inline errno_t strcat_s(char *dest, size_t dest_max, const char *src) {
  if (dest == nullptr || dest_max == 0 || dest_max > SECUREC_MEM_MAX_LEN) return EINVAL;
  size_t used = strnlen(dest, dest_max);
  if (used == dest_max) {
    dest[0] = '\0';
    return EINVAL_AND_RESET;
  }
  errno_t ret = strcpy_s(dest + used, dest_max - used, src);
  if (ret != EOK) dest[0] = '\0';
  return ret;
}

// Returns the number of characters written, or -1 when they do not fit (the destination is then cleared).
inline int vsnprintf_s(char *dest, size_t dest_max, size_t count, const char *format, va_list args) {
  if (dest == nullptr || dest_max == 0 || format == nullptr) return -1;
  size_t limit = count < dest_max - 1 ? count + 1 : dest_max;
  int written = std::vsnprintf(dest, limit, format, args);
  if (written < 0 || static_cast<size_t>(written) >= limit) {
    if (count < dest_max && written >= 0) return static_cast<int>(limit - 1);  // truncated as asked
    dest[0] = '\0';
    return -1;
  }
  return written;
}

inline int snprintf_s(char *dest, size_t dest_max, size_t count, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int ret = vsnprintf_s(dest, dest_max, count, format, args);
  va_end(args);
  return ret;
}

inline int vsprintf_s(char *dest, size_t dest_max, const char *format, va_list args) {
  if (dest == nullptr || dest_max == 0 || format == nullptr) return -1;
  int written = std::vsnprintf(dest, dest_max, format, args);
  if (written < 0 || static_cast<size_t>(written) >= dest_max) {
    dest[0] = '\0';
    return -1;
  }
  return written;
}

inline int sprintf_s(char *dest, size_t dest_max, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int ret = vsprintf_s(dest, dest_max, format, args);
  va_end(args);
  return ret;
}

#endif  // NPUSIM_AICPU_SECUREC_H
