// @HELPER@
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static char big[100001];

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int i = 0; i < 25; i++) {
    // @CALL:thread@
  }
  return NULL;
}

int main(void) {
  memset(big, 'x', sizeof big - 1);
  // @CALL:nested@
  // @CALL:strings@
  // @CALL:scalars@
  // @CALL:oversize@
  // @CALL:unserializable@
  // @CALL:throws@
  // @CALL:secret@
  pthread_t threads[4];
  for (int t = 0; t < 4; t++) pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t);
  for (int t = 0; t < 4; t++) pthread_join(threads[t], NULL);
  printf("program done\n");
  return 0;
}
