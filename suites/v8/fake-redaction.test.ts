import { describe, expect, it } from 'vitest';
import { FaultSet, type FaultId } from '../../src/fake/faults/index.ts';
import type { FakeContext } from '../../src/fake/context.ts';
import { REDACTION_MARKER, SensitiveValues } from '../../src/fake/v8/redaction.ts';

function sensitive(faults: FaultId[] = [], v8RedactsByShape = true): SensitiveValues {
  return new SensitiveValues({ faults: new FaultSet(faults), config: { v8RedactsByShape } } as unknown as FakeContext);
}

describe("the fake's redaction of echoed values", () => {
  it('redacts fields named like secrets and whole credential-shaped values, deeply', () => {
    const out = sensitive().value({
      task: 'summarise',
      apiKey: 'plain',
      nested: { password: 'p', list: ['Bearer abc.def', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', 'sk_live_abcdefghijkl'] },
      notes: 'my token is Bearer abc inside a sentence',
    });
    expect(out).toEqual({
      task: 'summarise',
      apiKey: REDACTION_MARKER,
      nested: { password: REDACTION_MARKER, list: [REDACTION_MARKER, REDACTION_MARKER, REDACTION_MARKER] },
      notes: 'my token is Bearer abc inside a sentence',
    });
  });

  it('leaks by field name under its fault, and by shape only when configured not to redact by shape', () => {
    const input = { apiKey: 'plain', contact: 'Bearer abc', pem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' };
    expect(sensitive(['v8.redaction.canaries/secret-named-field']).value(input)).toEqual({ ...input, contact: REDACTION_MARKER, pem: REDACTION_MARKER });
    // Without redaction by shape (a legal choice), values sensitive only by shape are echoed, named fields still are not.
    expect(sensitive([], false).value(input)).toEqual({ ...input, apiKey: REDACTION_MARKER });
  });
});
