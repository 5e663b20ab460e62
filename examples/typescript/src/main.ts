// Prints the median and p95 latency of each endpoint from the collector's
// export, the numbers the on-call dashboard shows.
//
//   tsc -p . && node build/main.js
import { exportText } from "./export";
import { ascending, percentile } from "./stats";

interface Sample {
  endpoint: string;
  at: number; // epoch milliseconds
  status: number;
  durationMs: number;
}

function parseExport(text: string): Sample[] {
  return JSON.parse(text) as Sample[];
}

function byEndpoint(samples: readonly Sample[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const s of samples) {
    const list = groups.get(s.endpoint) ?? [];
    list.push(s.durationMs);
    groups.set(s.endpoint, list);
  }
  return groups;
}

function summarize(endpoint: string, durations: readonly number[]): string {
  const sorted = ascending(durations);
  const p50 = percentile(sorted, 50);
  const p95 = percentile(sorted, 95);
  return `${endpoint.padEnd(8)} n=${sorted.length}  p50 ${p50} ms  p95 ${p95} ms`;
}

const out = (globalThis as unknown as { console: { log(line: string): void } }).console;
for (const [endpoint, durations] of byEndpoint(parseExport(exportText))) {
  out.log(summarize(endpoint, durations));
}
