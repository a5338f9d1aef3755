// AotExtra for kernel libraries built with the old copy-on-write std::string ABI (_GLIBCXX_USE_CXX11_ABI=0),
// which is how MindSpore's own aot tests build their kernels.  The macro must be set before any library header.
#undef _GLIBCXX_USE_CXX11_ABI
#define _GLIBCXX_USE_CXX11_ABI 0
#define NPUSIM_AOT_EXTRA_NAMESPACE npusim_aot_cow
#define NPUSIM_AOT_THIS_ABI_IS_CXX11 0

#include "extra_impl.h"

namespace npusim_aot {
const ExtraOps kCowExtraOps = {npusim_aot_cow::CreateExtra, npusim_aot_cow::DestroyExtra,
                               npusim_aot_cow::WorkspaceSizes};
}  // namespace npusim_aot
