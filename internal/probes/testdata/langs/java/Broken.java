public class Broken {
    static int f() {
        return 1;
        // #endregion
    }
}
