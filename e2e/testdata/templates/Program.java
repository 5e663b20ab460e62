package demo;

// @HELPER@ (AgentDebugLog.java, a file of its own in this package)

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

public class Program {
  static final class Node {
    Node me = this;
  }

  static String readConfig() throws IOException {
    throw new IOException("no config file");
  }

  static List<Object> selfList() {
    List<Object> l = new ArrayList<>();
    l.add(l);
    return l;
  }

  public static void main(String[] args) throws InterruptedException {
    // @CALL:nested@
    // @CALL:strings@
    // @CALL:scalars@
    // @CALL:oversize@
    // @CALL:unserializable@
    // @CALL:throws@
    // @CALL:secret@
    Thread[] threads = new Thread[4];
    for (int k = 0; k < threads.length; k++) {
      final int t = k;
      threads[k] = new Thread(() -> {
        for (int n = 0; n < 25; n++) {
          final int i = n; // a lambda captures only effectively final locals
          // @CALL:thread@
        }
      });
      threads[k].start();
    }
    for (Thread th : threads) {
      th.join();
    }
    System.out.println("program done");
  }
}
