/**
 * Which constraints of the contract's zod schemas the descriptions state, and which are the fake's
 * own choice. The schemas stay the one source (the fake validates with them); a mark only says what
 * a broken constraint means for a prober:
 *
 * - `stated(schema, kinds, sentence)`: a value breaking one of these kinds must be refused, and the
 *   sentence says so (quoted verbatim, held to spec/ by suites/harness/stated-quotes.test.ts);
 * - `choice(schema, kinds, why)`: the fake refuses it, the descriptions do not: the case is open;
 * - `context(schema, why)`: a valid value that names deployment state (a file id, a tool, a model)
 *   may still be refused: open unless it is the value of a body the profile gives;
 * - `openValues(schema, values, why)`: free text whose listed values are not a closed list;
 * - `extraAllowed(schema, sentence)`: an object the description says takes unknown properties.
 *
 * An unmarked constraint is open: silence never makes a case "must refuse".
 */
import type { z } from 'zod';
import type { Sentence } from './sentence.ts';

export type ConstraintKind = 'length' | 'count' | 'range' | 'integer' | 'pattern' | 'enum' | 'const' | 'required' | 'closed' | 'type' | 'custom';

export interface Marks {
  stated: Array<{ kinds: readonly ConstraintKind[]; because: Sentence }>;
  choice: Array<{ kinds: readonly ConstraintKind[]; why: string }>;
  context?: string;
  openValues?: { values: readonly string[]; why: string };
  extraAllowed?: Sentence;
  /** A valid value a deployment may still refuse for a reason the schema cannot say (a message id used twice). */
  openWhen?: (value: unknown) => string | undefined;
}

const MARKS = new WeakMap<z.ZodType, Marks>();
/** Every sentence a mark carries, in marking order: what the quote test holds to spec/. */
export const MARKED_SENTENCES: Sentence[] = [];

function own(schema: z.ZodType): Marks {
  let m = MARKS.get(schema);
  if (!m) MARKS.set(schema, (m = { stated: [], choice: [] }));
  return m;
}

export function marksOf(schema: z.ZodType): Marks | undefined {
  return MARKS.get(schema);
}

export function stated<T extends z.ZodType>(schema: T, kinds: readonly ConstraintKind[], because: Sentence): T {
  own(schema).stated.push({ kinds, because });
  MARKED_SENTENCES.push(because);
  return schema;
}

export function choice<T extends z.ZodType>(schema: T, kinds: readonly ConstraintKind[], why: string): T {
  own(schema).choice.push({ kinds, why });
  return schema;
}

export function context<T extends z.ZodType>(schema: T, why: string): T {
  own(schema).context = why;
  return schema;
}

export function openValues<T extends z.ZodType>(schema: T, values: readonly string[], why: string): T {
  own(schema).openValues = { values, why };
  return schema;
}

export function extraAllowed<T extends z.ZodType>(schema: T, because: Sentence): T {
  own(schema).extraAllowed = because;
  MARKED_SENTENCES.push(because);
  return schema;
}

export function openWhen<T extends z.ZodType>(schema: T, test: (value: unknown) => string | undefined): T {
  own(schema).openWhen = test;
  return schema;
}

/** A copy of a schema carrying the same marks, to mark one use of a shared schema (an Identifier that names a file). */
export function like<T extends z.ZodType>(schema: T): T {
  const copy = schema.clone() as T;
  const m = MARKS.get(schema);
  if (m) MARKS.set(copy, { ...m, stated: [...m.stated], choice: [...m.choice] });
  return copy;
}
