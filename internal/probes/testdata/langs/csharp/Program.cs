using System;

class Program
{
    #region Helpers
    static int Twice(int x) => x * 2;
    #endregion

    static void Main()
    {
        var n = Twice(2);
        #region agent log
        AgentLog.Log("H1", "Program.cs:13", "n", new { n });
        #endregion
        // #region agent log
        AgentLog.Log("H2", "Program.cs:16", "n2", new { n });
        // #endregion
        Console.WriteLine(n);
    }
}
