// #region agent log helper
#ifndef AGENT_DEBUG_MODE_HPP
#define AGENT_DEBUG_MODE_HPP
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <fcntl.h>
#include <unistd.h>
namespace agent_debug_mode {
inline long long now_ms() { return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count(); }
inline std::string env(const char *name, const char *fallback) { const char *v = std::getenv(name); return v && *v ? v : fallback; }
struct site { std::atomic<long> sent{0}; long reported = 0; std::string location, hypothesis; }; // one per location: its calls, the last count written
struct state { // never destroyed: the writer thread may still run while the program exits
  std::mutex mu, io; // mu: the queue's, held for one append; io: one batch write at a time
  std::string queue, path = env("AGENT_DEBUG_MODE_APPEND_PATH", "__APPEND_PATH__"), process = std::to_string(::getpid()) + "-" + std::to_string(now_ms());
  long cap = [] { long n = std::atol(env("AGENT_DEBUG_MODE_MAX_PER_LOCATION", "").c_str()); return n > 0 ? n : __MAX_PER_LOCATION__L; }();
  std::map<std::string, site *> sites; // by location
};
inline state &the() { static state *s = new state; return *s; }
inline std::string json_string(std::string_view s) { std::string out = "\""; // any text as one JSON string: UTF-8 kept, invalid bytes as U+FFFD
  for (std::size_t i = 0, n; i < s.size(); i += n) {
    unsigned char c = s[i], c1 = i + 1 < s.size() ? s[i + 1] : 0; // second bytes as Unicode's table 3-7
    n = c < 0x80 ? 1 : c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
    bool ok = n == 1 || (n > 1 && n <= s.size() - i && c1 >= (c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80) && c1 <= (c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF));
    char esc[8]; for (std::size_t j = 2; ok && j < n; j++) ok = (s[i + j] & 0xC0) == 0x80;
    if (!ok) out += "\\ufffd", n = 1; else if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c < 0x20) std::snprintf(esc, sizeof esc, "\\u%04x", unsigned(c)), out += esc; else out.append(s, i, n);
  }
  return out += '"'; }
inline void drain() { // the queue, and each capped location's count when it grew (a running total), in one write
  state &st = the(); std::lock_guard<std::mutex> io(st.io);
  std::unique_lock<std::mutex> q(st.mu); std::string batch = std::move(st.queue);
  for (auto &[location, s] : st.sites) if (long n = s->sent.load(); n > st.cap && n != s->reported)
    batch += "{\"agentDebugHeldBack\":{\"hypothesisId\":" + json_string(s->hypothesis) + ",\"location\":" + json_string(location) + ",\"count\":" +
             std::to_string((s->reported = n) - st.cap) + ",\"cap\":" + std::to_string(st.cap) + ",\"process\":\"" + st.process + "\"}}\n";
  st.queue.clear(), q.unlock(); int fd = batch.empty() ? -1 : ::open(st.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0 && (::write(fd, batch.data(), batch.size()) < 0 || true)) ::close(fd); // one write per batch
}
// Queues one event from the caller's file and line (or file "path:line" with line 0). data is one JSON text or (as the call template passes it) a lambda
// returning one, run inside this guard (a throw becomes an agentDebugDataError); its type names the call site, so past the cap a call is one atomic add.
template <class Data>
void log(std::string_view hypothesis_id, std::string_view message, Data &&data, const char *file = __builtin_FILE(), int line = __builtin_LINE()) noexcept {
  static std::atomic<site *> cached{nullptr}; state &st = the(); // cached: per lambda type, that is per call site
  site *s = std::is_invocable_v<Data &> ? cached.load(std::memory_order_acquire) : nullptr;
  if (s && s->sent.fetch_add(1, std::memory_order_relaxed) >= st.cap) return; // held back
  try {
    if (!s) { // a call site's first event, or data that is not a lambda
      std::string location = line ? std::string(file) + ":" + std::to_string(line) : file; std::lock_guard<std::mutex> q(st.mu);
      static std::once_flag started; // the first event: a writer thread every 20 ms and the exit hook
      std::call_once(started, [] { std::thread([] { for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(20)), drain(); }).detach(), std::atexit([] { drain(); }); });
      site *&found = st.sites[location]; if (!found) found = new site, found->location = location, found->hypothesis = hypothesis_id;
      if (std::is_invocable_v<Data &>) cached.store(found, std::memory_order_release);
      if ((s = found)->sent.fetch_add(1, std::memory_order_relaxed) >= st.cap) return;
    }
    std::string text;
    try { if constexpr (std::is_invocable_v<Data &>) text = std::string(data()); else text = std::string(data); }
    catch (const std::exception &e) { text = "{\"agentDebugDataError\":" + json_string(e.what()) + "}"; }
    catch (...) { text = "{\"agentDebugDataError\":\"unknown exception\"}"; }
    for (char &c : text) if (c == '\n' || c == '\r') c = ' '; // one line: pretty-printed JSON is fine
    std::size_t cut = 1000; if (text.find_first_not_of(" \t") == std::string::npos) text = "null";
    while (text.size() > 16000 && cut > 0 && (text[cut] & 0xC0) == 0x80) cut--; // over 16,000 bytes: a preview that ends on a character
    if (text.size() > 16000) text = "{\"agentDebugTruncated\":true,\"bytes\":" + std::to_string(text.size()) + ",\"preview\":" + json_string(std::string_view(text).substr(0, cut)) + "}";
    std::string event = "{\"hypothesisId\":" + json_string(hypothesis_id) + ",\"location\":" + json_string(s->location) + ",\"message\":" +
                        json_string(message) + ",\"data\":" + text + ",\"timestamp\":" + std::to_string(now_ms()) + "}\n";
    std::unique_lock<std::mutex> q(st.mu);
    bool full = (st.queue += event).size() > 1 << 20; // the writer fell behind by 1 MiB: this call writes the batch
    if (q.unlock(), full) drain();
  } catch (...) { /* never break the program */ }
}
} // namespace agent_debug_mode
#endif
// #endregion
