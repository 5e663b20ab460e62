// The instrumented Kotlin program of bench/helpers: the rendered helper is
// pasted at the HELPER marker below, the CALL markers become the rendered call.
//   bench events N T   20,000 warm-up calls, then N calls from T threads, timed
//   bench hot N T P    a cache-lookup loop (T threads share one lock when
//                      T > 1), three rounds of N iterations, with the probe when P is 1;
//                      last_cpu_ns is the CPU time of the last round's loop threads (summed),
//                      which other processes on a loaded machine disturb less than wall time
@HELPER@

class BenchEntry(val value: Int) { var hits = 0 }

fun benchEvents(n: Int, threads: Int) {
    (0 until threads).map { w ->
        Thread { for (i in 0 until n / threads) { @CALL_EVENT@ } }.also { it.start() }
    }.forEach { it.join() }
}

fun main(args: Array<String>) {
    val n = args[1].toInt()
    val threads = args[2].toInt()
    if (args[0] == "events") {
        benchEvents(20000, threads)
        val start = System.nanoTime()
        benchEvents(n, threads)
        println("events=" + (n / threads * threads) + " hot_ns=" + (System.nanoTime() - start))
        return
    }
    val probe = args[3] == "1"
    val keys = Array(4096) { "cart:$it" }
    val cache = HashMap<String, BenchEntry>()
    for ((i, k) in keys.withIndex()) cache[k] = BenchEntry(i)
    val lock = Any()
    val start = System.nanoTime()
    var last = start
    val cpu = java.util.concurrent.atomic.AtomicLong()
    for (round in 0 until 3) {
        last = System.nanoTime()
        cpu.set(0)
        (0 until threads).map { t ->
            Thread {
                var sum = 0L
                val cpu0 = java.lang.management.ManagementFactory.getThreadMXBean().currentThreadCpuTime
                for (i in 0 until n / threads) {
                    val k = keys[(i * 7 + t) and 4095]
                    if (threads > 1) {
                        synchronized(lock) {
                            val e = cache[k]!!
                            e.hits++
                            sum += e.value
                            if (probe) { @CALL_HOT@ }
                        }
                    } else {
                        val e = cache[k]!!
                        e.hits++
                        sum += e.value
                        if (probe) { @CALL_HOT@ }
                    }
                }
                if (sum == -1L) println(sum)
                cpu.addAndGet(java.lang.management.ManagementFactory.getThreadMXBean().currentThreadCpuTime - cpu0)
            }.also { it.start() }
        }.forEach { it.join() }
    }
    val end = System.nanoTime()
    println("iters=" + (n / threads * threads) + " total_ns=" + (end - start) + " last_ns=" + (end - last) + " last_cpu_ns=" + cpu.get())
}
