// An ES module in TypeScript, run through tsx's ESM loader.
import { total } from './util.ts';

const rates: readonly number[] = [1, 3];
for (const rate of rates) {
  const t: number = total([{ name: 'c', price: 5 }], rate); // LP:tsesm {rate}
  console.log('esm total', t);
}
