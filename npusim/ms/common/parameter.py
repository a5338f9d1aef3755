from npusim.frontend.parameter import Parameter, ParameterTuple  # noqa: F401
