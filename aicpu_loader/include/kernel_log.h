// npusim AICPU compatibility header: same as kernel_log.h (kernels include it by this path too).
#include "inc/kernel_log.h"
