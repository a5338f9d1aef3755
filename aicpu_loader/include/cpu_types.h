// npusim AICPU compatibility header: data types, formats and device kinds of the CANN kernel API.
// Written for npusim from the published facts of the API (names and enum values); no CANN header text.
#ifndef NPUSIM_AICPU_CPU_TYPES_H
#define NPUSIM_AICPU_CPU_TYPES_H

// Real kernels rely on these standard headers arriving through the API headers.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

// Kernels may decorate their own classes with this; npusim links the runtime into each kernel library, so
// nothing needs exporting and the macro is empty.
#ifndef AICPU_VISIBILITY
#define AICPU_VISIBILITY
#endif

namespace aicpu {

enum DataType {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_UINT16 = 7,
  DT_UINT32 = 8,
  DT_INT64 = 9,
  DT_UINT64 = 10,
  DT_DOUBLE = 11,
  DT_BOOL = 12,
  DT_STRING = 13,
  DT_DUAL_SUB_INT8 = 14,
  DT_DUAL_SUB_UINT8 = 15,
  DT_COMPLEX64 = 16,
  DT_COMPLEX128 = 17,
  DT_QINT8 = 18,
  DT_QINT16 = 19,
  DT_QINT32 = 20,
  DT_QUINT8 = 21,
  DT_QUINT16 = 22,
  DT_RESOURCE = 23,
  DT_STRING_REF = 24,
  DT_DUAL = 25,
  DT_BFLOAT16 = 27,
  DT_UNDEFINED = 28,
};

// Bytes per element of a data type; -1 for types without a fixed element size (strings, resources).
inline int GetSizeByDataType(DataType data_type) {
  switch (data_type) {
    case DT_INT8: case DT_UINT8: case DT_BOOL: case DT_QINT8: case DT_QUINT8:
    case DT_DUAL_SUB_INT8: case DT_DUAL_SUB_UINT8:
      return 1;
    case DT_FLOAT16: case DT_BFLOAT16: case DT_INT16: case DT_UINT16: case DT_QINT16: case DT_QUINT16:
      return 2;
    case DT_FLOAT: case DT_INT32: case DT_UINT32: case DT_QINT32:
      return 4;
    case DT_DUAL:
      return 5;
    case DT_DOUBLE: case DT_INT64: case DT_UINT64: case DT_COMPLEX64:
      return 8;
    case DT_COMPLEX128:
      return 16;
    default:
      return -1;
  }
}

enum Format {
  FORMAT_NCHW = 0,
  FORMAT_NHWC,
  FORMAT_ND,
  FORMAT_NC1HWC0,
  FORMAT_FRACTAL_Z,
  FORMAT_NC1C0HWPAD,
  FORMAT_NHWC1C0,
  FORMAT_FSR_NCHW,
  FORMAT_FRACTAL_DECONV,
  FORMAT_C1HWNC0,
  FORMAT_FRACTAL_DECONV_TRANSPOSE,
  FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS,
  FORMAT_NC1HWC0_C04,
  FORMAT_FRACTAL_Z_C04,
  FORMAT_CHWN,
  FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS,
  FORMAT_HWCN,
  FORMAT_NC1KHKWHWC0,
  FORMAT_BN_WEIGHT,
  FORMAT_FILTER_HWCK,
  FORMAT_HASHTABLE_LOOKUP_LOOKUPS = 20,
  FORMAT_HASHTABLE_LOOKUP_KEYS,
  FORMAT_HASHTABLE_LOOKUP_VALUE,
  FORMAT_HASHTABLE_LOOKUP_OUTPUT,
  FORMAT_HASHTABLE_LOOKUP_HITS = 24,
  FORMAT_C1HWNCoC0,
  FORMAT_MD,
  FORMAT_NDHWC,
  FORMAT_FRACTAL_ZZ,
  FORMAT_FRACTAL_NZ,
  FORMAT_NCDHW,
  FORMAT_DHWCN,
  FORMAT_NDC1HWC0,
  FORMAT_FRACTAL_Z_3D,
  FORMAT_CN,
  FORMAT_NC,
  FORMAT_DHWNC,
  FORMAT_FRACTAL_Z_3D_TRANSPOSE,
  FORMAT_FRACTAL_ZN_LSTM,
  FORMAT_FRACTAL_Z_G,
  FORMAT_RESERVED,
  FORMAT_ALL,
  FORMAT_NULL,
  FORMAT_END,
  FORMAT_MAX = 0xff
};

enum DeviceType { HOST, DEVICE };

}  // namespace aicpu
#endif  // NPUSIM_AICPU_CPU_TYPES_H
