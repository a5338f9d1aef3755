// The concrete AotExtra handed to kernels, written once and compiled once per libstdc++ string ABI.
//
// Include only from extra_cxx11.cpp / extra_cow.cpp, which first pick the ABI, NPUSIM_AOT_EXTRA_NAMESPACE and
// NPUSIM_AOT_THIS_ABI_IS_CXX11 (1 or 0).
//
// Why two copies: std::string has a different size and layout under the two ABIs, and GetAttrStr must build its
// result in the caller's layout (the caller reserves the space).  npusim detects each kernel library's ABI when it
// loads it (the weak marker symbol of custom_aot_extra.h, else the library's imported std::string symbols) and
// hands out the matching copy.  Names arriving as arguments are read through the first word of the string object,
// which in both ABIs points at the NUL-terminated characters, so attribute lookup never depends on the guess.
#ifndef NPUSIM_AOT_EXTRA_IMPL_H_
#define NPUSIM_AOT_EXTRA_IMPL_H_

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "attr_store.h"
#include "custom_aot_extra.h"

namespace NPUSIM_AOT_EXTRA_NAMESPACE {

using npusim_aot::AttrKind;
using npusim_aot::AttrValue;

// The characters of a std::string passed by a kernel of either ABI.
inline const char *NameChars(const std::string &name) { return *reinterpret_cast<const char *const *>(&name); }

// Whether a string argument certainly comes from a caller of the other ABI.  A C++11-ABI string shorter than
// 16 characters keeps them inside the object (the pointer points 16 bytes past the object's start); a
// copy-on-write string never does.
inline bool CallerUsesOtherAbi(const std::string &name) {
  const char *chars = NameChars(name);
  const bool inline_chars = chars == reinterpret_cast<const char *>(&name) + 16;
#if NPUSIM_AOT_THIS_ABI_IS_CXX11
  return !inline_chars && std::strlen(chars) < 16;
#else
  return inline_chars;
#endif
}

inline const char *KindName(AttrKind kind) {
  switch (kind) {
    case AttrKind::kBool: return "bool";
    case AttrKind::kInt: return "int";
    case AttrKind::kFloat: return "float";
    case AttrKind::kStr: return "str";
    case AttrKind::kIntVec: return "list of int";
    case AttrKind::kFloatVec: return "list of float";
    case AttrKind::kInt2DVec: return "2-D list of int";
    case AttrKind::kFloat2DVec: return "2-D list of float";
  }
  return "unknown";
}

class ExtraImpl final : public AotExtra {
 public:
  explicit ExtraImpl(const npusim_aot::AttrStore &attrs) : attrs_(attrs) {}
  bool HasAttr(std::string name) override { return attrs_.Find(NameChars(name)) != nullptr; }

 private:
  const AttrValue &Lookup(const std::string &name) const {
    const AttrValue *attr = attrs_.Find(NameChars(name));
    if (attr == nullptr) {
      throw std::out_of_range(std::string("there is no attribute called '") + NameChars(name) + "'");
    }
    return *attr;
  }

  [[noreturn]] static void WrongKind(const AttrValue &attr, const char *wanted) {
    throw std::invalid_argument(std::string("attribute '") + attr.name.data() + "' holds a " +
                                KindName(attr.kind) + " value, but the kernel reads it as " + wanted);
  }

  bool GetAttrBool(std::string name) override {
    const AttrValue &attr = Lookup(name);
    if (attr.kind != AttrKind::kBool && attr.kind != AttrKind::kInt) WrongKind(attr, "bool");
    return attr.int_value != 0;
  }

  int64_t GetAttrInt(std::string name) override {
    const AttrValue &attr = Lookup(name);
    if (attr.kind != AttrKind::kInt && attr.kind != AttrKind::kBool) WrongKind(attr, "int64_t");
    return attr.int_value;
  }

  float GetAttrFloat(std::string name) override {
    const AttrValue &attr = Lookup(name);
    if (attr.kind == AttrKind::kFloat) return static_cast<float>(attr.float_value);
    if (attr.kind == AttrKind::kInt || attr.kind == AttrKind::kBool) return static_cast<float>(attr.int_value);
    WrongKind(attr, "float");
  }

  std::string GetAttrStr(std::string name) override {
    if (CallerUsesOtherAbi(name)) {
      // Building the result in our layout would overrun the caller's return slot: refuse instead.
      throw std::logic_error(
          "the kernel library's std::string ABI (_GLIBCXX_USE_CXX11_ABI) was detected wrongly; rebuild it "
          "with npusim's custom_aot_extra.h so it carries the npusim_aot_cxx11_abi marker");
    }
    const AttrValue &attr = Lookup(name);
    if (attr.kind != AttrKind::kStr) WrongKind(attr, "std::string");
    return std::string(attr.text.begin(), attr.text.end());
  }

  std::vector<int64_t> GetAttrIntVec(std::string name) override {
    const AttrValue &attr = Lookup(name);
    if (attr.kind != AttrKind::kIntVec) WrongKind(attr, "std::vector<int64_t>");
    return attr.ints;
  }

  std::vector<float> GetAttrFloatVec(std::string name) override {
    const AttrValue &attr = Lookup(name);
    if (attr.kind == AttrKind::kFloatVec) return std::vector<float>(attr.floats.begin(), attr.floats.end());
    if (attr.kind == AttrKind::kIntVec) return std::vector<float>(attr.ints.begin(), attr.ints.end());
    WrongKind(attr, "std::vector<float>");
  }

  std::vector<std::vector<int64_t>> GetAttrInt2DVec(std::string name) override {
    const AttrValue &attr = Lookup(name);
    if (attr.kind == AttrKind::kInt2DVec) return attr.int_rows;
    if (attr.kind == AttrKind::kIntVec && attr.ints.empty()) return {};
    WrongKind(attr, "std::vector<std::vector<int64_t>>");
  }

  std::vector<std::vector<float>> GetAttrFloat2DVec(std::string name) override {
    const AttrValue &attr = Lookup(name);
    std::vector<std::vector<float>> rows;
    if (attr.kind == AttrKind::kFloat2DVec) {
      for (const auto &row : attr.float_rows) rows.emplace_back(row.begin(), row.end());
    } else if (attr.kind == AttrKind::kInt2DVec) {
      for (const auto &row : attr.int_rows) rows.emplace_back(row.begin(), row.end());
    } else if (!(attr.kind == AttrKind::kIntVec && attr.ints.empty())) {
      WrongKind(attr, "std::vector<std::vector<float>>");
    }
    return rows;
  }

  npusim_aot::AttrStore attrs_;
};

inline void *CreateExtra(const npusim_aot::AttrStore &attrs) {
  return static_cast<AotExtra *>(new ExtraImpl(attrs));
}

inline void DestroyExtra(void *extra) {
  ExtraImpl *impl = static_cast<ExtraImpl *>(static_cast<AotExtra *>(extra));
  impl->DestructKernelData();
  delete impl;
}

inline const std::vector<size_t> *WorkspaceSizes(void *extra) {
  return &static_cast<AotExtra *>(extra)->WorkSpace();
}

}  // namespace NPUSIM_AOT_EXTRA_NAMESPACE

#endif  // NPUSIM_AOT_EXTRA_IMPL_H_
