// Attribute values of one aot call, in a form every translation unit of the bridge can share.
//
// No std::string appears here on purpose: this struct crosses between translation units compiled with the two
// libstdc++ string ABIs (see extra_cow.cpp), and only types whose layout does not depend on that ABI may do so.
#ifndef NPUSIM_AOT_ATTR_STORE_H_
#define NPUSIM_AOT_ATTR_STORE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace npusim_aot {

enum class AttrKind : int {
  kBool = 0,
  kInt = 1,
  kFloat = 2,
  kStr = 3,
  kIntVec = 4,
  kFloatVec = 5,
  kInt2DVec = 6,
  kFloat2DVec = 7,
};

// One named attribute; which member is meaningful depends on `kind`.
struct AttrValue {
  std::vector<char> name;  // NUL-terminated
  AttrKind kind = AttrKind::kInt;
  int64_t int_value = 0;  // kBool (0/1) and kInt
  double float_value = 0.0;  // kFloat
  std::vector<char> text;  // kStr, without terminator
  std::vector<int64_t> ints;  // kIntVec
  std::vector<double> floats;  // kFloatVec
  std::vector<std::vector<int64_t>> int_rows;  // kInt2DVec
  std::vector<std::vector<double>> float_rows;  // kFloat2DVec
};

// Name -> value table.  Adding a name that exists replaces the old value (call attributes override the fixed
// values of the registration info).
class AttrStore {
 public:
  const AttrValue *Find(const char *name) const {
    for (const AttrValue &attr : attrs_) {
      if (std::strcmp(attr.name.data(), name) == 0) return &attr;
    }
    return nullptr;
  }

  void AddBool(const char *name, bool value) { Put(name, AttrKind::kBool).int_value = value ? 1 : 0; }
  void AddInt(const char *name, int64_t value) { Put(name, AttrKind::kInt).int_value = value; }
  void AddFloat(const char *name, double value) { Put(name, AttrKind::kFloat).float_value = value; }
  void AddStr(const char *name, const char *data, size_t size) {
    Put(name, AttrKind::kStr).text.assign(data, data + size);
  }
  void AddInts(const char *name, const int64_t *values, size_t count) {
    Put(name, AttrKind::kIntVec).ints.assign(values, values + count);
  }
  void AddFloats(const char *name, const double *values, size_t count) {
    Put(name, AttrKind::kFloatVec).floats.assign(values, values + count);
  }
  // 2-D attributes are sent row by row: Start2D once, then one Append per row.
  void StartInt2D(const char *name) { Put(name, AttrKind::kInt2DVec); }
  void StartFloat2D(const char *name) { Put(name, AttrKind::kFloat2DVec); }
  void AppendIntRow(const int64_t *values, size_t count) {
    attrs_.back().int_rows.emplace_back(values, values + count);
  }
  void AppendFloatRow(const double *values, size_t count) {
    attrs_.back().float_rows.emplace_back(values, values + count);
  }

 private:
  // A fresh entry for `name` at the back of the table (an older entry of that name is dropped).
  AttrValue &Put(const char *name, AttrKind kind) {
    for (size_t i = 0; i < attrs_.size(); ++i) {
      if (std::strcmp(attrs_[i].name.data(), name) == 0) {
        attrs_.erase(attrs_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
    attrs_.emplace_back();
    AttrValue &attr = attrs_.back();
    attr.name.assign(name, name + std::strlen(name) + 1);
    attr.kind = kind;
    return attr;
  }

  std::vector<AttrValue> attrs_;
};

// How the bridge creates and destroys an AotExtra of one string ABI without naming its type.
struct ExtraOps {
  void *(*create)(const AttrStore &attrs);  // returns the AotExtra* handed to kernels
  void (*destroy)(void *extra);  // DestructKernelData(), then delete
  const std::vector<size_t> *(*workspace_sizes)(void *extra);
};

extern const ExtraOps kCxx11ExtraOps;  // extra_cxx11.cpp: kernels built with _GLIBCXX_USE_CXX11_ABI=1
extern const ExtraOps kCowExtraOps;  // extra_cow.cpp: kernels built with _GLIBCXX_USE_CXX11_ABI=0

}  // namespace npusim_aot

#endif  // NPUSIM_AOT_ATTR_STORE_H_
