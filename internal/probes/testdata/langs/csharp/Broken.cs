class Broken
{
    static void F()
    {
        #region agent log
        AgentLog.Log("H1", "Broken.cs:6", "f", null);
    }
}
