import { z } from 'zod';
import { stated } from '../marks.ts';
import { V1 } from '../sentence.ts';

/** "Identifier | string | length 1-128; pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$`" */
export const IDENTIFIER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const identifier = stated(
  z.string().min(1).max(128).regex(IDENTIFIER_PATTERN),
  ['type', 'length', 'pattern'],
  V1('Resources and their fields > Shared primitives', '| Identifier | string | length 1-128; pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$` |'),
);

export const API_KEY_PREFIX = 'service_sk_';
export const V1_SCOPES = ['runs:read', 'runs:write'] as const;
