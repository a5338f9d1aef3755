// npusim AICPU compatibility header: same as cpu_node_def.h (kernels include it by this path too).
#include "../../cpu_node_def.h"
