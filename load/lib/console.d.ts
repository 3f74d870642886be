// k6 provides console at run time; @types/k6 does not declare it.
declare const console: { log(...values: unknown[]): void };
