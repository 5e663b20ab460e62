// The instrumented C++ program of bench/helpers: the rendered helper is
// pasted at the HELPER marker below, the CALL markers become the rendered call.
//   bench events N T   N probe calls from T threads; prints the time in them
//   bench hot N T P    a cache-lookup loop (T threads share one mutex when
//                      T > 1), three rounds of N iterations, with the probe when P is 1
@HELPER@
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

struct Entry { int value = 0, hits = 0; };

int main(int, char **argv) {
  std::string mode = argv[1];
  long n = std::stol(argv[2]), threads = std::stol(argv[3]);
  bool probe = mode == "hot" && std::string(argv[4]) == "1";
  std::vector<std::string> keys;
  std::unordered_map<std::string, Entry> cache;
  for (int i = 0; i < 4096; i++) keys.push_back("cart:" + std::to_string(i)), cache[keys.back()].value = i;
  std::mutex mu;
  auto start = std::chrono::steady_clock::now(), last = start;
  for (int round = 0; round < (mode == "events" ? 1 : 3); round++) {
    last = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (long t = 0; t < threads; t++) ts.emplace_back([&, t] {
      long sum = 0, w = t;
      for (long i = 0; i < n / threads; i++) {
        if (mode == "events") { @CALL_EVENT@ continue; }
        const std::string &k = keys[(i * 7 + t) & 4095];
        std::unique_lock<std::mutex> lock(mu, std::defer_lock);
        if (threads > 1) lock.lock();
        Entry &e = cache.find(k)->second;
        e.hits++, sum += e.value;
        if (probe) { @CALL_HOT@ }
      }
      if (sum == -1) std::printf("%ld %ld\n", sum, w);
    });
    for (auto &t : ts) t.join();
  }
  auto end = std::chrono::steady_clock::now();
  long long ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
  long long last_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - last).count();
  if (mode == "events") std::printf("events=%ld hot_ns=%lld\n", n / threads * threads, ns);
  else std::printf("iters=%ld total_ns=%lld last_ns=%lld\n", n / threads * threads, ns, last_ns);
}
