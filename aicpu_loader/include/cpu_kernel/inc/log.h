// npusim AICPU compatibility header: same as log.h (kernels include it by this path too).
#include "../../log.h"
