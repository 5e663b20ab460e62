// #region agent log
#ifndef AGENT_DEBUG_LOG_H
#define AGENT_DEBUG_LOG_H
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define AGENT_DEBUG_PATH "__APPEND_PATH__"
#define AGENT_DEBUG_MAX_DATA 16000 /* bytes of data kept per event */
#define AGENT_DEBUG_NO_MEMORY "\"<agentDebug: out of memory, or too many strings before one log>\""
/* Strings from agent_debug_json(_string) live until this thread's next agent_debug_log frees them. */
static _Thread_local char *agent_debug_pending[64];
static _Thread_local int agent_debug_npending;
static inline char *agent_debug_keep(char *s) {
  if (s && agent_debug_npending < 64) return agent_debug_pending[agent_debug_npending++] = s;
  return free(s), NULL;
}
/* printf into one JSON text: agent_debug_json("{\"n\":%d,\"s\":%s}", n, agent_debug_json_string(s)) */
__attribute__((format(printf, 1, 2))) static inline const char *agent_debug_json(const char *format, ...) {
  va_list ap, ap2;
  va_start(ap, format), va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, format, ap);
  char *out = agent_debug_keep(n < 0 ? NULL : malloc((size_t)n + 1));
  if (out) vsnprintf(out, (size_t)n + 1, format, ap2);
  va_end(ap2), va_end(ap);
  return out ? out : AGENT_DEBUG_NO_MEMORY;
}
/* Writes s[0..n) as one JSON string into out, or only measures it when out is NULL. */
static inline size_t agent_debug_escape(char *out, const char *s, size_t n) {
  size_t k = 1, i = 0;
  for (char esc[8]; i < n;) {
    unsigned char c = (unsigned char)s[i];
    size_t len = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0, m = len;
    unsigned long cp = len > 1 ? c & (0x7Fu >> len) : c;
    int ok = len > 0 && len <= n - i;
    for (size_t j = 1; ok && j < len; j++) ok = (s[i + j] & 0xC0) == 0x80, cp = cp << 6 | (s[i + j] & 0x3F);
    if (ok && len > 2) ok = len == 3 ? cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF) : cp >= 0x10000 && cp <= 0x10FFFF;
    const char *src = s + i;
    if (!ok) src = "\\ufffd", m = 6, len = 1; /* invalid UTF-8 */
    else if (c == '"' || c == '\\') esc[0] = '\\', esc[1] = (char)c, src = esc, m = 2;
    else if (c < 0x20) snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c), src = esc, m = 6;
    if (out) memcpy(out + k, src, m);
    k += m, i += len;
  }
  if (out) out[0] = '"', out[k] = '"', out[k + 1] = 0;
  return k + 1;
}
/* Any text as one JSON string (NULL gives null); UTF-8 kept, invalid bytes become U+FFFD. */
static inline const char *agent_debug_json_string(const char *text) {
  size_t n = text ? strlen(text) : 0;
  char *out = text ? agent_debug_keep(malloc(agent_debug_escape(NULL, text, n) + 1)) : NULL;
  if (out) agent_debug_escape(out, text, n);
  return out ? out : text ? AGENT_DEBUG_NO_MEMORY : "null";
}
/* Appends one event; data is one JSON text. Never fails the program; safe from any thread. */
static inline void agent_debug_log(const char *hypothesis_id, const char *location, const char *message, const char *data) {
  if (agent_debug_npending > 58) /* too many strings built since the last log: data may be a marker */
    for (data = "{\"agentDebugUnserializable\":\"over 58 strings built before one log\"}"; agent_debug_npending > 0;)
      free(agent_debug_pending[--agent_debug_npending]);
  size_t n = data ? strlen(data) : 0, cut = 1000;
  if (n > AGENT_DEBUG_MAX_DATA) {
    while (cut > 0 && (data[cut] & 0xC0) == 0x80) cut--; /* the preview ends on a character */
    data = agent_debug_json("{\"agentDebugTruncated\":true,\"bytes\":%zu,\"preview\":%s}", n,
                            agent_debug_json_string(agent_debug_json("%.*s", (int)cut, data)));
  } else if (!data || !data[strspn(data, " \t\r\n")]) data = data ? "null" : "{\"agentDebugUnserializable\":\"data is NULL\"}";
  struct timespec ts = {0, 0};
#ifdef TIME_UTC
  timespec_get(&ts, TIME_UTC);
#else /* C99: POSIX */
  clock_gettime(CLOCK_REALTIME, &ts);
#endif
  char *line = (char *)agent_debug_json("{\"hypothesisId\":%s,\"location\":%s,\"message\":%s,\"data\":%s,\"timestamp\":%lld}\n",
      agent_debug_json_string(hypothesis_id), agent_debug_json_string(location), agent_debug_json_string(message),
      data, (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
  size_t len = strlen(line);
  for (size_t i = 0; i + 1 < len; i++) if (line[i] == '\n' || line[i] == '\r') line[i] = ' '; /* one line */
  int fd = line[0] == '{' ? open(AGENT_DEBUG_PATH, O_WRONLY | O_APPEND | O_CREAT, 0600) : -1;
  if (fd >= 0 && write(fd, line, len) < 0) {} /* one write: lines from threads and processes never interleave */
  if (fd >= 0) close(fd);
  while (agent_debug_npending > 0) free(agent_debug_pending[--agent_debug_npending]);
}
#endif
// #endregion
