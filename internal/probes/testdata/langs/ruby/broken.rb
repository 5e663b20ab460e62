def f(x)
  x + 1
  # endregion
end
