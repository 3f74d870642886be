import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRunFolder, oldLatestFolder, pointLatestAt, ReportFolderError, runFolderName } from '../../src/reports/run-folder.ts';

const root = () => mkdtempSync(join(tmpdir(), 'apicert-runs-'));

describe('run folders', () => {
  it('names a run by its start, and gives a second run in the same second its own folder', async () => {
    const at = new Date('2026-11-22T13:20:05.123Z');
    expect(runFolderName(at)).toBe('2026-11-22T13-20-05Z');
    const dir = root();
    const first = await createRunFolder(dir, at);
    const second = await createRunFolder(dir, at);
    expect([first, second].map((p) => p.slice(dir.length + 1))).toEqual(['2026-11-22T13-20-05Z', '2026-11-22T13-20-05Z-2']);
  });

  it('replaces a latest/ folder an older apicert wrote, and moves the link on each run', async () => {
    const dir = root();
    mkdirSync(join(dir, 'latest'));
    writeFileSync(join(dir, 'latest/report.json'), '{}');
    writeFileSync(join(dir, 'latest/summary.md'), '# old');
    const run = await createRunFolder(dir, new Date());
    await pointLatestAt(dir, run);
    expect(readlinkSync(join(dir, 'latest'))).toBe(run.slice(dir.length + 1));
    const next = await createRunFolder(dir, new Date());
    await pointLatestAt(dir, next);
    expect(readlinkSync(join(dir, 'latest'))).toBe(next.slice(dir.length + 1));
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('refuses, before any run, to touch a latest/ folder holding the user\'s own files', async () => {
    const dir = root();
    mkdirSync(join(dir, 'latest'));
    writeFileSync(join(dir, 'latest/notes.txt'), 'mine');
    await expect(oldLatestFolder(dir)).rejects.toThrow(ReportFolderError);
    await expect(oldLatestFolder(dir)).rejects.toThrow(/notes\.txt.*move it away/);
  });
});
