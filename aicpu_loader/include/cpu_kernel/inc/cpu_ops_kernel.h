// npusim AICPU compatibility header: same as cpu_ops_kernel.h (kernels include it by this path too).
#include "../../cpu_ops_kernel.h"
