"""Every error npusim raises, in one place.

The root is :class:`NpusimError`.  Where MindSpore or CANN raise a builtin type (TypeError, ValueError,
RuntimeError ...), our class also inherits that builtin so user code catching the builtin keeps working.
Sub-areas keep their classes in sibling modules of this package; they are all re-exported here so callers
write ``from npusim.errors import X`` and never need to know which file holds X.
"""
from npusim.errors.base import (  # noqa: F401
    NpusimError,
    UnsupportedError,
    KernelBuildError,
    KernelRuntimeError,
    OpTypeError,
    OpValueError,
)
from npusim.errors.frontend import (  # noqa: F401
    AotKernelError,
    GradientError,
    HybridSyntaxError,
    HybridNameError,
    KernelSelectionError,
    MissingAttributeError, AttributeTypeError, OutputSpecError, OutputSizeError, PyfuncOutputError,
    TooManyInputsError, BpropShapeError, BpropDtypeError, BpropCountError, DynamicShapeDataError,
    InputSignatureError,
)
from npusim.errors.hybrid import HybridValueError  # noqa: F401
from npusim.errors.aot import (  # noqa: F401
    AotFileNotFoundError, AotKernelCrash, AotLoadError, AotSymbolError, AotOutputOverrunError,
    AotCudaUnavailableError,
)
from npusim.errors.sim import (  # noqa: F401
    SimulatorError, OutOfBoundsError, CapacityError, AlignmentError, RepeatError, MaskError,
    UnsupportedDtypeError, OverlapError, InvalidOperandError, SyncError, KernelFormatError, DeviceMemoryError,
    UnknownChipError, ChipModelError, OverflowModeError,
)
from npusim.errors.aicpu import *  # noqa: F401,F403  (AicpuKernelError, AicpuLibraryNotFoundError, ...)
from npusim.errors.tbe import *  # noqa: F401,F403  (TbeArgumentError, TbeScheduleError, TbeBuildError, ...)
from npusim.errors.tik import *  # noqa: F401,F403  (TikError, TikRepeatError, TikAccessViolationError, ...)
from npusim.errors.cache import CacheDirError, CacheWarning  # noqa: F401
from npusim.errors.cli import ScriptNotFoundError  # noqa: F401
from npusim.errors.aclnn import AclnnError, AclnnNotFoundError, AclnnUnsupportedError  # noqa: F401
from npusim.errors.aclnn_custom import AclnnCustomNotFoundError, AclnnCustomOpError  # noqa: F401
from npusim.errors.extension_build import *  # noqa: F401,F403  (ExtensionBuildError, NinjaNotFoundError, ...)
from npusim.errors.extension_cxx import *  # noqa: F401,F403  (ExtensionGradientError, ExtensionRuntimeError, ...)
from npusim.errors.optest import *  # noqa: F401,F403  (CaseFileError, ImplNotFoundError, ExpectFuncError, ...)
from npusim.errors.bridge import *  # noqa: F401,F403  (BridgeError, MindSporeNotFoundError, ...)
