# @HELPER@

class Node
  def initialize
    @me = self
  end
end

def main
  # @CALL:nested@
  # @CALL:strings@
  # @CALL:scalars@
  # @CALL:oversize@
  # @CALL:unserializable@
  # @CALL:throws@
  # @CALL:secret@
  workers = 4.times.map do |t|
    Thread.new do
      25.times do |i|
        # @CALL:thread@
      end
    end
  end
  workers.each(&:join)
  puts "program done"
end

main
