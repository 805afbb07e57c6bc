/** True when the test file at `file` may act differently per server mode (see server-dependence.mjs). */
export function dependsOnServer(file: string): boolean;
