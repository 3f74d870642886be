import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { curlLine } from '../../src/probe/evidence.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { leaksOf } from '../support/leaks.ts';

describe('Redactor', () => {
  const tokenChars = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/='.split(''));
  const secretArb = fc.string({ unit: tokenChars, minLength: 8, maxLength: 64 });

  it('redacts a secret and every 12-character run of it, in every form a target may reflect, whatever surrounds it', () => {
    fc.assert(
      fc.property(secretArb, fc.string(), fc.string(), fc.nat(40), (secret, before, after, cut) => {
        const r = new Redactor();
        r.add(secret, 'token:full');
        const start = Math.min(cut, Math.max(0, secret.length - 12));
        const reflected = [
          `${before}${secret}${after}`,
          `x=${encodeURIComponent(secret)}&y=1`,
          JSON.stringify({ echo: `Bearer ${secret}`, raw: before }),
          Buffer.from(`Authorization: Bearer ${secret}`).toString('base64'),
          Buffer.from(`${before}:${secret}`).toString('base64url'),
          `partial ${secret.slice(start, start + 12)} run`,
        ].join('\n');
        expect(leaksOf(r.text(reflected), secret)).toEqual([]);
      }),
    );
  });

  it('redacts a secret under 8 characters only as a whole token, and warns about it', () => {
    const r = new Redactor();
    r.add('k3Yq9', 'token:short');
    expect(r.text('Bearer k3Yq9, "k3Yq9" and xk3Yq9x')).toBe('Bearer «redacted:token:short», "«redacted:token:short»" and xk3Yq9x');
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).not.toContain('k3Yq9');
  });

  it('masks Authorization, cookie and Mcp-Session-Id headers but keeps the scheme', () => {
    const r = new Redactor();
    const out = r.headers({ Authorization: 'Bearer abcdef123456', cookie: 'session=1', 'mcp-session-id': 'abc', accept: 'application/json' });
    expect(out).toEqual({ Authorization: 'Bearer «redacted»', cookie: '«redacted»', 'mcp-session-id': '«redacted»', accept: 'application/json' });
  });

  it('masks credential-shaped values it was never told about', () => {
    const r = new Redactor();
    const text = r.text('key service_sk_live_abcdef0123 and jwt eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXZhbHVl and whsec_0123456789abcdef');
    expect(text).toBe('key «redacted:api-key» and jwt «redacted:jwt» and «redacted:signing-secret»');
    const pem = r.text('a -----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY----- b -----BEGIN PRIVATE KEY-----\nMIIE unterminated');
    expect(pem).toBe('a «redacted:private-key» b «redacted:private-key»');
  });
});

describe('curl reproduction line', () => {
  it('puts a shell variable where the token was and quotes the body', () => {
    const line = curlLine('POST', 'http://127.0.0.1:1/v8/missions', { authorization: 'Bearer «redacted»', 'idempotency-key': "k'1" }, '{"a":1}', 'no-missions:write');
    expect(line).toContain('"Authorization: Bearer ${TOKEN_NO_MISSIONS_WRITE}"');
    expect(line).toContain(`'idempotency-key: k'\\''1'`);
    expect(line).toContain(`--data-raw '{"a":1}'`);
  });
});
