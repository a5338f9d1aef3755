"""Small building blocks every layer may use (they import nothing else from npusim but ``npusim.errors``)."""
from npusim.util.cache import BoundedCache, CacheStats

__all__ = ["BoundedCache", "CacheStats"]
