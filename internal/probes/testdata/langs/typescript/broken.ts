export function g(y: number): number {
  return y * 2;
  // #endregion
}
