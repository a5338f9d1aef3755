"""npusim: develop and test Ascend NPU custom operators on an ordinary machine."""
__version__ = "0.1.0"
