import { z } from 'zod';

/** "`200` JSON, tenant-scoped usage and spend readback"; its fields are not shown, so only a JSON object is required. */
export const usageResponse = z.looseObject({});
