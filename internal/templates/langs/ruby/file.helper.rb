# debug-mode probe helper, written by debug-mode (the same for every session). Each instrumented
# file requires it by its absolute path, so it loads once per process. Standard library only.
require "json"

module AgentDebugMode
  MAX_DATA = 16_000 # bytes of serialized data kept per event
  ERRORS = [StandardError, ScriptError, SystemStackError].freeze # what a probe must never let escape
  @queue = Thread::Queue.new # serialized lines; pushing takes no lock the program holds
  @io = Mutex.new # the writer's own: taken by the writer thread and at exit, never by a call
  @path = nil
  @cap = 10_000

  class << self
    def bind(path, cap = 10_000) # the first binding in a process says where events go; the environment wins
      return if @path
      env = ENV["AGENT_DEBUG_MODE_MAX_PER_LOCATION"].to_s
      @path, @cap = ENV["AGENT_DEBUG_MODE_APPEND_PATH"] || path, env.match?(/\A\d+\z/) ? env.to_i : cap
    end

    def new_process # at load, and in the child of a fork: nothing inherited is sent twice
      @queue.clear
      @sent, @held, @writer = Hash.new(0), {}, nil
      @process = "#{Process.pid}-#{Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond)}"
    end

    def drain # the queue, then each capped location's held-back count when it grew (a running total: the service keeps the largest)
      @io.synchronize do
        lines = Array.new(@queue.size) { @queue.pop(true) }
        @held.to_a.each do |location, h| # a copy: the program's threads may add to it meanwhile
          next if h[1] == h[2]
          h[2] = h[1]
          lines << JSON.generate({ "agentDebugHeldBack" => { "hypothesisId" => h[0], "location" => location, "count" => h[2], "cap" => @cap, "process" => @process } }) + "\n"
        end
        File.open(@path, File::WRONLY | File::APPEND | File::CREAT, 0o600) { |f| f.syswrite(lines.join) } unless lines.empty?
      end
    rescue *ERRORS, ThreadError
      nil # unwritable: this batch is lost, never the program
    end

    def log(hypothesis_id, message, data, location, block)
      location ||= caller_locations(2, 1)[0].then { |c| "#{c.absolute_path || c.path}:#{c.lineno}" }
      return (@held[location] ||= [hypothesis_id.to_s, 0, 0])[1] += 1 if @sent[location] >= @cap # capped: count, send nothing
      @sent[location] += 1
      begin
        data = block.call if block # built here, inside the guard
      rescue *ERRORS => e
        data = { "agentDebugDataError" => "#{e.class}: #{e.message}"[0, 200] }
      end
      text = begin
        JSON.generate(data)
      rescue *ERRORS => e # a cycle (nesting too deep), NaN, invalid UTF-8, a failing to_s ...
        JSON.generate({ "agentDebugUnserializable" => "#{e.class}: #{e.message}"[0, 200].scrub })
      end
      text = JSON.generate({ "agentDebugTruncated" => true, "bytes" => text.bytesize, "preview" => text[0, 1000] }) if text.bytesize > MAX_DATA
      @queue << %({"hypothesisId":#{JSON.generate(hypothesis_id.to_s)},"location":#{JSON.generate(location.to_s)},) +
                %("message":#{JSON.generate(message.to_s)},"data":#{text},"timestamp":#{Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond)}}\n)
      @writer ||= Thread.new { loop { sleep 0.05; drain } } # the background writer: one write per batch, every 50 ms
      nil
    rescue *ERRORS
      nil
    end
  end

  module ForkHook # Process._fork (Ruby 3.1+) sees every fork
    def _fork
      super.tap { |pid| AgentDebugMode.new_process if pid.zero? }
    end
  end
  Process.singleton_class.prepend(ForkHook) if Process.respond_to?(:_fork)
  new_process
  at_exit { drain }
end

# agent_log(hypothesis_id, message, location = nil) { data }: queues one event; the block is evaluated inside the guard.
def agent_log(hypothesis_id, message, data = nil, location: nil, &block)
  AgentDebugMode.log(hypothesis_id, message, data, location, block)
end
