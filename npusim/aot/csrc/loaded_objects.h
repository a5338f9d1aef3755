// The file names of the shared objects loaded in this process (dl_iterate_phdr), for finding the files of the
// libraries a kernel library names (npusim/aot/threads.py).
#ifndef NPUSIM_AOT_LOADED_OBJECTS_H_
#define NPUSIM_AOT_LOADED_OBJECTS_H_

#include <link.h>

#include <string>
#include <vector>

namespace npusim_aot {

inline std::vector<std::string> LoadedObjectPaths() {
  std::vector<std::string> paths;
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *data) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
          static_cast<std::vector<std::string> *>(data)->emplace_back(info->dlpi_name);
        }
        return 0;
      },
      &paths);
  return paths;
}

}  // namespace npusim_aot

#endif  // NPUSIM_AOT_LOADED_OBJECTS_H_
