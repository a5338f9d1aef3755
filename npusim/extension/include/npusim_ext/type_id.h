/**
 * `mindspore::TypeId`: MindSpore's data type identifiers (the values Python passes as ints: Bool=30, Int8=32,
 * Int16=33, Int32=34, Int64=35, UInt8=37, Float16=42, Float32=43, Float64=44, BFloat16=45), their sizes and names.
 */
#ifndef NPUSIM_EXT_TYPE_ID_H_
#define NPUSIM_EXT_TYPE_ID_H_

#include <cstddef>
#include <string>

namespace mindspore {
enum TypeId : int {
  kTypeUnknown = 0,
  kMetaTypeBegin = kTypeUnknown,
  kMetaTypeType,
  kMetaTypeAny,
  kMetaTypeObject,
  kMetaTypeTypeType,
  kMetaTypeProblem,
  kMetaTypeExternal,
  kMetaTypeNone,
  kMetaTypeNull,
  kMetaTypeEllipsis,
  kMetaTypeEnd,
  kObjectTypeBegin = kMetaTypeEnd,
  kObjectTypeNumber,
  kObjectTypeString,
  kObjectTypeList,
  kObjectTypeTuple,
  kObjectTypeSlice,
  kObjectTypeKeyword,
  kObjectTypeTensorType,
  kObjectTypeRowTensorType,
  kObjectTypeCOOTensorType,
  kObjectTypeUndeterminedType,
  kObjectTypeClass,
  kObjectTypeDictionary,
  kObjectTypeFunction,
  kObjectTypeJTagged,
  kObjectTypeSymbolicKeyType,
  kObjectTypeEnvType,
  kObjectTypeRefKey,
  kObjectTypeRef,
  kObjectTypeEnd,
  kNumberTypeBegin = kObjectTypeEnd,
  kNumberTypeBool,       // 30
  kNumberTypeInt,        // 31
  kNumberTypeInt8,       // 32
  kNumberTypeInt16,      // 33
  kNumberTypeInt32,      // 34
  kNumberTypeInt64,      // 35
  kNumberTypeUInt,       // 36
  kNumberTypeUInt8,      // 37
  kNumberTypeUInt16,     // 38
  kNumberTypeUInt32,     // 39
  kNumberTypeUInt64,     // 40
  kNumberTypeFloat,      // 41
  kNumberTypeFloat16,    // 42
  kNumberTypeFloat32,    // 43
  kNumberTypeFloat64,    // 44
  kNumberTypeBFloat16,   // 45
  kNumberTypeDouble,     // 46
  kNumberTypeComplex,    // 47
  kNumberTypeComplex64,  // 48
  kNumberTypeComplex128, // 49
  kNumberTypeInt4,       // 50
  kNumberTypeGLUInt,     // 51
  kNumberTypeEnd,
  kMonadTypeBegin = kNumberTypeEnd,
  kObjectTypeMonad,
  kObjectTypeUMonad,
  kObjectTypeIOMonad,
  kMonadTypeEnd,
  kSparseTypeBegin = kMonadTypeEnd,
  kObjectTypeCSRTensorType,
  kObjectTypeSparseTensorType,
  kObjectTypeMapTensorType,
  kSparseTypeEnd,
};

namespace npusim_ext {
/// The numpy dtype name of a tensor type, or nullptr when npusim's numpy-backed tensors cannot hold it.
inline const char *NumpyName(TypeId type) {
  switch (type) {
    case kNumberTypeBool: return "bool";
    case kNumberTypeInt8: return "int8";
    case kNumberTypeInt16: return "int16";
    case kNumberTypeInt32: return "int32";
    case kNumberTypeInt64: return "int64";
    case kNumberTypeUInt8: return "uint8";
    case kNumberTypeUInt16: return "uint16";
    case kNumberTypeUInt32: return "uint32";
    case kNumberTypeUInt64: return "uint64";
    case kNumberTypeFloat16: return "float16";
    case kNumberTypeFloat32: return "float32";
    case kNumberTypeFloat64: return "float64";
    case kNumberTypeDouble: return "float64";
    case kNumberTypeComplex64: return "complex64";
    case kNumberTypeComplex128: return "complex128";
    default: return nullptr;
  }
}

/// MindSpore's name of a type ("Float32", "Int64" ...), for messages.
inline std::string TypeIdName(TypeId type) {
  switch (type) {
    case kNumberTypeBool: return "Bool";
    case kNumberTypeInt8: return "Int8";
    case kNumberTypeInt16: return "Int16";
    case kNumberTypeInt32: return "Int32";
    case kNumberTypeInt64: return "Int64";
    case kNumberTypeUInt8: return "UInt8";
    case kNumberTypeUInt16: return "UInt16";
    case kNumberTypeUInt32: return "UInt32";
    case kNumberTypeUInt64: return "UInt64";
    case kNumberTypeFloat16: return "Float16";
    case kNumberTypeFloat32: return "Float32";
    case kNumberTypeFloat64: return "Float64";
    case kNumberTypeBFloat16: return "BFloat16";
    case kNumberTypeDouble: return "Float64";
    case kNumberTypeComplex64: return "Complex64";
    case kNumberTypeComplex128: return "Complex128";
    default: return "TypeId(" + std::to_string(static_cast<int>(type)) + ")";
  }
}

/// Bytes per element (0 for non-tensor types).
inline size_t TypeIdSize(TypeId type) {
  switch (type) {
    case kNumberTypeBool:
    case kNumberTypeInt8:
    case kNumberTypeUInt8: return 1;
    case kNumberTypeInt16:
    case kNumberTypeUInt16:
    case kNumberTypeFloat16:
    case kNumberTypeBFloat16: return 2;
    case kNumberTypeInt32:
    case kNumberTypeUInt32:
    case kNumberTypeFloat32: return 4;
    case kNumberTypeInt64:
    case kNumberTypeUInt64:
    case kNumberTypeFloat64:
    case kNumberTypeDouble:
    case kNumberTypeComplex64: return 8;
    case kNumberTypeComplex128: return 16;
    default: return 0;
  }
}

/// The TypeId of a numpy dtype given by its kind character and item size (kTypeUnknown when MindSpore has none).
inline TypeId TypeIdOfNumpy(char kind, size_t itemsize) {
  switch (kind) {
    case 'b': return kNumberTypeBool;
    case 'i':
      return itemsize == 1 ? kNumberTypeInt8 : itemsize == 2 ? kNumberTypeInt16 : itemsize == 4 ? kNumberTypeInt32
             : itemsize == 8 ? kNumberTypeInt64 : kTypeUnknown;
    case 'u':
      return itemsize == 1 ? kNumberTypeUInt8 : itemsize == 2 ? kNumberTypeUInt16
             : itemsize == 4 ? kNumberTypeUInt32 : itemsize == 8 ? kNumberTypeUInt64 : kTypeUnknown;
    case 'f':
      return itemsize == 2 ? kNumberTypeFloat16 : itemsize == 4 ? kNumberTypeFloat32
             : itemsize == 8 ? kNumberTypeFloat64 : kTypeUnknown;
    case 'c': return itemsize == 8 ? kNumberTypeComplex64 : itemsize == 16 ? kNumberTypeComplex128 : kTypeUnknown;
    default: return kTypeUnknown;
  }
}
}  // namespace npusim_ext
}  // namespace mindspore

#endif  // NPUSIM_EXT_TYPE_ID_H_
