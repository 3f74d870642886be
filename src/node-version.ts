/**
 * The first import of every library entry point (apicert, apicert/vitest): on a Node older than
 * package.json's engines, the libraries beneath apicert fail deep inside (undici reading a missing
 * API, vitest 5 calling Map.groupBy) with stack traces that do not say why. This stops first, with
 * one line naming the Node needed. The CLI's launcher (bin/apicert.js) reads the same engines field.
 */
import pkg from '../package.json' with { type: 'json' };

/** "22.22" from engines ">=22.22". */
export const NODE_NEEDED = pkg.engines.node.replace(/^>=\s*/, '');

export function nodeOlderThanNeeded(running = process.versions.node, needed = NODE_NEEDED): boolean {
  const [have, need] = [running, needed].map((v) => v.split('.').map(Number)) as [number[], number[]];
  return have[0] !== need[0] ? have[0]! < need[0]! : (have[1] ?? 0) < (need[1] ?? 0);
}

if (nodeOlderThanNeeded()) {
  const line = `apicert needs Node >= ${NODE_NEEDED} (this is ${process.version}): upgrade Node.`;
  // Not a thrown error: Node would print it with a stack, and vitest 5 on such a Node crashes while
  // reporting one. vitest reports the exit of its worker after this line.
  console.error(line);
  process.exit(1);
}
