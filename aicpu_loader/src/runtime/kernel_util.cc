// The non-inline helpers of utils/kernel_util.h.
//
// Every function here is a weak definition (NPUSIM_OVERRIDABLE): kernel libraries that ship their own copy of
// canndev's / MindSpore's kernel_util.cc link with the runtime archive (--whole-archive) without duplicate
// symbols, and their definitions are the ones that run, for their kernels and for the helpers here that call
// one another.  The non-const-context overloads forward to the const ones.
#include "utils/kernel_util.h"

#include <string>
#include <utility>

#define NPUSIM_OVERRIDABLE __attribute__((weak))

namespace aicpu {
namespace {

const std::pair<DataType, const char *> kDataTypeNames[] = {
    {DT_FLOAT, "DT_FLOAT"},         {DT_FLOAT16, "DT_FLOAT16"},       {DT_INT8, "DT_INT8"},
    {DT_INT16, "DT_INT16"},         {DT_UINT16, "DT_UINT16"},         {DT_UINT8, "DT_UINT8"},
    {DT_INT32, "DT_INT32"},         {DT_INT64, "DT_INT64"},           {DT_UINT32, "DT_UINT32"},
    {DT_UINT64, "DT_UINT64"},       {DT_BOOL, "DT_BOOL"},             {DT_DOUBLE, "DT_DOUBLE"},
    {DT_STRING, "DT_STRING"},       {DT_DUAL_SUB_INT8, "DT_DUAL_SUB_INT8"},
    {DT_DUAL_SUB_UINT8, "DT_DUAL_SUB_UINT8"}, {DT_COMPLEX64, "DT_COMPLEX64"}, {DT_COMPLEX128, "DT_COMPLEX128"},
    {DT_QINT8, "DT_QINT8"},         {DT_QINT16, "DT_QINT16"},         {DT_QINT32, "DT_QINT32"},
    {DT_QUINT8, "DT_QUINT8"},       {DT_QUINT16, "DT_QUINT16"},       {DT_RESOURCE, "DT_RESOURCE"},
    {DT_STRING_REF, "DT_STRING_REF"}, {DT_DUAL, "DT_DUAL"},           {DT_BFLOAT16, "DT_BFLOAT16"},
    {DT_UNDEFINED, "DT_UNDEFINED"},
};

const std::pair<Format, const char *> kFormatNames[] = {
    {FORMAT_NCHW, "NCHW"},         {FORMAT_NHWC, "NHWC"},           {FORMAT_ND, "ND"},
    {FORMAT_NC1HWC0, "NC1HWC0"},   {FORMAT_FRACTAL_Z, "FRACTAL_Z"}, {FORMAT_C1HWNC0, "C1HWNC0"},
    {FORMAT_NC1HWC0_C04, "NC1HWC0_C04"}, {FORMAT_FRACTAL_Z_C04, "FRACTAL_Z_C04"}, {FORMAT_CHWN, "CHWN"},
    {FORMAT_HWCN, "HWCN"},         {FORMAT_C1HWNCoC0, "C1HWNCoC0"}, {FORMAT_MD, "MD"},
    {FORMAT_NDHWC, "NDHWC"},       {FORMAT_FRACTAL_ZZ, "FRACTAL_ZZ"}, {FORMAT_FRACTAL_NZ, "FRACTAL_NZ"},
    {FORMAT_NCDHW, "NCDHW"},       {FORMAT_DHWCN, "DHWCN"},         {FORMAT_NDC1HWC0, "NDC1HWC0"},
    {FORMAT_FRACTAL_Z_3D, "FRACTAL_Z_3D"}, {FORMAT_CN, "CN"},       {FORMAT_NC, "NC"},
    {FORMAT_DHWNC, "DHWNC"},       {FORMAT_FRACTAL_ZN_LSTM, "FRACTAL_ZN_LSTM"},
};

bool HasData(const Tensor *tensor) {
  return tensor != nullptr && (tensor->GetData() != nullptr || tensor->NumElements() == 0);
}

const char *FormatName(Format format) {
  for (const auto &entry : kFormatNames) {
    if (entry.first == static_cast<Format>(GetPrimaryFormat(format))) return entry.second;
  }
  return nullptr;
}

// "NCHW", "NCHW:3" for sub-format 3, nullptr for an unknown primary format.
bool SerialName(Format format, std::string &name) {
  const char *primary = FormatName(format);
  if (primary == nullptr) return false;
  name = primary;
  if (HasSubFormat(format)) name += ":" + std::to_string(GetSubFormat(format));
  return true;
}

}  // namespace

NPUSIM_OVERRIDABLE std::string FormatToSerialString(Format format) {
  std::string name;
  if (SerialName(format, name)) return name;
  KERNEL_LOG_ERROR("Format not supported: %d.", static_cast<int>(format));
  return "UNDEFINED";
}

NPUSIM_OVERRIDABLE std::string FormatToSerialString(CpuKernelContext &ctx, Format format) {
  std::string name;
  if (SerialName(format, name)) return name;
  CUST_KERNEL_LOG_ERROR(ctx, "Format not supported: %d.", static_cast<int>(format));
  return "UNDEFINED";
}

NPUSIM_OVERRIDABLE std::string GetOpName(CpuKernelContext &ctx) {
  const std::string prefix = "Cust";
  std::string op_name = ctx.GetOpType();
  if (op_name.compare(0, prefix.size(), prefix) == 0) op_name.erase(0, prefix.size());
  return op_name;
}

NPUSIM_OVERRIDABLE bool IsEmptyTensor(Tensor *tensor) { return tensor != nullptr && tensor->NumElements() == 0; }

NPUSIM_OVERRIDABLE uint32_t NormalMathCheck(const CpuKernelContext &ctx) {
  const uint32_t kInputs = 2;
  const uint32_t kOutputs = 1;
  if (ctx.GetInputsSize() != kInputs || ctx.GetOutputsSize() != kOutputs) {
    KERNEL_LOG_ERROR("[%s] expects %u inputs and %u output, but got %u and %u.", ctx.GetOpType().c_str(), kInputs,
                     kOutputs, ctx.GetInputsSize(), ctx.GetOutputsSize());
    return KERNEL_STATUS_PARAM_INVALID;
  }
  for (uint32_t i = 0; i < kInputs; ++i) {
    KERNEL_CHECK_FALSE(HasData(ctx.Input(i)), KERNEL_STATUS_PARAM_INVALID, "[%s] input %u has no data.",
                       ctx.GetOpType().c_str(), i);
  }
  KERNEL_CHECK_FALSE(HasData(ctx.Output(0)), KERNEL_STATUS_PARAM_INVALID, "[%s] output 0 has no data.",
                     ctx.GetOpType().c_str());
  return KERNEL_STATUS_OK;
}

NPUSIM_OVERRIDABLE uint32_t NormalMathCheck(CpuKernelContext &ctx) {
  return NormalMathCheck(static_cast<const CpuKernelContext &>(ctx));
}

NPUSIM_OVERRIDABLE uint32_t NormalCheck(const CpuKernelContext &ctx, const uint32_t inputs_num,
                                        const uint32_t outputs_num) {
  if (inputs_num != kDynamicInput) {
    KERNEL_CHECK_FALSE(ctx.GetInputsSize() == inputs_num, KERNEL_STATUS_PARAM_INVALID,
                       "[%s] expects %u inputs, but got %u.", ctx.GetOpType().c_str(), inputs_num,
                       ctx.GetInputsSize());
  }
  if (outputs_num != kDynamicOutput) {
    KERNEL_CHECK_FALSE(ctx.GetOutputsSize() == outputs_num, KERNEL_STATUS_PARAM_INVALID,
                       "[%s] expects %u outputs, but got %u.", ctx.GetOpType().c_str(), outputs_num,
                       ctx.GetOutputsSize());
  }
  for (uint32_t i = 0; i < ctx.GetInputsSize(); ++i) {
    KERNEL_CHECK_FALSE(HasData(ctx.Input(i)), KERNEL_STATUS_PARAM_INVALID, "[%s] input %u has no data.",
                       ctx.GetOpType().c_str(), i);
  }
  for (uint32_t i = 0; i < ctx.GetOutputsSize(); ++i) {
    KERNEL_CHECK_FALSE(HasData(ctx.Output(i)), KERNEL_STATUS_PARAM_INVALID, "[%s] output %u has no data.",
                       ctx.GetOpType().c_str(), i);
  }
  return KERNEL_STATUS_OK;
}

NPUSIM_OVERRIDABLE uint32_t NormalCheck(const CpuKernelContext &ctx, const uint32_t inputs_num,
                                        const uint32_t outputs_num, const std::vector<std::string> &attr_names) {
  uint32_t status = NormalCheck(ctx, inputs_num, outputs_num);
  if (status != KERNEL_STATUS_OK) return status;
  for (const std::string &name : attr_names) {
    KERNEL_CHECK_NULLPTR(ctx.GetAttr(name), KERNEL_STATUS_PARAM_INVALID, "[%s] has no attribute '%s'.",
                         ctx.GetOpType().c_str(), name.c_str());
  }
  return KERNEL_STATUS_OK;
}

NPUSIM_OVERRIDABLE uint32_t NormalCheck(CpuKernelContext &ctx, const uint32_t inputs_num,
                                        const uint32_t outputs_num) {
  return NormalCheck(static_cast<const CpuKernelContext &>(ctx), inputs_num, outputs_num);
}

NPUSIM_OVERRIDABLE uint32_t NormalCheck(CpuKernelContext &ctx, const uint32_t inputs_num,
                                        const uint32_t outputs_num, const std::vector<std::string> &attr_names) {
  return NormalCheck(static_cast<const CpuKernelContext &>(ctx), inputs_num, outputs_num, attr_names);
}

NPUSIM_OVERRIDABLE bool IsScalar(const std::vector<int64_t> &shape) { return shape.empty(); }
NPUSIM_OVERRIDABLE bool IsVector(const std::vector<int64_t> &shape) { return shape.size() == 1; }
NPUSIM_OVERRIDABLE bool IsMatrix(const std::vector<int64_t> &shape) { return shape.size() == 2; }
NPUSIM_OVERRIDABLE bool IsSquareMatrix(const std::vector<int64_t> &shape) {
  return shape.size() == 2 && shape[0] == shape[1];
}
NPUSIM_OVERRIDABLE bool IsVectorOrHigher(const std::vector<int64_t> &shape) { return !shape.empty(); }

NPUSIM_OVERRIDABLE bool AddrAlignedCheck(const void *addr, uint64_t alignment) {
  return alignment != 0 && reinterpret_cast<uintptr_t>(addr) % alignment == 0;
}

NPUSIM_OVERRIDABLE DataType DType(std::string dtype_str) {
  for (const auto &entry : kDataTypeNames) {
    if (dtype_str == entry.second) return entry.first;
  }
  return DT_UNDEFINED;
}

NPUSIM_OVERRIDABLE std::string DTypeStr(DataType dtype) {
  for (const auto &entry : kDataTypeNames) {
    if (dtype == entry.first) return entry.second;
  }
  return "DT_UNDEFINED";
}

NPUSIM_OVERRIDABLE uint32_t CheckTensorTypeSame(const std::map<std::string, DataType> &types,
                                                const DataType &check_type, const std::string &prim_name) {
  for (const auto &entry : types) {
    KERNEL_CHECK_FALSE(entry.second == check_type, KERNEL_STATUS_PARAM_INVALID,
                       "For primitive[%s]'s input '%s', the data type must be %s, but got %s.", prim_name.c_str(),
                       entry.first.c_str(), DTypeStr(check_type).c_str(), DTypeStr(entry.second).c_str());
  }
  return KERNEL_STATUS_OK;
}

NPUSIM_OVERRIDABLE uint32_t CheckTensorTypeSame(CpuKernelContext &, const std::map<std::string, DataType> &types,
                                                const DataType &check_type, const std::string &prim_name) {
  return CheckTensorTypeSame(types, check_type, prim_name);
}

NPUSIM_OVERRIDABLE uint32_t CheckTensorShapeSame(const std::map<std::string, TensorShapePtr> &shapes,
                                                 const std::vector<int64_t> &check_shape,
                                                 const std::string &prim_name) {
  for (const auto &entry : shapes) {
    KERNEL_CHECK_NULLPTR(entry.second, KERNEL_STATUS_PARAM_INVALID, "For primitive[%s], '%s' has no shape.",
                         prim_name.c_str(), entry.first.c_str());
    KERNEL_CHECK_FALSE(entry.second->GetDimSizes() == check_shape, KERNEL_STATUS_PARAM_INVALID,
                       "For primitive[%s]'s input '%s', the shape must be [%s], but got [%s].", prim_name.c_str(),
                       entry.first.c_str(), VectorToString(check_shape).c_str(),
                       VectorToString(entry.second->GetDimSizes()).c_str());
  }
  return KERNEL_STATUS_OK;
}

NPUSIM_OVERRIDABLE uint32_t CheckTensorShapeSame(CpuKernelContext &,
                                                 const std::map<std::string, TensorShapePtr> &shapes,
                                                 const std::vector<int64_t> &check_shape,
                                                 const std::string &prim_name) {
  return CheckTensorShapeSame(shapes, check_shape, prim_name);
}

}  // namespace aicpu
