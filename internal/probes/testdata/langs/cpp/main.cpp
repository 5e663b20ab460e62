// #region agent log
#include <cstdio>
static void agent_log(const char* h) { std::printf("%s\n", h); }
// #endregion

int main() {
    int n = 3;
    /* #region agent log */
    agent_log("H1");
    /* #endregion */
    return n;
}
