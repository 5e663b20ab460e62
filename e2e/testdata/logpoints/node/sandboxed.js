// Run by main.js in a vm context of its own, as Jest runs test files.
const answer = 6 * 7; // LP:sandboxed {answer}
console.log('sandboxed', answer);
