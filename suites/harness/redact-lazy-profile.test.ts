/**
 * FormProfile and SpelledProfile make their tables at the first question, not when a secret is
 * registered (a recording's judge registers every session id in all its forms, and most are never
 * asked about). One profile asked many questions, whichever it is asked first, answers each as a
 * profile made for that question alone, and as `identifiesSecret` does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormProfile, identifiesSecret, isWordLike, SpelledProfile } from '../../src/redact/fragments.ts';
import { secretForms } from '../../src/redact/forms.ts';

const stretches = (length: number) => fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 30 }).map((pairs) => pairs.map(([a, b]) => {
  const from = a % (length + 1);
  return [from, from + (b % (length - from + 1))] as const;
}));

describe('profiles made at the first question', () => {
  it('a FormProfile asked many questions answers each as identifiesSecret and isWordLike do, whichever it was asked first', () => {
    const unit = fc.constantFrom(...'abcXYZ-_.:/ 0'.split(''));
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 60 }).chain((form) => fc.tuple(fc.constant(form), stretches(form.length), fc.boolean())), ([form, asked, wordFirst]) => {
        const profile = new FormProfile(form);
        for (const [from, to] of asked) {
          if (wordFirst) expect(profile.wordLike(from, to), `${form} [${from}, ${to})`).toBe(isWordLike(form.slice(from, to)));
          expect(profile.identifies(from, to), `${form} [${from}, ${to})`).toBe(identifiesSecret(form, from, to));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('spellings sharing one secret profile answer as profiles made for one question each', () => {
    const unit = fc.constantFrom(...[...'abcXYZ-_.:/ 0é😀']);
    fc.assert(
      fc.property(fc.string({ unit, minLength: 8, maxLength: 40 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 10 }), (secret, pairs) => {
        const shared = new FormProfile(secret);
        const spelled = secretForms(secret).filter((f) => f.spelling !== undefined).map((f) => ({ form: f, lazy: new SpelledProfile(f.text, shared, f.spelling!) }));
        for (const [a, b] of pairs) {
          for (const { form, lazy } of spelled) {
            const from = a % (form.text.length + 1);
            const to = from + (b % (form.text.length - from + 1));
            expect(lazy.identifies(from, to), `${form.text} [${from}, ${to})`).toBe(new SpelledProfile(form.text, secret, form.spelling!).identifies(from, to));
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
