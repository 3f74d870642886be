import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A stand-in for k6 (none is installable here): it answers `version`, records its argv and the
 * names of its environment, and writes a summary where each rule passed once, except the rule
 * FAKE_K6_FAIL names (its failing check named FAKE_K6_CHECK, else "a check"), one iteration of FAKE_K6_PLANNED. It tests the command's plumbing; the verdicts are tested on the fake.
 */
export function fakeK6(dir: string): string {
  const path = join(dir, 'k6');
  writeFileSync(
    path,
    `#!/usr/bin/env node
const fs = require('node:fs');
if (process.argv[2] === 'version') { console.log('k6 v0.48.0 (go1.21.4, linux/amd64)'); process.exit(0); }
fs.appendFileSync(${JSON.stringify(join(dir, 'calls.log'))}, JSON.stringify({ argv: process.argv.slice(2), token: process.env.APICERT_V8_TOKEN }) + '\\n');
const script = process.argv.at(-1).split('/').pop().replace(/\\.js$/, '');
const rules = JSON.parse(process.env.FAKE_K6_RULES)[script];
const summary = { format: 'apicert.load-summary/1', script, segments: ['0:1'], target: process.env.APICERT_BASE_URL, durationMs: 5, iterations: { judged: 1, unjudged: 0 }, rules: {}, figures: {}, untestable: {} };
// FAKE_K6_PLANNED: the iterations the script was to run (a summary with fewer was cut short).
if (process.env.FAKE_K6_PLANNED) summary.plannedIterations = Number(process.env.FAKE_K6_PLANNED);
for (const id of rules) summary.rules[id] = { passes: id === process.env.FAKE_K6_FAIL ? 0 : 1, fails: id === process.env.FAKE_K6_FAIL ? 1 : 0, checks: { [process.env.FAKE_K6_CHECK || 'a check']: { passes: 0, fails: id === process.env.FAKE_K6_FAIL ? 1 : 0 } } };
if (process.env.FAKE_K6_HANG) {
  // Like k6 on Ctrl-C: end the test, write the summary of what ran, exit.
  fs.writeFileSync(${JSON.stringify(join(dir, 'k6.pid'))}, String(process.pid));
  process.on('SIGINT', () => { fs.writeFileSync(process.env.APICERT_SUMMARY_OUT, JSON.stringify(summary)); process.exit(0); });
  console.log('k6 running');
  setInterval(() => {}, 1000);
} else {
  fs.writeFileSync(process.env.APICERT_SUMMARY_OUT, JSON.stringify(summary));
  process.exit(process.env.FAKE_K6_FAIL ? 99 : 0);
}
`,
  );
  chmodSync(path, 0o755);
  return path;
}

