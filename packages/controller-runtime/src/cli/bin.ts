#!/usr/bin/env node
// The `controller-runtime` command (package.json's bin): runs main() and turns a CLIError into
// its message and exit status 1; anything else is a bug and keeps its stack.
import { CLIError } from "./errors.js";
import { main } from "./main.js";

try {
  for (const line of await main(process.argv.slice(2))) console.log(line);
} catch (err) {
  if (err instanceof CLIError) {
    console.error(`controller-runtime: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
