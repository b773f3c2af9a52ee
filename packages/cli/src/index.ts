/** The `wharf` command as a library: build the program or run it with an argv. */
export { buildProgram, run } from './program.js';
