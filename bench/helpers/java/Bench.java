package bench;

// The instrumented Java program of bench/helpers (the rendered AgentDebugLog
// is written beside it, the CALL markers become the rendered call):
//   Bench events N T   20,000 warm-up calls, then N calls from T threads, timed
//   Bench hot N T P    a cache-lookup loop (T threads share one lock when
//                      T > 1), three rounds of N iterations, with the probe when P is 1;
//                      last_cpu_ns is the CPU time of the last round's loop threads (summed),
//                      which other processes on a loaded machine disturb less than wall time
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

public class Bench {
  static final class Entry { int value, hits; Entry(int v) { value = v; } }

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[1]), threads = Integer.parseInt(args[2]);
    if (args[0].equals("events")) {
      events(20000, threads);
      long start = System.nanoTime();
      events(n, threads);
      System.out.println("events=" + (n / threads * threads) + " hot_ns=" + (System.nanoTime() - start));
      return;
    }
    boolean probe = args[3].equals("1");
    String[] keys = new String[4096];
    Map<String, Entry> cache = new HashMap<>();
    for (int i = 0; i < keys.length; i++) { keys[i] = "cart:" + i; cache.put(keys[i], new Entry(i)); }
    Object lock = new Object();
    long start = System.nanoTime(), last = start;
    AtomicLong cpu = new AtomicLong();
    for (int round = 0; round < 3; round++) {
      last = System.nanoTime();
      cpu.set(0);
      Thread[] ts = new Thread[threads];
      for (int t = 0; t < threads; t++) {
        final int tt = t;
        ts[t] = new Thread(() -> {
          long sum = 0, cpu0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
          for (int i = 0; i < n / threads; i++) {
            final String k = keys[(i * 7 + tt) & 4095];
            if (threads > 1) {
              synchronized (lock) {
                final Entry e = cache.get(k);
                e.hits++;
                sum += e.value;
                if (probe) {
                  @CALL_HOT@
                }
              }
            } else {
              final Entry e = cache.get(k);
              e.hits++;
              sum += e.value;
              if (probe) {
                @CALL_HOT@
              }
            }
          }
          if (sum == -1) System.out.println(sum);
          cpu.addAndGet(java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0);
        });
        ts[t].start();
      }
      for (Thread t : ts) t.join();
    }
    long end = System.nanoTime();
    System.out.println("iters=" + (n / threads * threads) + " total_ns=" + (end - start) + " last_ns=" + (end - last) + " last_cpu_ns=" + cpu.get());
  }

  static void events(int n, int threads) throws InterruptedException {
    Thread[] ts = new Thread[threads];
    for (int k = 0; k < threads; k++) {
      final int w = k;
      ts[k] = new Thread(() -> {
        for (int j = 0; j < n / threads; j++) {
          final int i = j;
          @CALL_EVENT@
        }
      });
      ts[k].start();
    }
    for (Thread t : ts) t.join();
  }
}
