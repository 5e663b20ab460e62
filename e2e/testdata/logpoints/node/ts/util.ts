export interface Item {
  name: string;
  price: number;
}

export function total(items: Item[], rate: number): number {
  let sum: number = 0;
  for (const it of items) {
    sum += it.price * rate; // LP:tsloop {name: it.name, sum}
  }
  return sum;
}
