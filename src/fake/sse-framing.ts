/**
 * How the fake frames one SSE event. `varied` takes the other legal framings SSE allows: a comment
 * line before the event (a keepalive), a `retry:` field, and the data split over several `data:`
 * lines (a reader joins them with newlines, which JSON tolerates as whitespace).
 */
export function sseFrame(fields: { id?: string; event?: string; data: string }, varied: boolean): string {
  const id = fields.id === undefined ? '' : `id: ${fields.id}\n`;
  const event = fields.event === undefined ? '' : `event: ${fields.event}\n`;
  if (!varied) return `${id}${event}data: ${fields.data}\n\n`;
  let pretty = fields.data;
  try {
    pretty = JSON.stringify(JSON.parse(fields.data), null, 1);
  } catch {
    // Not JSON: sent on one line.
  }
  const data = pretty
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n');
  return `: keepalive\n\nretry: 3000\n${id}${event}${data}\n\n`;
}
