// Decoding a call request into a CpuKernelContext, and encoding the outputs' final shapes afterwards.
// The byte layout is described in npusim_aicpu/call_abi.h and written by aicpu_loader/protocol.py.
#include <cstring>

#include "rt_internal.h"

namespace aicpu {
namespace npusim_rt {
namespace {

constexpr uint32_t kMaxRank = 64;
constexpr uint32_t kMaxCount = 1u << 24;

class Reader {
 public:
  Reader(const uint8_t *data, uint64_t size) : pos_(data), end_(data + size) {}

  template <typename T>
  T Get() {
    T value{};
    if (!Need(sizeof(T))) return value;
    std::memcpy(&value, pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  std::string Str() {
    uint32_t length = Get<uint32_t>();
    if (!Need(length)) return std::string();
    std::string value(reinterpret_cast<const char *>(pos_), length);
    pos_ += length;
    return value;
  }

  uint32_t Count() {
    uint32_t count = Get<uint32_t>();
    if (count > kMaxCount) ok_ = false;
    return ok_ ? count : 0;
  }

  bool ok() const { return ok_; }

 private:
  bool Need(uint64_t bytes) {
    if (!ok_ || static_cast<uint64_t>(end_ - pos_) < bytes) {
      ok_ = false;
      return false;
    }
    return true;
  }

  const uint8_t *pos_;
  const uint8_t *end_;
  bool ok_ = true;
};

bool ReadTensor(Reader &in, const NpusimAicpuCall &call, std::shared_ptr<Tensor> &tensor, OutputSlot &slot,
                std::string &error) {
  int32_t dtype = in.Get<int32_t>();
  int32_t format = in.Get<int32_t>();
  uint32_t flags = in.Get<uint32_t>();
  uint32_t rank = in.Get<uint32_t>();
  uint64_t offset = in.Get<uint64_t>();
  uint64_t size_bytes = in.Get<uint64_t>();
  if (!in.ok() || rank > kMaxRank) {
    error = "truncated or malformed tensor description";
    return false;
  }
  std::vector<int64_t> dims(rank);
  for (uint32_t i = 0; i < rank; ++i) dims[i] = in.Get<int64_t>();
  if (!in.ok() || offset > call.arena_size || size_bytes > call.arena_size - offset) {
    error = "tensor lies outside the shared memory arena";
    return false;
  }
  tensor = Access::NewTensor();
  tensor->SetDataType(static_cast<DataType>(dtype));
  tensor->SetData(call.arena + offset);
  tensor->SetDataSize(size_bytes);
  std::shared_ptr<TensorShape> shape = tensor->GetTensorShape();
  shape->SetFormat(static_cast<Format>(format));
  shape->SetUnknownRank((flags & 1u) != 0);
  shape->SetDimSizes(dims);
  slot.buffer = call.arena + offset;
  slot.capacity_bytes = size_bytes;
  return true;
}

template <typename T>
std::vector<T> ReadList(Reader &in) {
  uint32_t count = in.Count();
  std::vector<T> values;
  values.reserve(count);
  for (uint32_t i = 0; i < count && in.ok(); ++i) values.push_back(in.Get<T>());
  return values;
}

bool ReadAttrPayload(Reader &in, uint32_t kind, AttrValue &attr) {
  switch (kind) {
    case NPUSIM_ATTR_INT: attr.SetInt(in.Get<int64_t>()); break;
    case NPUSIM_ATTR_FLOAT: attr.SetFloat(in.Get<float>()); break;
    case NPUSIM_ATTR_BOOL: attr.SetBool(in.Get<uint8_t>() != 0); break;
    case NPUSIM_ATTR_STR: attr.SetString(in.Str()); break;
    case NPUSIM_ATTR_DTYPE: attr.SetDataType(static_cast<DataType>(in.Get<int32_t>())); break;
    case NPUSIM_ATTR_LIST_INT: attr.SetListInt(ReadList<int64_t>(in)); break;
    case NPUSIM_ATTR_LIST_FLOAT: attr.SetListFloat(ReadList<float>(in)); break;
    case NPUSIM_ATTR_LIST_BOOL: {
      std::vector<bool> values;
      for (uint8_t v : ReadList<uint8_t>(in)) values.push_back(v != 0);
      attr.SetListBool(values);
      break;
    }
    case NPUSIM_ATTR_LIST_STR: {
      uint32_t count = in.Count();
      std::vector<std::string> values;
      for (uint32_t i = 0; i < count && in.ok(); ++i) values.push_back(in.Str());
      attr.SetListString(values);
      break;
    }
    case NPUSIM_ATTR_LIST_DTYPE: {
      std::vector<DataType> values;
      for (int32_t v : ReadList<int32_t>(in)) values.push_back(static_cast<DataType>(v));
      attr.SetListDataType(values);
      break;
    }
    case NPUSIM_ATTR_LIST_LIST_INT: {
      uint32_t count = in.Count();
      std::vector<std::vector<int64_t>> values;
      for (uint32_t i = 0; i < count && in.ok(); ++i) values.push_back(ReadList<int64_t>(in));
      attr.SetListListInt(values);
      break;
    }
    default:
      return false;
  }
  return in.ok();
}

}  // namespace

bool DecodeRequest(const NpusimAicpuCall &call, DecodedCall &out, std::string &error) {
  if (call.request == nullptr || call.request_size < 4 ||
      std::memcmp(call.request, NPUSIM_AICPU_REQUEST_MAGIC, 4) != 0) {
    error = "request does not start with the npusim AICPU magic";
    return false;
  }
  Reader in(call.request + 4, call.request_size - 4);
  uint32_t n_inputs = in.Count();
  uint32_t n_outputs = in.Count();
  uint32_t n_attrs = in.Count();
  std::string op_type = in.Str();
  if (!in.ok()) {
    error = "truncated request header";
    return false;
  }
  out.ctx.reset(new CpuKernelContext(DEVICE));
  Access::SetOpType(*out.ctx, op_type);
  for (uint32_t i = 0; i < n_inputs + n_outputs; ++i) {
    std::shared_ptr<Tensor> tensor;
    OutputSlot slot;
    if (!ReadTensor(in, call, tensor, slot, error)) return false;
    if (i < n_inputs) {
      Access::AddInput(*out.ctx, tensor);
    } else {
      Access::AddOutput(*out.ctx, tensor);
      out.outputs.push_back(slot);
    }
  }
  for (uint32_t i = 0; i < n_attrs; ++i) {
    std::string name = in.Str();
    uint32_t kind = in.Get<uint32_t>();
    std::shared_ptr<AttrValue> attr = Access::NewAttr();
    if (!in.ok() || !ReadAttrPayload(in, kind, *attr)) {
      error = "malformed attribute '" + name + "' (kind " + std::to_string(kind) + ")";
      return false;
    }
    Access::AddAttr(*out.ctx, name, attr);
  }
  return true;
}

namespace {

std::string DimsText(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

// Validates output `index` and moves its data into the shared buffer if the kernel re-pointed it.
uint32_t FinishOutput(const Tensor &tensor, const OutputSlot &slot, size_t index, uint64_t &size_bytes,
                      std::string &error) {
  std::vector<int64_t> dims = tensor.GetTensorShape()->GetDimSizes();
  for (int64_t dim : dims) {
    if (dim < 0) {
      error = "output " + std::to_string(index) + " still has shape " + DimsText(dims) +
              " after Compute: a kernel must set the shape of a dynamic output";
      return NPUSIM_RT_OUTPUT_UNSET;
    }
  }
  int64_t count = 1;
  for (int64_t dim : dims) count = (dim != 0 && count > INT64_MAX / dim) ? -1 : count * dim;
  int element_size = GetSizeByDataType(tensor.GetDataType());
  if (count < 0 || element_size < 0) {
    error = "output " + std::to_string(index) + " has shape " + DimsText(dims) + " and data type " +
            std::to_string(static_cast<int>(tensor.GetDataType())) + " whose size cannot be computed";
    return NPUSIM_RT_OUTPUT_OVERFLOW;
  }
  size_bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(element_size);
  if (size_bytes > slot.capacity_bytes) {
    error = "output " + std::to_string(index) + " was set to shape " + DimsText(dims) + ", which needs " +
            std::to_string(size_bytes) + " bytes, but its buffer holds " + std::to_string(slot.capacity_bytes);
    return NPUSIM_RT_OUTPUT_OVERFLOW;
  }
  if (tensor.GetData() != slot.buffer && tensor.GetData() != nullptr && size_bytes != 0) {
    std::memmove(slot.buffer, tensor.GetData(), size_bytes);
  }
  return NPUSIM_RT_OK;
}

}  // namespace

uint32_t EncodeResults(NpusimAicpuCall &call, const DecodedCall &decoded, std::string &error) {
  uint64_t used = 0;
  auto put = [&](const void *data, uint64_t bytes) {
    if (used + bytes > call.result_capacity) return false;
    std::memcpy(call.result + used, data, bytes);
    used += bytes;
    return true;
  };
  for (size_t i = 0; i < decoded.outputs.size(); ++i) {
    const Tensor &tensor = *decoded.ctx->Output(static_cast<uint32_t>(i));
    uint64_t size_bytes = 0;
    uint32_t status = FinishOutput(tensor, decoded.outputs[i], i, size_bytes, error);
    if (status != NPUSIM_RT_OK) return status;
    std::vector<int64_t> dims = tensor.GetTensorShape()->GetDimSizes();
    int32_t dtype = static_cast<int32_t>(tensor.GetDataType());
    uint32_t rank = static_cast<uint32_t>(dims.size());
    bool fits = put(&dtype, sizeof(dtype)) && put(&rank, sizeof(rank)) && put(&size_bytes, sizeof(size_bytes)) &&
                put(dims.data(), sizeof(int64_t) * dims.size());
    if (!fits) {
      error = "output descriptions exceed the result buffer";
      return NPUSIM_RT_BAD_REQUEST;
    }
  }
  call.result_size = used;
  return NPUSIM_RT_OK;
}

}  // namespace npusim_rt
}  // namespace aicpu
