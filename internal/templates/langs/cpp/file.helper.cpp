// #region agent log
#ifndef AGENT_DEBUG_MODE_HPP
#define AGENT_DEBUG_MODE_HPP
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <type_traits>
#include <fcntl.h>
#include <unistd.h>

namespace agent_debug_mode {
inline constexpr const char *path = "__APPEND_PATH__";
inline constexpr std::size_t max_data = 16000; // bytes of data kept per event

// Any text as one JSON string: quotes, backslash and control characters escaped,
// UTF-8 kept, invalid bytes replaced by U+FFFD.
inline std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    std::size_t n = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0;
    char32_t cp = n > 1 ? c & (0x7Fu >> n) : c;
    bool ok = n > 0 && n <= s.size() - i;
    for (std::size_t j = 1; ok && j < n; j++) ok = (s[i + j] & 0xC0) == 0x80, cp = cp << 6 | (s[i + j] & 0x3F);
    if (ok && n > 2) ok = n == 3 ? cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF) : cp >= 0x10000 && cp <= 0x10FFFF;
    char esc[8];
    if (!ok) out += "\\ufffd", n = 1; // invalid UTF-8
    else if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c < 0x20) std::snprintf(esc, sizeof esc, "\\u%04x", unsigned(c)), out += esc;
    else out.append(s, i, n);
    i += n;
  }
  return out += '"';
}

// Appends one event. data is one JSON text, or (as the call template passes it)
// a lambda returning one: it runs inside this guard, so a throw becomes an
// agentDebugDataError. Never throws; safe from any thread.
template <class Data>
void log(std::string_view hypothesis_id, std::string_view location, std::string_view message, Data &&data) noexcept {
  try {
    std::string text;
    try {
      if constexpr (std::is_invocable_v<Data &>) text = std::string(data()); else text = std::string(data);
    } catch (const std::exception &e) {
      text = "{\"agentDebugDataError\":" + json_string(e.what()) + "}";
    } catch (...) {
      text = "{\"agentDebugDataError\":\"unknown exception\"}";
    }
    for (char &c : text) if (c == '\n' || c == '\r') c = ' '; // one line: pretty-printed JSON is fine
    if (text.find_first_not_of(" \t") == std::string::npos) text = "null";
    if (text.size() > max_data) {
      std::size_t cut = 1000;
      while (cut > 0 && (text[cut] & 0xC0) == 0x80) cut--; // the preview ends on a character
      text = "{\"agentDebugTruncated\":true,\"bytes\":" + std::to_string(text.size()) + ",\"preview\":" + json_string(std::string_view(text).substr(0, cut)) + "}";
    }
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    std::string line = "{\"hypothesisId\":" + json_string(hypothesis_id) + ",\"location\":" + json_string(location) +
                       ",\"message\":" + json_string(message) + ",\"data\":" + text + ",\"timestamp\":" + std::to_string(ms) + "}\n";
    int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0 && ::write(fd, line.data(), line.size()) < 0) {} // one write: lines never interleave
    if (fd >= 0) ::close(fd);
  } catch (...) {
  }
}
} // namespace agent_debug_mode
#endif
// #endregion
