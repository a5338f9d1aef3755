"""The operator families; ``OPS`` is every row (an :class:`~npusim.aclnn.op.Op` per aclnn API)."""
from npusim.aclnn.ops import arg, binary, cast, compare, fill, index, norm, pool, reduce, scalar, shape, unary

OPS = (*binary.OPS, *scalar.OPS, *unary.OPS, *compare.OPS, *cast.OPS, *fill.OPS, *reduce.OPS, *shape.OPS,
       *index.OPS, *arg.OPS, *norm.OPS, *pool.OPS)

__all__ = ["OPS"]
