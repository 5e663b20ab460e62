// An ES module main.js imports once it is running.
export function shout(s) {
  const loud = s.toUpperCase(); // LP:esm {s}
  return loud + '!';
}

const loadedAt = 'top'; // LP:esmtop
export default loadedAt;
