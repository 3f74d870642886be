/**
 * The profile's JSON Schema, generated from its zod schema (the one source of truth), so an editor
 * completes and checks a profile as it is typed. Shipped as dist/profile.schema.json (the package
 * export `apicert/profile.schema.json`); YAML profiles point at it with a yaml-language-server comment.
 */
import { z } from 'zod';
import { profileSchema } from './schema.ts';

export function profileJsonSchema(): Record<string, unknown> {
  // What a person writes is the input: defaults are optional there. Refinements JSON Schema cannot say stay zod's.
  const schema = z.toJSONSchema(profileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { title: 'apicert target profile', ...schema };
}
