// npusim AICPU compatibility header: AttrValue, one attribute of a kernel call (scalar or list form).
#ifndef NPUSIM_AICPU_CPU_ATTR_VALUE_H
#define NPUSIM_AICPU_CPU_ATTR_VALUE_H

#include "cpu_tensor.h"
#include "cpu_tensor_shape.h"

namespace aicpu {
class AICPU_VISIBILITY AttrValue {
  friend class CpuKernelUtils;
  friend struct npusim_rt::Access;

 public:
  AttrValue(const AttrValue &) = delete;
  AttrValue(AttrValue &&) = delete;
  AttrValue &operator=(const AttrValue &) = delete;
  AttrValue &operator=(AttrValue &&) = delete;
  ~AttrValue() = default;

  std::string GetString() const;
  std::vector<std::string> GetListString() const;
  void AddListString(const std::string &value);
  int32_t ListStringSize() const;
  void SetString(const std::string &value);
  void SetListString(const std::vector<std::string> &values);

  int64_t GetInt() const;
  std::vector<int64_t> GetListInt() const;
  void AddListInt(int64_t value);
  int32_t ListIntSize() const;
  void SetInt(int64_t value);
  void SetListInt(const std::vector<int64_t> &values);
  std::vector<std::vector<int64_t>> GetListListInt() const;
  void SetListListInt(const std::vector<std::vector<int64_t>> &values);

  float GetFloat() const;
  std::vector<float> GetListFloat() const;
  void AddListFloat(float value);
  int32_t ListFloatSize() const;
  void SetFloat(float value);
  void SetListFloat(const std::vector<float> &values);

  bool GetBool() const;
  std::vector<bool> GetListBool() const;
  void AddListBool(bool value);
  int32_t ListBoolSize() const;
  void SetBool(bool value);
  void SetListBool(const std::vector<bool> &values);

  DataType GetDataType() const;
  std::vector<DataType> GetListDataType() const;
  void AddListDataType(DataType value);
  int32_t ListDataTypeSize() const;
  void SetDataType(DataType value);
  void SetListDataType(const std::vector<DataType> &values);

  bool SetTensorShape(const TensorShape *shape);
  uint32_t SetListTensorShape(const std::vector<TensorShape *> &shapes);
  std::shared_ptr<TensorShape> AddListTensorShape();
  std::shared_ptr<TensorShape> GetTensorShape() const;
  std::vector<TensorShape> GetListTensorShape() const;
  int32_t ListTensorShapeSize() const;

  bool SetTensor(const Tensor *tensor);
  uint32_t SetListTensor(const std::vector<Tensor *> &tensors);
  std::shared_ptr<Tensor> AddListTensor();
  std::shared_ptr<Tensor> GetTensor() const;
  std::vector<Tensor> GetListTensor() const;
  int32_t ListTensorSize() const;

 private:
  AttrValue() = default;

  // One slot per value kind; an attribute fills the slot of its kind (the getters of other kinds give empty
  // or zero values, as an unset protobuf field would).
  std::string s_;
  int64_t i_ = 0;
  float f_ = 0.0f;
  bool b_ = false;
  DataType type_ = DT_UNDEFINED;
  std::vector<std::string> list_s_;
  std::vector<int64_t> list_i_;
  std::vector<float> list_f_;
  std::vector<bool> list_b_;
  std::vector<DataType> list_type_;
  std::vector<std::vector<int64_t>> list_list_i_;
  std::shared_ptr<TensorShape> shape_;
  std::vector<std::shared_ptr<TensorShape>> list_shape_;
  std::shared_ptr<Tensor> tensor_;
  std::vector<std::shared_ptr<Tensor>> list_tensor_;
};
}  // namespace aicpu
#endif  // NPUSIM_AICPU_CPU_ATTR_VALUE_H
