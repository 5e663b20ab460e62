// #region agent log helper
#ifndef AGENT_DEBUG_LOG_H
#define AGENT_DEBUG_LOG_H
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
/* agent_debug_log(h, m, data) logs from __FILE__:__LINE__; data (one JSON text) is evaluated only under the site's cap, past which a call is one atomic add */
#define agent_debug_log(h, m, data) AGENT_DEBUG_LOG(__FILE__, __LINE__, h, m, data)
#define agent_debug_log_at(location, h, m, data) AGENT_DEBUG_LOG(location, 0, h, m, data)
#define AGENT_DEBUG_LOG(file, line, h, m, data) do { static struct agent_debug_site s_ = {NULL, NULL, 0, 0, NULL}; \
    if (__atomic_add_fetch(&s_.sent, 1, __ATOMIC_RELAXED) <= agent_debug_cap() || !agent_debug_cap()) agent_debug_send(&s_, file, line, h, m, data); } while (0)
#define AGENT_DEBUG_NO_MEMORY "\"<agentDebug: out of memory, or too many strings before one log>\""
struct agent_debug_site { char *location, *hypothesis; long sent, reported; struct agent_debug_site *next; }; /* one per call site */
static struct { pthread_mutex_t mu, io; char *queue; size_t len; long cap; int started; struct agent_debug_site *sites; char path[4096], process[48]; }
    agent_debug = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, NULL, "", ""}; /* mu: the queue's, held for one append */
static _Thread_local char *agent_debug_pending[64]; static _Thread_local int agent_debug_npending; /* freed by this thread's next log */
static inline char *agent_debug_keep(char *s) { return s && agent_debug_npending < 64 ? (agent_debug_pending[agent_debug_npending++] = s) : (free(s), NULL); }
static inline void agent_debug_free(void) { while (agent_debug_npending > 0) free(agent_debug_pending[--agent_debug_npending]); }
__attribute__((format(printf, 1, 2))) static inline const char *agent_debug_json(const char *format, ...) { /* printf into one JSON text */
  va_list ap, ap2; int n = (va_start(ap, format), va_copy(ap2, ap), vsnprintf(NULL, 0, format, ap)); char *out = agent_debug_keep(n < 0 ? NULL : malloc((size_t)n + 1));
  return (void)(out && vsnprintf(out, (size_t)n + 1, format, ap2)), va_end(ap2), va_end(ap), out ? out : AGENT_DEBUG_NO_MEMORY; }
static inline size_t agent_debug_escape(char *out, const char *s, size_t n) { size_t k = 1; /* s[0..n) as one JSON string into out, or its size */
  for (size_t i = 0, len, m; i < n; i += len, k += m) { /* UTF-8 kept, invalid bytes as U+FFFD; second bytes as Unicode's table 3-7 */
    unsigned char c = (unsigned char)s[i], c1 = i + 1 < n ? (unsigned char)s[i + 1] : 0;
    len = c < 0x80 ? 1 : c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
    int ok = len == 1 || (len > 1 && len <= n - i && c1 >= (c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80) && c1 <= (c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF));
    char esc[8] = "\\ufffd"; for (size_t j = 2; ok && j < len; j++) ok = ((unsigned char)s[i + j] & 0xC0) == 0x80;
    if (ok && (c == '"' || c == '\\')) esc[1] = (char)c, esc[2] = 0;
    else if (ok) c < 0x20 ? snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c) : (memcpy(esc, s + i, len), esc[len] = 0);
    if (len = ok ? len : 1, m = strlen(esc), out) memcpy(out + k, esc, m);
  }
  return out ? (out[0] = '"', out[k] = '"', out[k + 1] = 0, k + 1) : k + 1; }
static inline const char *agent_debug_json_string(const char *text) { /* any text as one JSON string; NULL gives null */
  char *out = text ? agent_debug_keep(malloc(agent_debug_escape(NULL, text, strlen(text)) + 1)) : NULL;
  return out ? (agent_debug_escape(out, text, strlen(text)), out) : text ? AGENT_DEBUG_NO_MEMORY : "null"; }
static inline void agent_debug_append(char **buf, size_t *len, const char *s) { char *grown = realloc(*buf, *len + strlen(s) + 1);
  if (grown) *buf = grown, *len += strlen(strcpy(grown + *len, s)); } /* without memory the text is dropped */
static inline long agent_debug_cap(void) { return __atomic_load_n(&agent_debug.cap, __ATOMIC_RELAXED); } /* 0 until the first event */
static inline long long agent_debug_ms(void) { struct timeval tv; gettimeofday(&tv, NULL); return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000; }
static inline void agent_debug_drain(void) { /* the queue, and each capped call site's count when it grew (a running total), in one write */
  pthread_mutex_lock(&agent_debug.io), pthread_mutex_lock(&agent_debug.mu); /* io: the exit drain waits for a batch in flight */
  char *batch = agent_debug.queue; size_t len = agent_debug.len; struct agent_debug_site *s = agent_debug.sites; long n;
  agent_debug.queue = NULL, agent_debug.len = 0, pthread_mutex_unlock(&agent_debug.mu); for (; s; s = s->next, agent_debug_free()) /* only prepended to: safe */
    if ((n = __atomic_load_n(&s->sent, __ATOMIC_RELAXED)) > agent_debug_cap() && n != s->reported) agent_debug_append(&batch, &len, agent_debug_json(
        "{\"agentDebugHeldBack\":{\"hypothesisId\":%s,\"location\":%s,\"count\":%ld,\"cap\":%ld,\"process\":\"%s\"}}\n", agent_debug_json_string(s->hypothesis),
        agent_debug_json_string(s->location), (s->reported = n) - agent_debug_cap(), agent_debug_cap(), agent_debug.process));
  int fd = len ? open(agent_debug.path, O_WRONLY | O_APPEND | O_CREAT, 0600) : -1;
  if (fd >= 0 && (write(fd, batch, len) < 0 || 1)) close(fd); /* one write per batch */
  free(batch), pthread_mutex_unlock(&agent_debug.io); }
static inline void *agent_debug_writer(void *u) { for (;; poll(NULL, 0, 20)) agent_debug_drain(); return u; }
static inline void agent_debug_send(struct agent_debug_site *site, const char *file, int line_no, const char *hypothesis_id, const char *message, const char *data) {
  if (!__atomic_exchange_n(&agent_debug.started, 1, __ATOMIC_ACQ_REL)) { /* the first event: settings, the writer thread, the exit hook */
    const char *path = getenv("AGENT_DEBUG_MODE_APPEND_PATH"), *cap = getenv("AGENT_DEBUG_MODE_MAX_PER_LOCATION"); pthread_t writer;
    snprintf(agent_debug.path, sizeof agent_debug.path, "%s", path && *path ? path : "__APPEND_PATH__");
    snprintf(agent_debug.process, sizeof agent_debug.process, "%ld-%lld", (long)getpid(), agent_debug_ms());
    if (pthread_create(&writer, NULL, agent_debug_writer, NULL) == 0) pthread_detach(writer);
    atexit(agent_debug_drain), __atomic_store_n(&agent_debug.cap, cap && atol(cap) > 0 ? atol(cap) : __MAX_PER_LOCATION__, __ATOMIC_RELEASE);
  } else if (agent_debug_cap() && __atomic_load_n(&site->sent, __ATOMIC_RELAXED) > agent_debug_cap()) return; /* past the cap before it was known */
  size_t n = data ? strlen(data) : 0, cut = 1000, zero = 0, zero2 = 0; /* the event into the queue: never fails; any thread, no signal handler */
  while (n > 16000 && cut > 0 && (data[cut] & 0xC0) == 0x80) cut--; /* over 16,000 bytes: a marker with a preview that ends on a character */
  if (n > 16000) data = agent_debug_json("{\"agentDebugTruncated\":true,\"bytes\":%zu,\"preview\":%s}", n, agent_debug_json_string(agent_debug_json("%.*s", (int)cut, data)));
  else if (!data || !data[strspn(data, " \t\r\n")]) data = data ? "null" : "{\"agentDebugUnserializable\":\"data is NULL\"}";
  pthread_mutex_lock(&agent_debug.mu); /* the site's first event names it and lists it for the exit drain */
  if (!site->location && (agent_debug_append(&site->location, &zero, line_no ? agent_debug_json("%s:%d", file, line_no) : file), site->location))
    agent_debug_append(&site->hypothesis, &zero2, hypothesis_id ? hypothesis_id : ""), site->next = agent_debug.sites, agent_debug.sites = site;
  pthread_mutex_unlock(&agent_debug.mu); char *line = (char *)agent_debug_json("{\"hypothesisId\":%s,\"location\":%s,\"message\":%s,\"data\":%s,\"timestamp\":%lld}\n",
      agent_debug_json_string(hypothesis_id), agent_debug_json_string(site->location), agent_debug_json_string(message), data, agent_debug_ms());
  for (size_t i = 0; line[i] && line[i + 1]; i++) if (line[i] == '\n' || line[i] == '\r') line[i] = ' '; /* one line */
  pthread_mutex_lock(&agent_debug.mu); /* the writer fell behind by 1 MiB: this call writes the batch */
  int full = (line[0] == '{' ? agent_debug_append(&agent_debug.queue, &agent_debug.len, line) : (void)0, agent_debug.len > 1 << 20);
  if (pthread_mutex_unlock(&agent_debug.mu), agent_debug_free(), full) agent_debug_drain();
}
#endif
// #endregion
