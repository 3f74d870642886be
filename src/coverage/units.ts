/**
 * Splits a spec document into its normative units: each table row, each numbered rule, each
 * bullet, each sentence of prose, and each cell of an endpoint error table split by status. A
 * unit's id is built from its section and its own words, so an edited sentence gets a new id and
 * shows up unmapped instead of silently keeping an old mapping.
 */
import { readFileSync } from 'node:fs';

export type UnitKind = 'row' | 'rule' | 'bullet' | 'sentence' | 'error-cell';

export interface SpecUnit {
  /** `<doc>:<section-slug>:<key>`, stable while the text is. */
  id: string;
  document: string;
  section: string;
  kind: UnitKind;
  text: string;
}

/** The documents split into units, by the short name unit ids start with. */
export const UNIT_DOCUMENTS = {
  v1: 'v1-execution-fabric.md',
  v8: 'v8-integration-gateway.md',
  'mcp-transports': 'mcp-2025-03-26/transports.md',
  'mcp-lifecycle': 'mcp-2025-03-26/lifecycle.md',
  rfc9110: 'rfc9110/semantics.md',
} as const;
export type UnitDocument = keyof typeof UNIT_DOCUMENTS;

const SPEC_DIR = new URL('../../spec/', import.meta.url);

export function slug(text: string, words = 6): string {
  return text
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .slice(0, words)
    .join('-');
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
}

/** Sentences of a paragraph; a period inside backticks or "e.g." does not end one. */
function sentences(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let inCode = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    current += ch;
    if (ch === '`') inCode = !inCode;
    if (!inCode && (ch === '.' || ch === ':') && /\s/.test(text[i + 1] ?? ' ') && !/\b(e\.g|i\.e)\.$/.test(current)) {
      const next = text.slice(i + 1).trimStart();
      if (ch === '.' && (next === '' || /^[A-Z`(]/.test(next))) {
        out.push(current.trim());
        current = '';
      }
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

export function splitUnits(doc: UnitDocument, markdown?: string): SpecUnit[] {
  const file = UNIT_DOCUMENTS[doc];
  const text = markdown ?? readFileSync(new URL(file, SPEC_DIR), 'utf8');
  const units: SpecUnit[] = [];
  const headings: string[] = [];
  let label = '';
  let header: string[] | undefined;
  let inFence = false;
  const seen = new Map<string, number>();
  const add = (kind: UnitKind, key: string, unitText: string) => {
    const section = [...headings.slice(1), ...(label ? [label] : [])].join(' > ') || headings[0] || '';
    let id = `${doc}:${slug(section, 8)}:${key}`;
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    if (n > 1) id = `${id}~${n}`;
    units.push({ id, document: file, section, kind, text: unitText });
  };

  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+$/, '');
    if (line.startsWith('```')) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const heading = /^(#+)\s+(.*)$/.exec(line);
    if (heading) {
      const depth = heading[1]!.length;
      headings.length = depth - 1;
      headings[depth - 1] = heading[2]!;
      label = '';
      header = undefined;
      continue;
    }
    if (line.startsWith('|')) {
      const row = cells(line);
      if (!header) {
        header = row;
        continue;
      }
      if (row.every((c) => /^-+$/.test(c))) continue;
      if (header[0] === 'Endpoint' && header[1] === 'Status and cause') {
        for (const cell of row[1]!.split(/;\s*/)) {
          const status = /`(\d{3})`/.exec(cell)?.[1] ?? slug(cell, 3);
          add('error-cell', `${slug(row[0]!, 8)}:${status}`, `${row[0]} | ${cell}`);
        }
        continue;
      }
      const first = slug(row[0]!, 8) || 'row';
      // Tables whose first column repeats (object | field) are keyed by both.
      const key = header[1] === 'Field' || header[0] === 'Method' || header[0] === 'From' ? `${first}:${slug(row[1]!, 6)}` : first;
      add('row', key, row.join(' | '));
      continue;
    }
    header = undefined;
    const numbered = /^(\s*)(\d+)\.\s+(.*)$/.exec(line);
    if (numbered) {
      add('rule', `${numbered[2]}`, numbered[3]!);
      continue;
    }
    const bullet = /^(\s*)[-*]\s+(.*)$/.exec(line);
    if (bullet) {
      add('bullet', slug(bullet[2]!), bullet[2]!);
      continue;
    }
    if (/^\s+\S/.test(line) && units.length) {
      // A continuation line of the previous list item.
      units[units.length - 1]!.text += ` ${line.trim()}`;
      continue;
    }
    if (!line.trim() || line.startsWith('Source: ')) continue;
    const paragraph = line.trim();
    if (/^[A-Z][^.]*:$/.test(paragraph) && paragraph.length < 60) {
      // "Rules:" and "Signature rules:" name the list that follows.
      label = paragraph.slice(0, -1);
      continue;
    }
    for (const s of sentences(paragraph)) add('sentence', slug(s), s);
  }
  return units;
}

export function allUnits(): SpecUnit[] {
  return (Object.keys(UNIT_DOCUMENTS) as UnitDocument[]).flatMap((d) => splitUnits(d));
}
