import { describe, expect, it } from 'vitest';
import { allowCase, challengeCase } from '../../src/traffic/http-fields.ts';

// RFC 9110's grammar decides these, not the fake: every form the grammar allows passes.
describe('WWW-Authenticate on a 401 (RFC 9110 15.5.2, 11.6.1)', () => {
  it.each(['Bearer', 'Bearer realm="api", error="invalid_token"', 'Basic realm="a,b", Bearer', ', Bearer', 'Negotiate YIIB0QYGKwYBBQUCoIIBxTCCAcGgJDAiBgkqhkiC9xIBAgIG==', 'Bearer, Basic realm="x"'])('holds a challenge: %s', (value) => {
    expect(challengeCase(value).ok).toBe(true);
  });
  it.each(['', ' ', ',', 'realm="api"', '"Bearer"', '=abc'])('holds none: "%s"', (value) => {
    expect(challengeCase(value).ok).toBe(false);
  });
  it('fails a 401 without the field, saying so', () => {
    const c = challengeCase(undefined);
    expect(c.ok).toBe(false);
    expect(c.why).toMatch(/without a WWW-Authenticate header field/);
  });
});

describe('Allow on a 405 (RFC 9110 15.5.6, 10.2.1)', () => {
  it.each(['POST', 'GET, HEAD, POST', 'POST,DELETE', '', ' ', 'get, Post'])('lists methods: "%s"', (value) => {
    expect(allowCase(value).ok).toBe(true);
  });
  it.each(['POST; DELETE', 'GET HEAD', '"POST"'])('holds a non-token: "%s"', (value) => {
    expect(allowCase(value).ok).toBe(false);
  });
  it('fails a 405 without the field, saying so', () => {
    const c = allowCase(undefined);
    expect(c.ok).toBe(false);
    expect(c.why).toMatch(/without an Allow header field/);
  });
});
