import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../../src/fake/faults/index.ts';
import { functionSpans, lineCount, tsFilesUnder } from '../support/code-shape.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_FILE_LINES = 300;
/** A function's whole span, nested functions included: a route table that closes over its handlers counts as one. */
const MAX_FUNCTION_LINES = 80;

const fakeFiles = tsFilesUnder(ROOT, 'src/fake');

describe('the fake stays small enough to read', () => {
  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = fakeFiles.map((f) => `${f}: ${lineCount(ROOT, f)}`).filter((s) => Number(s.split(': ')[1]) > MAX_FILE_LINES);
    expect(fakeFiles.length).toBeGreaterThan(20);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const spans = functionSpans(ROOT, fakeFiles);
    // The measure must see the fake's functions at all (a parser that found nothing would pass).
    expect(spans.length).toBeGreaterThan(200);
    const long = spans.filter((s) => s.lines > MAX_FUNCTION_LINES).map((s) => `${s.file}:${s.startLine} ${s.name}: ${s.lines} lines`);
    expect(long).toEqual([]);
  });
});

/**
 * "A fault is looked up where its area's code bends, by a name a reader can grep from the fault id":
 * the fault `<surface>.<area>.<rule>/<what>` is registered in `src/fake/faults/<surface>/<area>.ts`,
 * and its id appears, as a quoted literal, only in `src/fake/<surface>/<area>.ts` or under
 * `src/fake/<surface>/<area>/` (at least once). So `grep -r "<fault id>" src/fake` lands in the
 * area's own code, and the area's file is found from the id alone.
 */
describe('each fault bends the fake in the file or folder its area names', () => {
  const texts = new Map(fakeFiles.filter((f) => !f.startsWith('src/fake/faults/')).map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));

  it.each(FAULTS.map((f) => [f.id] as const))('%s', (id) => {
    const [surface, area] = id.split('.') as [string, string];
    const registry = `src/fake/faults/${surface}/${area}.ts`;
    expect(existsSync(join(ROOT, registry)), `${registry} is missing`).toBe(true);
    expect(readFileSync(join(ROOT, registry), 'utf8')).toContain(`'${id}'`);
    const areaFile = `src/fake/${surface}/${area}.ts`;
    const areaDir = `src/fake/${surface}/${area}/`;
    const hasDir = existsSync(join(ROOT, areaDir)) && statSync(join(ROOT, areaDir)).isDirectory();
    expect(existsSync(join(ROOT, areaFile)) || hasDir, `neither ${areaFile} nor ${areaDir} exists`).toBe(true);
    const lookedUpIn = [...texts].filter(([, text]) => text.includes(`'${id}'`)).map(([file]) => file);
    expect(lookedUpIn.length, `${id} is looked up nowhere in the fake`).toBeGreaterThan(0);
    expect(lookedUpIn.filter((file) => file !== areaFile && !file.startsWith(areaDir))).toEqual([]);
  });
});
