// An independent declaration of the AotExtra binary layout, standing in for the header of another framework
// (such as MindSpore's): same data members and virtual-function order, but no npusim ABI marker symbol, so
// npusim must find the library's std::string ABI from its imported symbols.
#ifndef TESTS_AOT_FOREIGN_AOT_EXTRA_H_
#define TESTS_AOT_FOREIGN_AOT_EXTRA_H_
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct AotKernelData {
  virtual ~AotKernelData() {}
};

struct AotExtra {
  virtual ~AotExtra() {}
  virtual bool HasAttr(std::string key) = 0;
  template <typename T>
  T Attr(std::string key);
  void SetWorkSpace(const std::vector<size_t> &sizes) { sizes_ = sizes; }
  const std::vector<size_t> &WorkSpace() const { return sizes_; }
  void SetKernelData(AotKernelData *data) { data_ = data; }
  AotKernelData *KernelData() const { return data_; }

 protected:
  virtual bool GetAttrBool(std::string key) = 0;
  virtual int64_t GetAttrInt(std::string key) = 0;
  virtual float GetAttrFloat(std::string key) = 0;
  virtual std::string GetAttrStr(std::string key) = 0;
  virtual std::vector<int64_t> GetAttrIntVec(std::string key) = 0;
  virtual std::vector<float> GetAttrFloatVec(std::string key) = 0;
  virtual std::vector<std::vector<int64_t>> GetAttrInt2DVec(std::string key) = 0;
  virtual std::vector<std::vector<float>> GetAttrFloat2DVec(std::string key) = 0;

 private:
  std::vector<size_t> sizes_;
  AotKernelData *data_ = nullptr;
};

template <> inline bool AotExtra::Attr<bool>(std::string key) { return GetAttrBool(key); }
template <> inline int64_t AotExtra::Attr<int64_t>(std::string key) { return GetAttrInt(key); }
template <> inline float AotExtra::Attr<float>(std::string key) { return GetAttrFloat(key); }
template <> inline std::string AotExtra::Attr<std::string>(std::string key) { return GetAttrStr(key); }
template <> inline std::vector<int64_t> AotExtra::Attr<std::vector<int64_t>>(std::string key) {
  return GetAttrIntVec(key);
}
template <> inline std::vector<float> AotExtra::Attr<std::vector<float>>(std::string key) {
  return GetAttrFloatVec(key);
}
template <> inline std::vector<std::vector<int64_t>> AotExtra::Attr<std::vector<std::vector<int64_t>>>(
    std::string key) {
  return GetAttrInt2DVec(key);
}
template <> inline std::vector<std::vector<float>> AotExtra::Attr<std::vector<std::vector<float>>>(
    std::string key) {
  return GetAttrFloat2DVec(key);
}
#endif  // TESTS_AOT_FOREIGN_AOT_EXTRA_H_
