import { total, type Item } from './util';

type Cart = { items: Item[] };
const cart: Cart = { items: [{ name: 'a', price: 2 }, { name: 'b', price: 3 }] };
const sum = total(cart.items, 2); // LP:tstop {n: cart.items.length}
console.log('ts total', sum);
