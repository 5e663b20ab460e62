public class Main {
    public static void main(String[] args) {
        int n = 3;
        // #region agent log
        AgentLog.log("H1", "Main.java:5", "n", () -> java.util.Map.of("n", n));
        // #endregion
        System.out.println(n);
    }
}
