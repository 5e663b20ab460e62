// #region agent log
#include <stdio.h>
static void agent_debug_log(const char *h) { printf("%s\n", h); }
// #endregion

int main(void) {
    int n = 3;
    // #region agent log
    agent_debug_log("H1");
    // #endregion
    return n;
}
