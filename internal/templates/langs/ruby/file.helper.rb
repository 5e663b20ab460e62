# region agent log
require "json"

unless defined?(AgentDebugLog)
  # debug-mode probe helper: appends one NDJSON event per call to the Append Path. Never raises.
  module AgentDebugLog
    PATH = "__APPEND_PATH__"
    MAX_DATA = 16_000 # bytes of serialized data kept per event
    ERRORS = [StandardError, ScriptError, SystemStackError].freeze # what a probe must never let escape

    def self.log(hypothesis_id, location, message, data, block)
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
      if text.bytesize > MAX_DATA
        text = JSON.generate({ "agentDebugTruncated" => true, "bytes" => text.bytesize, "preview" => text[0, 1000] })
      end
      line = %({"hypothesisId":#{JSON.generate(hypothesis_id.to_s)},"location":#{JSON.generate(location.to_s)},) +
             %("message":#{JSON.generate(message.to_s)},"data":#{text},) +
             %("timestamp":#{Process.clock_gettime(Process::CLOCK_REALTIME, :millisecond)}}\n)
      File.open(PATH, File::WRONLY | File::APPEND | File::CREAT, 0o600) do |f|
        f.syswrite(line) # one unbuffered write on an O_APPEND descriptor: lines never interleave
      end
      nil
    rescue *ERRORS
      nil
    end
  end

  # agent_log(hypothesis_id, location, message) { data } — the block is evaluated inside the guard.
  def agent_log(hypothesis_id, location, message, data = nil, &block)
    AgentDebugLog.log(hypothesis_id, location, message, data, block)
  end
end
# endregion
