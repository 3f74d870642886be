import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NODE_NEEDED, nodeOlderThanNeeded } from '../../src/node-version.ts';
import { olderNode } from '../support/older-node.ts';
import pkg from '../../package.json' with { type: 'json' };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('one Node version, declared once', () => {
  it('compares major and minor against engines', () => {
    expect(NODE_NEEDED).toBe(pkg.engines.node.replace(/^>=\s*/, ''));
    expect(nodeOlderThanNeeded('20.20.2', '22.22')).toBe(true);
    expect(nodeOlderThanNeeded('22.21.9', '22.22')).toBe(true);
    expect(nodeOlderThanNeeded('22.22.0', '22.22')).toBe(false);
    expect(nodeOlderThanNeeded('23.0.0', '22.22')).toBe(false);
    expect(nodeOlderThanNeeded('24.21.0', '22.22')).toBe(false);
  });

  it('the README and the Action name the same version as engines', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const action = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    const named = [...`${readme}\n${action}`.matchAll(/Node >= ?(\d+\.\d+)|\(>= (\d+\.\d+)/g)].map((m) => m[1] ?? m[2]);
    expect(named.length).toBeGreaterThan(2);
    expect(new Set(named)).toEqual(new Set([NODE_NEEDED]));
  });
});

describe('apicert on an older Node', () => {
  const older = olderNode();

  it('re-launches itself on the pinned Node 24 in a checkout', (ctx) => {
    ctx.skip(!older.path, older.reason);
    const run = spawnSync(older.path!, [join(ROOT, 'bin/apicert.js'), '--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
  });

  it('without the pinned Node, stops at once with one line naming the version needed', (ctx) => {
    ctx.skip(!older.path, older.reason);
    // A production install: the launcher and package.json, no node_modules/node.
    const dir = mkdtempSync(join(tmpdir(), 'apicert-old-node-'));
    mkdirSync(join(dir, 'bin'));
    copyFileSync(join(ROOT, 'bin/apicert.js'), join(dir, 'bin/apicert.js'));
    copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    const run = spawnSync(older.path!, [join(dir, 'bin/apicert.js'), 'certify'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(new RegExp(`^apicert needs Node >= ${NODE_NEEDED.replace('.', '\\.')} \\(this is v\\d+\\.`));
  });
});
