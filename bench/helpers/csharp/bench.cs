// The instrumented C# program of bench/helpers: the rendered helper is
// pasted at the HELPER marker below, the CALL markers become the rendered call.
//   bench events N T   20,000 warm-up calls, then N calls from T threads, timed
//   bench hot N T P    a cache-lookup loop (T threads share one lock when
//                      T > 1), three rounds of N iterations, with the probe when P is 1
using System;
using System.Collections.Generic;
using System.Threading;

@HELPER@

sealed class BenchEntry { public int Value, Hits; }

static class Bench
{
    static void Events(int n, int threads)
    {
        var ts = new List<Thread>();
        for (int k = 0; k < threads; k++)
        {
            int w = k;
            var th = new Thread(() => { for (int i = 0; i < n / threads; i++) { @CALL_EVENT@ } });
            th.Start();
            ts.Add(th);
        }
        foreach (var th in ts) th.Join();
    }

    static void Main(string[] args)
    {
        int n = int.Parse(args[1]), threads = int.Parse(args[2]);
        if (args[0] == "events")
        {
            Events(20000, threads);
            var sw = System.Diagnostics.Stopwatch.StartNew();
            Events(n, threads);
            Console.WriteLine("events=" + (n / threads * threads) + " hot_ns=" + (long)(sw.Elapsed.TotalMilliseconds * 1e6));
            return;
        }
        bool probe = args[3] == "1";
        var keys = new string[4096];
        var cache = new Dictionary<string, BenchEntry>();
        for (int i = 0; i < keys.Length; i++) { keys[i] = "cart:" + i; cache[keys[i]] = new BenchEntry { Value = i }; }
        var gate = new object();
        var start = System.Diagnostics.Stopwatch.StartNew();
        double last = 0;
        for (int round = 0; round < 3; round++)
        {
            last = start.Elapsed.TotalMilliseconds;
            var ts = new List<Thread>();
            for (int t0 = 0; t0 < threads; t0++)
            {
                int t = t0;
                var th = new Thread(() =>
                {
                    long sum = 0;
                    for (int i = 0; i < n / threads; i++)
                    {
                        string k = keys[(i * 7 + t) & 4095];
                        bool locked = false;
                        if (threads > 1) Monitor.Enter(gate, ref locked);
                        var e = cache[k];
                        e.Hits++;
                        sum += e.Value;
                        if (probe) { @CALL_HOT@ }
                        if (locked) Monitor.Exit(gate);
                    }
                    if (sum == -1) Console.WriteLine(sum);
                });
                th.Start();
                ts.Add(th);
            }
            foreach (var th in ts) th.Join();
        }
        double end = start.Elapsed.TotalMilliseconds;
        Console.WriteLine("iters=" + (n / threads * threads) + " total_ns=" + (long)(end * 1e6) + " last_ns=" + (long)((end - last) * 1e6));
    }
}
