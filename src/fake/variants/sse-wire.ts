import type { VariantDefinition } from './types.ts';

/**
 * The wire variants every event stream of a surface takes alike: the other line endings the
 * event-stream format allows, and writes cut at seed-chosen bytes. One area per surface holds them.
 */
export function sseWireVariants<const Area extends string>(area: Area, spec: VariantDefinition['spec']) {
  return [
    {
      id: `${area}/crlf-line-endings`,
      description: 'every line of every event stream ends with \\r\\n, which the event-stream format allows',
      spec,
      excludes: [`${area}/cr-line-endings`],
    },
    {
      id: `${area}/cr-line-endings`,
      description: 'every line of every event stream ends with a bare \\r, which the event-stream format allows',
      spec,
      excludes: [`${area}/crlf-line-endings`],
    },
    {
      id: `${area}/split-writes`,
      description: 'every event stream leaves in writes cut at seed-chosen bytes (inside multi-byte UTF-8 characters, between \\r and \\n), after an opening comment of multi-byte characters',
      spec,
    },
  ] as const satisfies readonly VariantDefinition[];
}
