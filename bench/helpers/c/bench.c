// The instrumented C program of bench/helpers: the rendered helper is pasted
// at the HELPER marker below, the CALL markers become the rendered call.
//   bench events N T   N probe calls from T threads; prints the time in them
//   bench hot N T P    a cache-lookup loop (T threads share one mutex when
//                      T > 1), three rounds of N iterations, with the probe when P is 1
@HELPER@
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct entry { char key[16]; int value, hits; };
static struct entry table[8192]; /* open addressing: the cache */
static char keys[4096][16];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long n, threads, probe, events_mode;

static unsigned hash(const char *s) { unsigned h = 2166136261u; while (*s) h = (h ^ (unsigned char)*s++) * 16777619u; return h; }
static struct entry *lookup(const char *k) {
  for (unsigned i = hash(k) & 8191;; i = (i + 1) & 8191)
    if (!table[i].key[0] || !strcmp(table[i].key, k)) return &table[i];
}
static long long now_ns(void) { struct timespec ts; timespec_get(&ts, TIME_UTC); return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec; }

static void *work(void *arg) {
  int t = (int)(intptr_t)arg, w = t;
  long sum = 0;
  for (long i = 0; i < n / threads; i++) {
    if (events_mode) { @CALL_EVENT@ continue; }
    const char *k = keys[(i * 7 + t) & 4095];
    if (threads > 1) pthread_mutex_lock(&mu);
    struct entry *e = lookup(k);
    e->hits++, sum += e->value;
    if (probe) { @CALL_HOT@ }
    if (threads > 1) pthread_mutex_unlock(&mu);
  }
  (void)w;
  return sum == -1 ? (void *)1 : NULL;
}

static void run(void) {
  pthread_t ts[64];
  for (long t = 0; t < threads; t++) pthread_create(&ts[t], NULL, work, (void *)(intptr_t)t);
  for (long t = 0; t < threads; t++) pthread_join(ts[t], NULL);
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  events_mode = !strcmp(argv[1], "events"), n = atol(argv[2]), threads = atol(argv[3]), probe = argc > 4 && !strcmp(argv[4], "1");
  for (int i = 0; i < 4096; i++) {
    snprintf(keys[i], sizeof keys[i], "cart:%d", i);
    struct entry *e = lookup(keys[i]);
    strcpy(e->key, keys[i]), e->value = i;
  }
  long long start = now_ns(), last = start;
  run();
  if (events_mode) return printf("events=%ld hot_ns=%lld\n", n / threads * threads, now_ns() - start), 0;
  run(), last = now_ns(), run();
  long long end = now_ns();
  printf("iters=%ld total_ns=%lld last_ns=%lld\n", n / threads * threads, end - start, end - last);
  return 0;
}
