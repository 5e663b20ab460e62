using System;
using System.Collections.Generic;
using System.Threading;

// The helper goes at the top level, outside every namespace (or in a file of its own).
// @HELPER@

namespace Demo
{
    class Node
    {
        public Node Me;
        public Node() { Me = this; }
    }

    static class Program
    {
        static void Main()
        {
            // @CALL:nested@
            // @CALL:strings@
            // @CALL:scalars@
            // @CALL:oversize@
            // @CALL:unserializable@
            // @CALL:throws@
            // @CALL:secret@
            var threads = new List<Thread>();
            for (int n = 0; n < 4; n++)
            {
                int t = n;
                var th = new Thread(() =>
                {
                    for (int i = 0; i < 25; i++)
                    {
                        // @CALL:thread@
                    }
                });
                th.Start();
                threads.Add(th);
            }
            foreach (var th in threads) th.Join();
            Console.WriteLine("program done");
        }
    }
}
