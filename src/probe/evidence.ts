export const EVIDENCE_BODY_LIMIT = 4096;
export const EVIDENCE_EVENT_LIMIT = 60;

export function clip(text: string, limit = EVIDENCE_BODY_LIMIT): { text: string; truncated: boolean } {
  return text.length > limit ? { text: `${text.slice(0, limit)}…`, truncated: true } : { text, truncated: false };
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function tokenVariable(credentialName: string): string {
  return `TOKEN_${credentialName.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** Builds the curl line from redacted parts; the token becomes `$TOKEN_<CREDENTIAL>`. */
export function curlLine(method: string, url: string, headers: Record<string, string>, body: string | undefined, credentialName?: string, streaming = false): string {
  const parts = ['curl', '-sS', '-i'];
  if (streaming) parts.push('-N');
  parts.push('-X', method, shellQuote(url));
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization' && credentialName) {
      parts.push('-H', `"Authorization: Bearer \${${tokenVariable(credentialName)}}"`);
    } else {
      parts.push('-H', shellQuote(`${name}: ${value}`));
    }
  }
  if (body !== undefined) parts.push('--data-raw', shellQuote(body));
  return parts.join(' ');
}
