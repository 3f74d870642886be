import { z } from 'zod';

/** What RFC 3986 lets a URI reference hold: unreserved, reserved and percent-encoded characters. */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/**
 * A problem's `type`, both surfaces' "URI" under "(RFC 9457)": there "a URI reference" (3.1.1), and
 * "both 'type' and 'instance' accept relative URIs" (3.1), an absolute one being only recommended.
 * So `/problems/not-found` is one as much as `https://errors.example/not-found`.
 */
export const problemType = z.string().refine((v) => URI_CHARACTERS.test(v) && URL.canParse(v, 'https://problem-type.invalid/'), 'type is not a URI reference');
