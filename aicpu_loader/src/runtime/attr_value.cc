// AttrValue of npusim's AICPU runtime: plain storage, one slot per value kind.
#include "rt_internal.h"

namespace aicpu {

std::string AttrValue::GetString() const { return s_; }
std::vector<std::string> AttrValue::GetListString() const { return list_s_; }
void AttrValue::AddListString(const std::string &value) { list_s_.push_back(value); }
int32_t AttrValue::ListStringSize() const { return static_cast<int32_t>(list_s_.size()); }
void AttrValue::SetString(const std::string &value) { s_ = value; }
void AttrValue::SetListString(const std::vector<std::string> &values) { list_s_ = values; }

int64_t AttrValue::GetInt() const { return i_; }
std::vector<int64_t> AttrValue::GetListInt() const { return list_i_; }
void AttrValue::AddListInt(int64_t value) { list_i_.push_back(value); }
int32_t AttrValue::ListIntSize() const { return static_cast<int32_t>(list_i_.size()); }
void AttrValue::SetInt(int64_t value) { i_ = value; }
void AttrValue::SetListInt(const std::vector<int64_t> &values) { list_i_ = values; }
std::vector<std::vector<int64_t>> AttrValue::GetListListInt() const { return list_list_i_; }
void AttrValue::SetListListInt(const std::vector<std::vector<int64_t>> &values) { list_list_i_ = values; }

float AttrValue::GetFloat() const { return f_; }
std::vector<float> AttrValue::GetListFloat() const { return list_f_; }
void AttrValue::AddListFloat(float value) { list_f_.push_back(value); }
int32_t AttrValue::ListFloatSize() const { return static_cast<int32_t>(list_f_.size()); }
void AttrValue::SetFloat(float value) { f_ = value; }
void AttrValue::SetListFloat(const std::vector<float> &values) { list_f_ = values; }

bool AttrValue::GetBool() const { return b_; }
std::vector<bool> AttrValue::GetListBool() const { return list_b_; }
void AttrValue::AddListBool(bool value) { list_b_.push_back(value); }
int32_t AttrValue::ListBoolSize() const { return static_cast<int32_t>(list_b_.size()); }
void AttrValue::SetBool(bool value) { b_ = value; }
void AttrValue::SetListBool(const std::vector<bool> &values) { list_b_ = values; }

DataType AttrValue::GetDataType() const { return type_; }
std::vector<DataType> AttrValue::GetListDataType() const { return list_type_; }
void AttrValue::AddListDataType(DataType value) { list_type_.push_back(value); }
int32_t AttrValue::ListDataTypeSize() const { return static_cast<int32_t>(list_type_.size()); }
void AttrValue::SetDataType(DataType value) { type_ = value; }
void AttrValue::SetListDataType(const std::vector<DataType> &values) { list_type_ = values; }

bool AttrValue::SetTensorShape(const TensorShape *shape) {
  if (shape == nullptr) return false;
  shape_ = std::make_shared<TensorShape>(*shape);
  return true;
}

uint32_t AttrValue::SetListTensorShape(const std::vector<TensorShape *> &shapes) {
  list_shape_.clear();
  uint32_t count = 0;
  for (const TensorShape *shape : shapes) {
    if (shape == nullptr) continue;
    list_shape_.push_back(std::make_shared<TensorShape>(*shape));
    ++count;
  }
  return count;
}

std::shared_ptr<TensorShape> AttrValue::AddListTensorShape() {
  list_shape_.push_back(npusim_rt::Access::NewShape());
  return list_shape_.back();
}

std::shared_ptr<TensorShape> AttrValue::GetTensorShape() const { return shape_; }

std::vector<TensorShape> AttrValue::GetListTensorShape() const {
  std::vector<TensorShape> shapes;
  for (const auto &shape : list_shape_) shapes.push_back(*shape);
  return shapes;
}

int32_t AttrValue::ListTensorShapeSize() const { return static_cast<int32_t>(list_shape_.size()); }

bool AttrValue::SetTensor(const Tensor *tensor) {
  if (tensor == nullptr) return false;
  tensor_ = std::make_shared<Tensor>(*tensor);
  return true;
}

uint32_t AttrValue::SetListTensor(const std::vector<Tensor *> &tensors) {
  list_tensor_.clear();
  uint32_t count = 0;
  for (const Tensor *tensor : tensors) {
    if (tensor == nullptr) continue;
    list_tensor_.push_back(std::make_shared<Tensor>(*tensor));
    ++count;
  }
  return count;
}

std::shared_ptr<Tensor> AttrValue::AddListTensor() {
  list_tensor_.push_back(npusim_rt::Access::NewTensor());
  return list_tensor_.back();
}

std::shared_ptr<Tensor> AttrValue::GetTensor() const { return tensor_; }

std::vector<Tensor> AttrValue::GetListTensor() const {
  std::vector<Tensor> tensors;
  for (const auto &tensor : list_tensor_) tensors.push_back(*tensor);
  return tensors;
}

int32_t AttrValue::ListTensorSize() const { return static_cast<int32_t>(list_tensor_.size()); }

}  // namespace aicpu
