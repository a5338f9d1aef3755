// A kernel library's own copy of the helper library's kernel_util.cc, as canndev's and MindSpore's kernel trees
// ship one (written for npusim's tests: the same functions and signatures as canndev's, its own bodies).  It
// defines the functions npusim's runtime also provides; the library must link, and its kernels run these.
// Observable differences from npusim's copies: NormalCheck wants at least (not exactly) `inputs_num` inputs,
// and every failure is logged with an "own kernel_util:" prefix.
#include "utils/kernel_util.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace aicpu {
namespace {
const std::map<Format, std::string> kOwnFormatNames = {
    {FORMAT_NCHW, "NCHW"}, {FORMAT_NHWC, "NHWC"}, {FORMAT_ND, "ND"}, {FORMAT_NC1HWC0, "NC1HWC0"},
    {FORMAT_FRACTAL_Z, "FRACTAL_Z"}, {FORMAT_HWCN, "HWCN"}, {FORMAT_NDHWC, "NDHWC"}, {FORMAT_NCDHW, "NCDHW"},
    {FORMAT_FRACTAL_NZ, "FRACTAL_NZ"},
};

const std::map<std::string, DataType> kOwnDataTypes = {
    {"DT_FLOAT", DT_FLOAT},   {"DT_FLOAT16", DT_FLOAT16}, {"DT_DOUBLE", DT_DOUBLE}, {"DT_INT8", DT_INT8},
    {"DT_INT16", DT_INT16},   {"DT_INT32", DT_INT32},     {"DT_INT64", DT_INT64},   {"DT_UINT8", DT_UINT8},
    {"DT_UINT16", DT_UINT16}, {"DT_UINT32", DT_UINT32},   {"DT_UINT64", DT_UINT64}, {"DT_BOOL", DT_BOOL},
    {"DT_UNDEFINED", DT_UNDEFINED},
};

uint32_t CheckTensors(CpuKernelContext &ctx, uint32_t count, bool inputs) {
  const char *what = inputs ? "input" : "output";
  for (uint32_t i = 0; i < count; ++i) {
    Tensor *tensor = inputs ? ctx.Input(i) : ctx.Output(i);
    KERNEL_CHECK_NULLPTR(tensor, KERNEL_STATUS_INNER_ERROR, "own kernel_util: [%s] %s %u is missing.",
                         ctx.GetOpType().c_str(), what, i)
    KERNEL_CHECK_NULLPTR(tensor->GetTensorShape(), KERNEL_STATUS_PARAM_INVALID,
                         "own kernel_util: [%s] %s %u has no shape.", ctx.GetOpType().c_str(), what, i)
    if (!IsEmptyTensor(tensor)) {
      KERNEL_CHECK_NULLPTR(tensor->GetData(), KERNEL_STATUS_PARAM_INVALID, "own kernel_util: [%s] %s %u has no data.",
                           ctx.GetOpType().c_str(), what, i)
    }
  }
  return KERNEL_STATUS_OK;
}
}  // namespace

std::string FormatToSerialString(Format format) {
  auto found = kOwnFormatNames.find(static_cast<Format>(GetPrimaryFormat(static_cast<int32_t>(format))));
  if (found == kOwnFormatNames.end()) {
    KERNEL_LOG_ERROR("own kernel_util: format %d is not supported.", static_cast<int>(format));
    return "UNDEFINED";
  }
  if (HasSubFormat(static_cast<int32_t>(format))) {
    return found->second + ":" + std::to_string(GetSubFormat(static_cast<int32_t>(format)));
  }
  return found->second;
}

bool IsEmptyTensor(Tensor *tensor) {
  if (tensor->GetData() != nullptr) return false;
  std::vector<int64_t> dims = tensor->GetTensorShape()->GetDimSizes();
  return std::find(dims.begin(), dims.end(), 0) != dims.end();
}

uint32_t NormalMathCheck(CpuKernelContext &ctx) {
  KERNEL_CHECK_FALSE(ctx.GetInputsSize() == 2 && ctx.GetOutputsSize() == 1, KERNEL_STATUS_PARAM_INVALID,
                     "own kernel_util: [%s] wants 2 inputs and 1 output, got %u and %u.", ctx.GetOpType().c_str(),
                     ctx.GetInputsSize(), ctx.GetOutputsSize())
  KERNEL_CHECK_FALSE(ctx.Input(0)->GetDataType() == ctx.Input(1)->GetDataType(), KERNEL_STATUS_PARAM_INVALID,
                     "own kernel_util: [%s] inputs differ in data type.", ctx.GetOpType().c_str())
  return KERNEL_STATUS_OK;
}

uint32_t NormalCheck(CpuKernelContext &ctx, const uint32_t inputs_num, const uint32_t outputs_num) {
  if (inputs_num != kDynamicInput) {
    KERNEL_CHECK_FALSE(ctx.GetInputsSize() >= inputs_num, KERNEL_STATUS_PARAM_INVALID,
                       "own kernel_util: [%s] needs at least %u inputs, got %u.", ctx.GetOpType().c_str(),
                       inputs_num, ctx.GetInputsSize())
    KERNEL_HANDLE_ERROR(CheckTensors(ctx, inputs_num, true), "own kernel_util: [%s] bad input.",
                        ctx.GetOpType().c_str())
  }
  if (outputs_num != kDynamicOutput) {
    KERNEL_CHECK_FALSE(ctx.GetOutputsSize() == outputs_num, KERNEL_STATUS_PARAM_INVALID,
                       "own kernel_util: [%s] needs %u outputs, got %u.", ctx.GetOpType().c_str(), outputs_num,
                       ctx.GetOutputsSize())
    KERNEL_HANDLE_ERROR(CheckTensors(ctx, outputs_num, false), "own kernel_util: [%s] bad output.",
                        ctx.GetOpType().c_str())
  }
  return KERNEL_STATUS_OK;
}

uint32_t NormalCheck(CpuKernelContext &ctx, const uint32_t inputs_num, const uint32_t outputs_num,
                     const std::vector<std::string> &attr_names) {
  KERNEL_HANDLE_ERROR(NormalCheck(ctx, inputs_num, outputs_num), "own kernel_util: [%s] check failed.",
                      ctx.GetOpType().c_str())
  for (const auto &name : attr_names) {
    KERNEL_CHECK_NULLPTR(ctx.GetAttr(name), KERNEL_STATUS_PARAM_INVALID, "own kernel_util: [%s] lacks attr %s.",
                         ctx.GetOpType().c_str(), name.c_str())
  }
  return KERNEL_STATUS_OK;
}

bool IsScalar(const std::vector<int64_t> &shape) { return shape.size() == 0; }

bool IsVector(const std::vector<int64_t> &shape) { return shape.size() == 1; }

bool IsMatrix(const std::vector<int64_t> &shape) { return shape.size() == 2; }

bool IsSquareMatrix(const std::vector<int64_t> &shape) { return IsMatrix(shape) && shape[0] == shape[1]; }

bool AddrAlignedCheck(const void *addr, uint64_t alignment) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(addr)) % alignment == 0;
}

bool IsVectorOrHigher(const std::vector<int64_t> &shape) { return shape.size() >= 1; }

DataType DType(std::string dtype_str) {
  auto found = kOwnDataTypes.find(dtype_str);
  return found == kOwnDataTypes.end() ? DT_UNDEFINED : found->second;
}

std::string DTypeStr(DataType dtype) {
  for (const auto &entry : kOwnDataTypes) {
    if (entry.second == dtype) return entry.first;
  }
  return "DT_UNDEFINED";
}

uint32_t CheckTensorTypeSame(const std::map<std::string, DataType> &types, const DataType &check_type,
                             const std::string &prim_name) {
  KERNEL_CHECK_FALSE(!types.empty(), KERNEL_STATUS_PARAM_INVALID, "own kernel_util: %s: no types to check.",
                     prim_name.c_str())
  for (const auto &entry : types) {
    KERNEL_CHECK_FALSE(entry.second == check_type, KERNEL_STATUS_PARAM_INVALID,
                       "own kernel_util: %s: %s is %s, not %s.", prim_name.c_str(), entry.first.c_str(),
                       DTypeStr(entry.second).c_str(), DTypeStr(check_type).c_str())
  }
  return KERNEL_STATUS_OK;
}

uint32_t CheckTensorShapeSame(const std::map<std::string, TensorShapePtr> &shapes,
                              const std::vector<int64_t> &check_shape, const std::string &prim_name) {
  KERNEL_CHECK_FALSE(!shapes.empty(), KERNEL_STATUS_PARAM_INVALID, "own kernel_util: %s: no shapes to check.",
                     prim_name.c_str())
  for (const auto &entry : shapes) {
    KERNEL_CHECK_NULLPTR(entry.second, KERNEL_STATUS_PARAM_INVALID, "own kernel_util: %s: %s has no shape.",
                         prim_name.c_str(), entry.first.c_str())
    KERNEL_CHECK_FALSE(entry.second->GetDimSizes() == check_shape, KERNEL_STATUS_PARAM_INVALID,
                       "own kernel_util: %s: %s is shaped (%s), not (%s).", prim_name.c_str(), entry.first.c_str(),
                       VectorToString(entry.second->GetDimSizes()).c_str(), VectorToString(check_shape).c_str())
  }
  return KERNEL_STATUS_OK;
}
}  // namespace aicpu
