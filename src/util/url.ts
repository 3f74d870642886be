/** A URL's userinfo (`scheme://user:password@host/`, RFC 3986 3.2.1): credentials apicert never prints. */

/** Whether a URL's authority carries userinfo, read from the text (a URL that does not parse may still show it). */
export function carriesUserinfo(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url);
}

/** The URL's text with any userinfo left out, for a line that names it. */
export function withoutUserinfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1');
}

/** The password a URL's userinfo carries, decoded (as written when it is not valid percent-encoding), if any. */
export function userinfoPassword(url: string): string | undefined {
  // Most URLs have no `@`: the parse is spared them (a recording's every exchange is asked).
  if (!url.includes('@')) return undefined;
  const password = URL.parse(url)?.password;
  if (!password) return undefined;
  try {
    return decodeURIComponent(password);
  } catch {
    return password;
  }
}
