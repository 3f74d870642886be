import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { curlLine } from '../../src/probe/evidence.ts';
import { Redactor } from '../../src/redact/redactor.ts';

describe('Redactor', () => {
  it('replaces a registered secret wherever it appears, for any secret and surrounding text', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 6, maxLength: 40 }), fc.string(), fc.string(), (secret, before, after) => {
        const r = new Redactor();
        r.add(secret, 'token:full');
        expect(r.text(`${before}${secret}${after}${secret}`)).not.toContain(secret);
      }),
    );
  });

  it('masks Authorization and cookie headers but keeps the scheme', () => {
    const r = new Redactor();
    const out = r.headers({ Authorization: 'Bearer abcdef123456', cookie: 'session=1', accept: 'application/json' });
    expect(out).toEqual({ Authorization: 'Bearer «redacted»', cookie: '«redacted»', accept: 'application/json' });
  });

  it('masks credential-shaped values it was never told about', () => {
    const r = new Redactor();
    const text = r.text('key service_sk_live_abcdef0123 and jwt eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXZhbHVl');
    expect(text).toBe('key «redacted:api-key» and jwt «redacted:jwt»');
  });

  it('ignores values too short to be secrets, so ordinary text survives', () => {
    const r = new Redactor();
    r.add('abc', 'short');
    expect(r.text('abc def')).toBe('abc def');
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
