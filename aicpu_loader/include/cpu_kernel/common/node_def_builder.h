// npusim AICPU compatibility header: same as node_def_builder.h (kernels include it by this path too).
#include "../../node_def_builder.h"
