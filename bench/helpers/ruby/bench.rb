# Appended below the Ruby helper's import region by bench/helpers: n calls from 1
# or more threads; prints events, time inside the calls and wall time.
def bench_main
  n, threads, hyp = Integer(ARGV[0]), Integer(ARGV[1]), ARGV[2]
  per = n / threads
  hot = Array.new(threads, 0)
  clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) }
  start = clock.call
  ths = Array.new(threads) do |t|
    Thread.new do
      spent = 0
      per.times do |i|
        t0 = clock.call
        agent_log(hyp, "cache lookup") { { "worker" => t, "i" => i, "cacheKey" => "cart:#{i}", "hit" => (i % 3).zero? } }
        spent += clock.call - t0
      end
      hot[t] = spent
    end
  end
  ths.each(&:join)
  total = clock.call - start
  puts "events=#{per * threads} hot_ns=#{hot.sum / threads} total_ns=#{total}"
end

bench_main
