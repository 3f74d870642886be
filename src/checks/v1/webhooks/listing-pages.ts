/**
 * The next page of the delivery listing, in the forms a reader can follow without guessing a
 * parameter name ("Query parameters and response shape of the delivery listing: not shown."):
 * an RFC 8288 `Link` header with rel="next" (and "last", "prev", which let a listing that runs
 * oldest first be read from its newest end), or a body field whose value is a URL or path. A
 * cursor without a URL (`next_cursor`, `has_more`) is only a sign that more pages exist.
 */
import { isRecord } from '../../../util/json.ts';

// Not http-link-header (1.1.4): a target writes this header, and that parser took 4.6 s over `<a>;`
// and 50,000 spaces, where this one, a single forward pass, takes 8 ms (measured on Node 24).
/** The link-values of a `Link` header (RFC 8288 section 3) whose relation types include `rel`, as written. */
export function linkTargets(header: string, rel: string): string[] {
  const out: string[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < header.length && /[ \t]/.test(header[i]!)) i += 1;
  };
  // Bounded by the header's length: every turn of each loop moves i forward.
  while (i < header.length) {
    skipSpace();
    if (header[i] !== '<') break;
    const close = header.indexOf('>', i);
    if (close === -1) break;
    const target = header.slice(i + 1, close);
    i = close + 1;
    const rels: string[] = [];
    for (skipSpace(); header[i] === ';'; skipSpace()) {
      i += 1;
      skipSpace();
      const name = /^[!#$%&'*+.^_`|~0-9A-Za-z-]*/.exec(header.slice(i))![0].toLowerCase();
      i += name.length;
      skipSpace();
      let value = '';
      if (header[i] === '=') {
        i += 1;
        skipSpace();
        if (header[i] === '"') {
          for (i += 1; i < header.length && header[i] !== '"'; i += 1) value += header[i] === '\\' ? (header[++i] ?? '') : header[i];
          i += 1;
        } else {
          value = /^[^;,]*/.exec(header.slice(i))![0].trim();
          i += value.length;
        }
      }
      // "occurrences after the first MUST be ignored by parsers" (RFC 8288 section 3.3).
      if (name === 'rel' && rels.length === 0) rels.push(...value.toLowerCase().split(/[ \t]+/).filter(Boolean));
      if (name.length === 0 && header[i] !== ';') break;
    }
    if (rels.includes(rel.toLowerCase())) out.push(target);
    skipSpace();
    if (header[i] !== ',') break;
    i += 1;
  }
  return out;
}

/** Objects of a listing answer that hold paging fields: the answer, and the usual wrappers. */
function pagingObjects(body: unknown): Record<string, unknown>[] {
  if (!isRecord(body)) return [];
  const inner = ['links', '_links', 'pagination', 'page', 'paging', 'meta'].map((name) => body[name]).filter(isRecord);
  return [body, ...inner];
}

/** Body fields naming a page by its relation to the one read: `next` as RFC 8288 names it, and the usual spellings. */
const RELATION_FIELDS = {
  next: ['next', 'next_url', 'nextUrl', 'next_page_url', 'nextPageUrl', 'next_page', 'nextPage', 'next_link', 'nextLink'],
  prev: ['prev', 'previous', 'prev_url', 'prevUrl', 'previous_url', 'previousUrl', 'prev_page_url', 'prevPageUrl'],
  last: ['last', 'last_url', 'lastUrl', 'last_page_url', 'lastPageUrl'],
} as const;
// A bare `cursor` may name the page just read, so it is no sign of another.
const CURSOR_FIELDS = ['next_cursor', 'nextCursor', 'next_page_token', 'nextPageToken', 'next_token', 'nextToken', 'continuation_token', 'continuationToken'];
const MORE_FIELDS = ['has_more', 'hasMore', 'more', 'has_next', 'hasNext', 'has_next_page', 'hasNextPage'];

/** A URL or a path: absolute, a network-path or absolute-path reference, or a query. Anything else could be an opaque cursor. */
function urlShaped(value: string): boolean {
  return /^(https?:\/\/|\/|\?)/i.test(value);
}

/** A link's value: a string, or a link object `{ href }` (HAL, JSON:API). */
function hrefOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return isRecord(value) && typeof value.href === 'string' ? value.href : undefined;
}

export interface PageLinks {
  /** The pages this one names, by relation, as the answer wrote them (to resolve against the page's URL). */
  next: string[];
  prev: string[];
  last: string[];
  /** Why the answer shows more pages although it names no next one as a URL (a cursor, `has_more`), when it does. */
  sign?: string;
}

/**
 * What a page of the listing says of the others: RFC 8288 `next`, `prev` (or `previous`) and `last`
 * links, in the `Link` header or as URL-valued body fields, and signs of more pages.
 */
export function pageLinksOf(headers: Record<string, string>, body: unknown): PageLinks {
  const header = headers.link ?? '';
  const links = { next: linkTargets(header, 'next'), prev: [...linkTargets(header, 'prev'), ...linkTargets(header, 'previous')], last: linkTargets(header, 'last') };
  const signs: string[] = [];
  for (const o of pagingObjects(body)) {
    for (const relation of ['next', 'prev', 'last'] as const) {
      for (const name of RELATION_FIELDS[relation]) {
        const href = hrefOf(o[name]);
        if (href === undefined || href.length === 0) continue;
        if (urlShaped(href)) links[relation].push(href);
        else if (relation === 'next') signs.push(`${name}: ${JSON.stringify(href.slice(0, 80))}`);
      }
    }
    // `has_more: false` beside a cursor says the cursor leads nowhere.
    const noMore = MORE_FIELDS.some((name) => o[name] === false);
    for (const name of noMore ? [] : CURSOR_FIELDS) {
      const value = o[name];
      if ((typeof value === 'string' && value.length > 0) || typeof value === 'number') signs.push(`${name}: ${JSON.stringify(String(value).slice(0, 80))}`);
    }
    for (const name of MORE_FIELDS) if (o[name] === true) signs.push(`${name}: true`);
  }
  const unique = (list: string[]) => [...new Set(list)];
  return { next: unique(links.next), prev: unique(links.prev), last: unique(links.last), ...(signs.length > 0 ? { sign: signs.slice(0, 4).join(', ') } : {}) };
}
