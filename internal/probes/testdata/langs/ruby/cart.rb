def total(items)
  # region agent log
  agent_log("H1", "cart.rb:3", "items", { n: items.size })
  # endregion
  items.sum(&:price)
end
