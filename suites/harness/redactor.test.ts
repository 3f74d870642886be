import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { curlLine } from '../../src/probe/evidence.ts';
import { FormProfile, identifiesSecret } from '../../src/redact/fragments.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { leaksOf } from '../support/leaks.ts';

describe('Redactor', () => {
  const tokenChars = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/='.split(''));
  const secretArb = fc.string({ unit: tokenChars, minLength: 8, maxLength: 64 });

  it('redacts a secret and every run of it that identifies it, in every form a target may reflect, whatever surrounds it', () => {
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
          `half ${secret.slice(0, Math.ceil(secret.length / 2) + 1)}`,
        ].join('\n');
        expect(leaksOf(r.text(reflected), secret)).toEqual([]);
      }),
    );
  });

  it('redacts any 12-character run of a random-looking secret', () => {
    const r = new Redactor();
    const secret = 'k3J9xQpLm2ZtV7wR0aYb4Nc8';
    r.add(secret, 'token:random');
    for (let i = 0; i + 12 <= secret.length; i += 1) expect(r.text(`a ${secret.slice(i, i + 12)} b`)).toBe('a «redacted:token:random» b');
  });

  describe('a secret built from ordinary words', () => {
    const words = ['capabilities', 'missions', 'principal', 'session', 'webhooks', 'certificates', 'deliveries', 'memory', 'goals', 'traces', 'skills', 'oauth', 'alice', 'read', 'write', 'no'];
    const wordSecret = fc.record({ ws: fc.array(fc.constantFrom(...words), { minLength: 3, maxLength: 6 }), sep: fc.constantFrom('-', '_', '.') });

    it('keeps the words that occur inside it, and redacts it whole and any piece of two whole words or more covering half of it, in every form', () => {
      fc.assert(
        fc.property(wordSecret, fc.nat(), ({ ws, sep }, pick) => {
          const secret = ws.join(sep);
          const r = new Redactor();
          r.add(secret, 'token:words');
          const prose = 'v8.capabilities.search.ok: "capabilities": {"tools": {}}, missions and sessions, the principal of a webhooks delivery';
          expect(r.text(prose)).toBe(prose);
          const pieces: string[] = [];
          for (let i = 0; i < ws.length; i += 1) {
            for (let j = i + 2; j <= ws.length; j += 1) {
              const piece = ws.slice(i, j).join(sep);
              if (piece.length >= 12 && piece.length * 2 >= secret.length && piece !== secret) pieces.push(piece);
            }
          }
          fc.pre(pieces.length > 0);
          const piece = pieces[pick % pieces.length]!;
          const reflected = [
            `Bearer ${secret}`,
            `x=${encodeURIComponent(secret)}`,
            JSON.stringify({ echo: secret }),
            Buffer.from(`Authorization: Bearer ${secret}`).toString('base64'),
            `truncated ${piece}…`,
          ].join('\n');
          const out = r.text(reflected);
          expect(leaksOf(out, secret)).toEqual([]);
          expect(out).not.toContain(piece);
        }),
      );
    });

    it('keeps a piece that holds only one whole word, however long the piece', () => {
      const r = new Redactor();
      r.add('oauth.capabilities.skills', 'token:dots');
      expect(r.text('v8.capabilities.search.ok')).toBe('v8.capabilities.search.ok');
      expect(r.text('echo oauth.capabilities')).toBe('echo «redacted:token:dots»');
    });

    it('keeps a word of it that is shorter than half of it, wherever it stands', () => {
      const r = new Redactor();
      r.add('oauth-alice-no-capabilities-read', 'token:alice');
      expect(r.text('GET /v8/capabilities/search: {"capabilities":{"read":true}} no-capabilities')).toBe('GET /v8/capabilities/search: {"capabilities":{"read":true}} no-capabilities');
      expect(r.text('echo oauth-alice-no-capabilities-read!')).toBe('echo «redacted:token:alice»!');
      expect(r.text('echo no-capabilities-read')).toBe('echo «redacted:token:alice»');
      const short = new Redactor();
      short.add('read-no-capabilities', 'token:short');
      expect(short.text('v8.capabilities.search.ok')).toBe('v8.capabilities.search.ok');
      expect(short.text('no-capabilities')).toBe('«redacted:token:short»');
    });

    it('redacts a word-built secret of 8 to 11 characters only as a whole token', () => {
      const r = new Redactor();
      r.add('missions', 'token:m');
      expect(r.text('/v8/missions?x=1 and Bearer missions')).toBe('/v8/«redacted:token:m»?x=1 and Bearer «redacted:token:m»');
      expect(r.text('submissions, missionsX')).toBe('submissions, missionsX');
    });
  });

  it("never rewrites apicert's own text where it stands whole, and still redacts the secret elsewhere", () => {
    const r = new Redactor();
    r.add('capabilities', 'token:word');
    r.protect(['v8.capabilities.search.ok', 'A capability search returns manifests']);
    expect(r.text('rule v8.capabilities.search.ok failed')).toBe('rule v8.capabilities.search.ok failed');
    expect(r.text('echo: capabilities')).toBe('echo: «redacted:token:word»');
  });

  it('stays linear on a periodic secret against a long periodic body', () => {
    const r = new Redactor();
    r.add('a'.repeat(40), 'token:periodic');
    const started = performance.now();
    const out = r.text('a'.repeat(400_000));
    expect(out).toBe('«redacted:token:periodic»');
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('judges a stretch of a form in constant time exactly as identifiesSecret does', () => {
    const formChars = fc.constantFrom(...'abcXYZ-_.:/ 0'.split(''));
    fc.assert(
      fc.property(fc.string({ unit: formChars, minLength: 1, maxLength: 60 }), fc.nat(), fc.nat(), (form, a, b) => {
        const from = a % (form.length + 1);
        const to = from + (b % (form.length - from + 1));
        expect(new FormProfile(form).identifies(from, to)).toBe(identifiesSecret(form, from, to));
      }),
      { numRuns: 2000 },
    );
  });

  describe('costs a bounded multiple of a plain scan of the same text, whatever the secrets look like', () => {
    const MIB = 1024 * 1024;
    /** Least of a few timings: the machine is shared, the least is the one least disturbed. */
    const least = (run: () => unknown) => {
      let best = Infinity;
      for (let i = 0; i < 3; i += 1) {
        const started = performance.now();
        run();
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    /** A plain scan: reads every character once and hashes it, as any linear pass over the text must. */
    const plainScan = (text: string) => {
      let h = 0;
      for (let i = 0; i < text.length; i += 1) h = (Math.imul(h, 31) + text.charCodeAt(i)) >>> 0;
      return h;
    };
    const random = (n: number, seed: number) => {
      let x = seed;
      let out = '';
      for (let i = 0; i < n; i += 1) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        out += 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'[x % 62];
      }
      return out;
    };
    const cases: Array<{ name: string; secrets: string[]; text: string }> = [
      { name: 'a 4,096-character run of one letter in a body of that letter', secrets: ['a'.repeat(4096)], text: 'a'.repeat(MIB) },
      { name: 'a two-letter period against the same period', secrets: ['ab'.repeat(2048), 'ba'.repeat(30)], text: 'ab'.repeat(MIB / 2) },
      { name: 'a word-built secret whose pieces never identify it, against its first word repeated', secrets: [`${'a'.repeat(4096)}-b`], text: 'a'.repeat(MIB) },
      { name: 'secrets inside secrets', secrets: ['a'.repeat(12), 'a'.repeat(100), 'a'.repeat(1000), 'a'.repeat(5000)], text: `${'a'.repeat(MIB / 2)}-${'a'.repeat(MIB / 2)}` },
      { name: '100 random secrets against a body that holds pieces of them all', secrets: Array.from({ length: 100 }, (_, i) => random(40, i + 1)), text: Array.from({ length: 100 }, (_, i) => `${random(10_000, 7000 + i)} ${random(40, i + 1).slice(5, 30)} `).join('') },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const r = new Redactor();
        c.secrets.forEach((s, i) => r.add(s, `token:${i}`));
        r.text('warm up');
        const redacting = least(() => r.text(c.text));
        const scanning = least(() => plainScan(c.text));
        const out = r.text(c.text);
        for (const s of c.secrets) if (s.length >= 12) expect(out).not.toContain(s);
        // Linear: the automaton costs tens of plain scans on repetitive secrets and a few hundred with
        // many random ones (its table no longer fits the cache); the quadratic search it replaced cost
        // over 10,000 plain scans on a 4,096-character period.
        expect(redacting / Math.max(scanning, 0.5)).toBeLessThan(1500);
      });
    }
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

describe('a private key shape', () => {
  it('runs only over what a key holds: pieces of a key in two fields of a report are not joined across its structure', () => {
    const r = new Redactor();
    // Two header values a hostile target sent, harmless one by one; read together they once became a key that swallowed the JSON between.
    const json = JSON.stringify({ 'x-a': '-----BEGIN x', 'x-b': 'PRIVATE KEY----- tail', 'x-c': 'PRIVATE KEY----- -----END PRIVATE KEY-----' });
    expect(r.text(json)).toBe(json);
    // A key as JSON text writes it (\n escaped) or as a page shows it is still hidden whole, and what follows stays.
    expect(r.text(JSON.stringify({ pem: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----', c: 1 }))).toBe('{"pem":"«redacted:private-key»","c":1}');
    expect(r.text('<pre>-----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIE</pre><p>after</p>')).toBe('<pre>«redacted:private-key»</pre><p>after</p>');
  });
});

describe('curl reproduction line', () => {
  it('puts a shell variable where the token was and quotes the body', () => {
    const line = curlLine('POST', 'http://127.0.0.1:1/v8/missions', { authorization: 'Bearer «redacted»', 'idempotency-key': "k'1" }, '{"a":1}', 'no-missions:write');
    expect(line).toContain('"Authorization: Bearer ${TOKEN_NO_MISSIONS_WRITE}"');
    expect(line).toContain(`'idempotency-key: k'\\''1'`);
    expect(line).toContain(`--data-raw '{"a":1}'`);
  });

  it('is redacted as a whole line is, though its quoted words are read one by one and remembered', () => {
    // Secrets with and without quotes, words of own text, shapes and private keys, reflected across the line's quotes.
    const unit = fc.constantFrom(...`ab'k3J9x- .:_"«»`.split(''));
    const piece = fc.oneof(fc.string({ unit, maxLength: 30 }), fc.constantFrom('eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJh', 'service_sk_live_abcdef', '-----BEGIN RSA PRIVATE KEY-----', "ab'k3J9xQpLm2Zt", 'k3J9xQpLm2ZtV7wR', 'own-text words'));
    fc.assert(
      fc.property(fc.array(fc.string({ unit, minLength: 3, maxLength: 24 }), { minLength: 1, maxLength: 3 }), fc.array(piece, { minLength: 1, maxLength: 8 }), fc.boolean(), (secrets, pieces, own) => {
        const r = new Redactor();
        for (const [i, secret] of secrets.entries()) r.add(secret, `token:s${i}`);
        if (own) r.protect(['own-text words', "ab'k3J9"]);
        const value = (i: number) => `${pieces[i % pieces.length]}${secrets[i % secrets.length]}${pieces[(i + 1) % pieces.length]}`;
        const line = curlLine('POST', `http://127.0.0.1:1/${value(0)}`, { 'x-a': value(1), 'x-b': value(2) }, value(3));
        // Twice: the second reading comes from what the first remembered.
        expect(r.curlText(line)).toBe(r.text(line));
        expect(r.curlText(line)).toBe(r.text(line));
        expect(r.evidenceText(value(1))).toBe(r.text(value(1)));
      }),
      { numRuns: 2000 },
    );
  });
});
