// npusim AICPU compatibility header: same as utils/bcast.h (kernels include it by this path too).
#include "../../utils/bcast.h"
