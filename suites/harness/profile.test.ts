import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandEnv, loadProfileFile, ProfileError, profileFromEnv } from '../../src/profile/load.ts';

describe('target profiles', () => {
  it('loads YAML, expands ${ENV} and fills safety defaults', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'apicert-profile-'));
    const path = join(dir, 'staging.yaml');
    await writeFile(path, 'target: https://gw.example.test\ncredentials:\n  - name: full\n    token: ${APICERT_TEST_TOKEN}\n    scopes: [missions:read]\n');
    const profile = await loadProfileFile(path, { APICERT_TEST_TOKEN: 'tok-123456' });
    expect(profile.credentials[0]).toMatchObject({ name: 'full', token: 'tok-123456', surfaces: ['v8'], principal: 'primary', expired: false });
    expect(profile.safety.allowMutations).toBe(true);
    expect(profile.safety.allowRateLimitBursts).toBe(false);
    expect(profile.fixtures.v8.missions).toEqual({});
  });

  it('names the missing environment variable', () => {
    expect(() => expandEnv({ token: '${NOPE_NOT_SET}' }, {}, 'p.yaml')).toThrow(/NOPE_NOT_SET is not set/);
  });

  it('rejects unknown keys with the path of each problem', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'apicert-profile-'));
    const path = join(dir, 'bad.json');
    await writeFile(path, JSON.stringify({ target: 'ftp://x', safety: { requestBudget: 0 }, extra: 1 }));
    const error = await loadProfileFile(path, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProfileError);
    expect(String((error as Error).message)).toMatch(/target/);
    expect(String((error as Error).message)).toMatch(/safety\.requestBudget/);
  });

  it('builds a profile from --target and environment tokens', () => {
    const profile = profileFromEnv('https://gw.example.test', { APICERT_V8_TOKEN: 'a-token-1', APICERT_V8_EXPIRED_TOKEN: 'b-token-2' });
    expect(profile.credentials.map((c) => [c.name, c.expired])).toEqual([
      ['v8-full', false],
      ['v8-expired', true],
    ]);
  });
});
