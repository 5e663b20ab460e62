package bench;

// The instrumented program for the Java helper's per-event cost: it calls the
// rendered helper (AgentDebugLog.java, written beside this file by
// bench/helpers/java with the package set to bench) from t threads, first
// `warm` events to let the JIT compile the helper, then n events timed, and
// prints the timed wall time. The file helper writes synchronously, so the
// hot path is the wall time.
public class Bench {
  public static void main(String[] args) throws InterruptedException {
    int n = Integer.parseInt(args[0]), threads = Integer.parseInt(args[1]), warm = Integer.parseInt(args[2]);
    String hyp = args[3];
    run(warm, threads, hyp + "-warmup");
    long start = System.nanoTime();
    run(n, threads, hyp);
    long elapsed = System.nanoTime() - start;
    System.out.println("events=" + (n / threads * threads) + " warm=" + (warm / threads * threads) + " hot_ns=" + elapsed + " total_ns=" + elapsed);
  }

  static void run(int n, int threads, String hyp) throws InterruptedException {
    Thread[] ts = new Thread[threads];
    for (int k = 0; k < threads; k++) {
      final int w = k;
      ts[k] = new Thread(() -> {
        for (int j = 0; j < n / threads; j++) {
          final int i = j;
          // #region agent log
          AgentDebugLog.log(hyp, "bench/helpers/java/Bench.java:27", "cache lookup", () -> AgentDebugLog.map("worker", w, "i", i, "cacheKey", "cart:42", "hit", i % 2 == 0));
          // #endregion
        }
      });
      ts[k].start();
    }
    for (Thread t : ts) {
      t.join();
    }
  }
}
