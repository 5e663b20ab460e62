// The instrumented program for the TypeScript/Node helper's per-event cost.
// bench/helpers puts the rendered helper above this text, compiles it with
// tsc --strict and runs it with node: n events in bursts of `burst`, yielding
// to the event loop between bursts (as a server or a loop with I/O would),
// so the background sender can run. It prints the time spent inside agentLog
// calls (hot path) and the wall time until every event was sent and the
// process is about to exit (total).
const rt = globalThis as unknown as {
  console: { log(s: string): void };
  performance: { now(): number };
  setImmediate(f: () => void): void;
  process: { argv: string[]; on(event: string, f: () => void): void };
};
const n = Number(rt.process.argv[2] ?? 100000), burst = Number(rt.process.argv[3] ?? 100);
const hyp = rt.process.argv[4] ?? "bench";

async function main(): Promise<void> {
  const t0 = rt.performance.now();
  let hot = 0;
  for (let i = 0; i < n; i += burst) {
    const s = rt.performance.now();
    for (let j = i; j < Math.min(n, i + burst); j++) {
      // #region agent log
      agentLog(hyp, "cache lookup", () => ({ i: j, cacheKey: "cart:42", hit: j % 2 === 0 }));
      // #endregion
    }
    hot += rt.performance.now() - s;
    await new Promise<void>((resolve) => rt.setImmediate(resolve));
  }
  rt.process.on("exit", () => {
    rt.console.log(`events=${n} hot_ns=${Math.round(hot * 1e6)} total_ns=${Math.round((rt.performance.now() - t0) * 1e6)}`);
  });
}

void main();

export {};
