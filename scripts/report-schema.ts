/**
 * `npm run schema:report`: writes reports/report.schema.json, the JSON Schema of report.json, from its
 * zod schema (src/reports/schema.ts). `--check` writes nothing and exits 1 when the file is not what
 * the zod schema gives (suites/reports/report-schema.test.ts holds the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { reportJsonSchemaText } from '../src/reports/schema.ts';

const file = fileURLToPath(new URL('../reports/report.schema.json', import.meta.url));
const text = reportJsonSchemaText();

if (process.argv.includes('--check')) {
  let written = '';
  try {
    written = readFileSync(file, 'utf8');
  } catch {
    // Absent reads as stale: the message below says how to write it.
  }
  if (written !== text) {
    console.error(`${file} is not what src/reports/schema.ts gives: run npm run schema:report and commit it`);
    process.exit(1);
  }
  console.log(`${file} is current`);
} else {
  writeFileSync(file, text);
  console.log(`wrote ${file}`);
}
