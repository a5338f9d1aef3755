// AotExtra for kernel libraries built with the C++11 std::string ABI (_GLIBCXX_USE_CXX11_ABI=1, GCC's default).
#undef _GLIBCXX_USE_CXX11_ABI
#define _GLIBCXX_USE_CXX11_ABI 1
#define NPUSIM_AOT_EXTRA_NAMESPACE npusim_aot_cxx11
#define NPUSIM_AOT_THIS_ABI_IS_CXX11 1

#include "extra_impl.h"

namespace npusim_aot {
const ExtraOps kCxx11ExtraOps = {npusim_aot_cxx11::CreateExtra, npusim_aot_cxx11::DestroyExtra,
                                 npusim_aot_cxx11::WorkspaceSizes};
}  // namespace npusim_aot
