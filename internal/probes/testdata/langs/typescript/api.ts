// #region helpers
export const id = (x: number) => x;
// #endregion

export async function load(url: string): Promise<number> {
  const r = await fetch(url);
  /* #region agent log */
  agentLog("H3", "api.ts:8", "status", { status: r.status });
  /* #endregion */
  return r.status;
}
