import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identifiesSecret, SpelledProfile } from '../../src/redact/fragments.ts';
import { secretForms } from '../../src/redact/forms.ts';
import { Redactor } from '../../src/redact/redactor.ts';

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const each = (s: string, spell: (c: string) => string) => [...s].map(spell).join('');

/** Every spelling a debug echo, a logger or a WAF may give a secret, by name. */
function encodings(secret: string): Record<string, string> {
  return {
    hex: hex(secret),
    HEX: hex(secret).toUpperCase(),
    upper: secret.toUpperCase(),
    lower: secret.toLowerCase(),
    percentEveryByte: [...Buffer.from(secret, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''),
    percentEveryByteLower: [...Buffer.from(secret, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
    decimalEntities: each(secret, (c) => `&#${c.codePointAt(0)};`),
    hexEntities: each(secret, (c) => `&#x${c.codePointAt(0)!.toString(16)};`),
    hexEntitiesUpper: each(secret, (c) => `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`),
    jsonEscapes: each(secret, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  };
}

describe('the forms of a secret', () => {
  const token = 'v8tok_Q9xk27LmPzR4sTb8WnY3cFd';
  const signing = 'whsec_5hQ2mZ8pX1vT4kR7nB0cL3';

  it('redacts a token and a webhook signing secret in hex (either case), case-folded, percent-encoded byte by byte, as HTML numeric entities and as \\u escapes', () => {
    const r = new Redactor();
    r.add(token, 'token:full');
    r.add(signing, 'webhook-signing-secret');
    for (const [secret, label] of [[token, 'token:full'], [signing, 'webhook-signing-secret']] as const) {
      for (const [name, form] of Object.entries(encodings(secret))) {
        expect(r.text(`echo ${form} end`), `${label} ${name}`).toBe(`echo «redacted:${label}» end`);
        // Inside a longer value spelled the same way (a hex dump of "Bearer <token>", a fully escaped JSON string).
        const around = name.startsWith('hex') || name === 'HEX' ? `${hex('Bearer ')}${form}${hex('!')}` : `x${form}y`;
        expect(r.text(around), `${label} ${name} inside`).not.toContain(form);
      }
    }
  });

  it('redacts half a token spelled in hex, but not the hex of one word of a secret built from words', () => {
    const r = new Redactor();
    r.add(token, 'token:full');
    r.add('oauth-alice-no-capabilities-read', 'token:words');
    expect(r.text(`dump ${hex(token.slice(0, 16))} end`)).toBe('dump «redacted:token:full» end');
    // Twelve hex digits spell six characters: judged as six characters of the secret, which identify nothing.
    expect(r.text(`dump ${hex('token')} end`)).toBe(`dump ${hex('token')} end`);
    expect(r.text(`dump ${hex('capabilities')} end`)).toBe(`dump ${hex('capabilities')} end`);
    expect(r.text(`dump ${hex('oauth-alice-no-capabilities')} end`)).toBe('dump «redacted:token:words» end');
  });

  it('takes a secret holding a lone surrogate (a hostile target may issue one) and hides it where it stands', () => {
    const secret = 'whsec_\ud800abcdefghijklmnop';
    const redactor = new Redactor();
    redactor.add(secret, 'signing-secret');
    expect(redactor.text(`echo ${secret} end`)).toBe('echo «redacted:signing-secret» end');
  });

  it('case-folds only secrets of 12 characters or more, where a fold cannot be ordinary text', () => {
    const forms = (s: string) => secretForms(s).map((f) => f.text);
    expect(forms('k3J9xQpLm2')).not.toContain('K3J9XQPLM2');
    expect(forms('k3J9xQpLm2Zt')).toEqual(expect.arrayContaining(['K3J9XQPLM2ZT', 'k3j9xqplm2zt']));
  });

  it('judges a stretch of a spelled form as the characters of the secret it spells whole', () => {
    const unit = fc.constantFrom(...[...'abcXYZ-_.:/ 0é😀']);
    fc.assert(
      fc.property(fc.string({ unit, minLength: 8, maxLength: 40 }), fc.nat(), fc.nat(), (secret, a, b) => {
        for (const form of secretForms(secret)) {
          if (!form.spelling) continue;
          const profile = new SpelledProfile(form.text, secret, form.spelling);
          const from = a % (form.text.length + 1);
          const to = from + (b % (form.text.length - from + 1));
          // The characters whose spelling lies inside [from, to), found by brute force.
          const starts = [0, ...form.spelling.formEnds.slice(0, -1)];
          const secretStarts = [0, ...form.spelling.secretEnds.slice(0, -1)];
          const inside = starts.map((s, k) => s >= from && form.spelling!.formEnds[k]! <= to);
          const first = inside.indexOf(true);
          const last = inside.lastIndexOf(true);
          const expected = to - from >= form.text.length || (first !== -1 && identifiesSecret(secret, secretStarts[first]!, form.spelling.secretEnds[last]!));
          expect(profile.identifies(from, to), `${form.text} [${from}, ${to})`).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
