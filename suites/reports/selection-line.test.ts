/**
 * A run of part of the catalogue says so where its gate is read: the console beside the gate line,
 * summary.md and report.html among the run's facts. A PASS over 3 rules of 190 is no certification of
 * the other 187; a run of the whole catalogue says nothing more.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RULES } from '../../src/registry.ts';
import { selectionLine, type Report } from '../../src/reports/model.ts';
import { apicertWritten as apicert } from '../support/in-process-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'apicert-selection-line-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the selection beside the gate', () => {
  it('a --rules run with an --exclude names both, with the catalogue size, in the console, summary.md and report.html', async () => {
    const out = join(dir, 'narrow');
    const run = await apicert('certify', '--rules', 'v8.missions.get.*', '--exclude', 'v8.missions.get.unknown-404', '--seed', '3', '--out', out, '--format', 'json,md,html');
    expect(run.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as Report;
    const line = `${report.summary.selected} of the ${RULES.length} rules of the catalogue selected (--rules v8.missions.get.*; 1 excluded by --exclude (v8.missions.get.unknown-404))`;
    expect(selectionLine(report)).toBe(line);
    expect(run.out).toContain(`\nselection: ${line}\n`);
    expect(readFileSync(join(out, 'latest', 'summary.md'), 'utf8')).toContain(`- Selection: ${line.replaceAll('*', '\\*')}`);
    expect(readFileSync(join(out, 'latest', 'report.html'), 'utf8')).toContain(`<b>selection</b> <code>${line}</code>`);
  }, 120_000);

  it('says nothing for a run of the whole catalogue, or a report that did not record its selection', () => {
    const whole = { run: { selection: { catalogue: 190 } }, summary: { selected: 190 }, excluded: [] } as unknown as Report;
    expect(selectionLine(whole)).toBeUndefined();
    const unrecorded = { run: {}, summary: { selected: 3 } } as unknown as Report;
    expect(selectionLine(unrecorded)).toBeUndefined();
    const surface = { run: { selection: { catalogue: 190, surfaces: ['mcp'] } }, summary: { selected: 35 } } as unknown as Report;
    expect(selectionLine(surface)).toBe('35 of the 190 rules of the catalogue selected (--surface mcp)');
  });
});
