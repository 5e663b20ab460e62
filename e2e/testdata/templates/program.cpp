// @HELPER@
#include <iostream>
#include <string>
#include <thread>
#include <vector>

int main() {
  // @CALL:nested@
  // @CALL:strings@
  // @CALL:scalars@
  // @CALL:oversize@
  // @CALL:unserializable@
  // @CALL:throws@
  // @CALL:secret@
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([t] {
      for (int i = 0; i < 25; i++) {
        // @CALL:thread@
      }
    });
  }
  for (auto &th : threads) th.join();
  std::cout << "program done\n";
  return 0;
}
