/**
 * Every judgement runs through the one runner (`runJudgement`, src/rule/judgement.ts): active
 * checks, recordings and the proxy's live judging alike. A second caller of `judgement.judge`
 * would be a second Judge, whose cases could be counted, named or kept differently.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('one runner of judgements', () => {
  it('calls a rule judgement only from runJudgement', () => {
    const callers = sources(SRC)
      .filter((file) => /\bjudgement\.judge\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(callers).toEqual(['rule/judgement.ts']);
  });
});
