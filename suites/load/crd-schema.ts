/**
 * Checks a Kubernetes object against a CustomResourceDefinition's openAPIV3Schema, as the API
 * server's structural validation would: unknown fields, types, required fields, enums. Only the
 * keywords controller-gen writes into the k6-operator's CRDs are read.
 */
export interface OpenApiSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: boolean | OpenApiSchema;
  items?: OpenApiSchema;
  required?: string[];
  enum?: unknown[];
  anyOf?: OpenApiSchema[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

export interface Crd {
  spec: { group: string; names: { kind: string }; versions: Array<{ name: string; served: boolean; schema: { openAPIV3Schema: OpenApiSchema } }> };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function validate(value: unknown, schema: OpenApiSchema, path: string, errors: string[]): void {
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && !Number.isInteger(value)) errors.push(`${path}: expected an integer or a string`);
    return;
  }
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  switch (schema.type) {
    case 'object': {
      if (!isObject(value)) {
        errors.push(`${path}: expected an object`);
        return;
      }
      for (const name of schema.required ?? []) if (!(name in value)) errors.push(`${path}.${name}: required`);
      for (const [name, field] of Object.entries(value)) {
        const known = schema.properties?.[name];
        if (known) validate(field, known, `${path}.${name}`, errors);
        else if (isObject(schema.additionalProperties)) validate(field, schema.additionalProperties, `${path}.${name}`, errors);
        else if (!schema.additionalProperties && !schema['x-kubernetes-preserve-unknown-fields'] && schema.properties) errors.push(`${path}.${name}: unknown field`);
      }
      return;
    }
    case 'array':
      if (!Array.isArray(value)) errors.push(`${path}: expected an array`);
      else if (schema.items) value.forEach((item, i) => validate(item, schema.items!, `${path}[${i}]`, errors));
      return;
    case 'string':
      if (typeof value !== 'string') errors.push(`${path}: expected a string`);
      return;
    case 'integer':
      if (!Number.isInteger(value)) errors.push(`${path}: expected an integer`);
      return;
    case 'number':
      if (typeof value !== 'number') errors.push(`${path}: expected a number`);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') errors.push(`${path}: expected a boolean`);
      return;
    default:
  }
}

/** Every way `object` departs from the CRD's schema for its apiVersion; empty when it is valid. */
export function crdErrors(crd: Crd, object: unknown): string[] {
  if (!isObject(object)) return ['the manifest is not an object'];
  const [group, version] = String(object.apiVersion).split('/');
  if (group !== crd.spec.group) return [`apiVersion ${String(object.apiVersion)}: the CRD's group is ${crd.spec.group}`];
  if (object.kind !== crd.spec.names.kind) return [`kind ${String(object.kind)}: the CRD's kind is ${crd.spec.names.kind}`];
  const served = crd.spec.versions.find((v) => v.name === version && v.served);
  if (!served) return [`apiVersion ${String(object.apiVersion)}: the CRD serves ${crd.spec.versions.filter((v) => v.served).map((v) => v.name).join(', ')}`];
  const errors: string[] = [];
  validate(object, served.schema.openAPIV3Schema, '', errors);
  return errors;
}
