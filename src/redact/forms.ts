/**
 * The forms a target may reflect a secret in: as sent, URL-encoded (either hex case, `+` for a
 * space), JSON-escaped, HTML-escaped, and base64 or base64url at each of the three byte alignments
 * the secret can have inside a longer encoded value (only the characters that depend on the secret
 * alone are kept, so a match does not depend on what surrounds it).
 */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: string[] = [];
  for (let shift = 0; shift < 3; shift += 1) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    out.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return out;
}

function htmlEscaped(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

export function secretForms(value: string): string[] {
  const url = encodeURIComponent(value);
  const forms = [value, url, url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()), url.replaceAll('%20', '+'), JSON.stringify(value).slice(1, -1), htmlEscaped(value), ...base64Cores(value)];
  return [...new Set(forms.filter((f) => f.length > 0))];
}
