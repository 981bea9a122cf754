import type { z } from 'zod';
import type { MemoryCommandSchemas } from '../commands/memory/commands.js';
import type { memoryChangesSchema } from '../events/memory.js';
import type { eraseInputSchema, erasePreviewSchema } from './erase/index.js';
import type { recallInputSchema } from './recall.js';

/*
 * What a host passes to the engine, typed from the same zod schemas that check it at run time:
 * `z.input` (defaults optional), so a wrong shape fails to compile and still fails to parse.
 */

/** A new memory; the engine makes up `memoryId` when it is absent. */
export type WriteMemoryInput = Omit<z.input<MemoryCommandSchemas['WriteMemory']>, 'memoryId'> & { readonly memoryId?: string };
export type MemoryChangesInput = z.input<typeof memoryChangesSchema>;
export type RecallInput = z.input<ReturnType<typeof recallInputSchema>>;
export type EraseInput = z.input<typeof eraseInputSchema>;
export type ErasePreviewInput = z.input<typeof erasePreviewSchema>;
export type { AfterLlmResponseInput, BeforeLlmRequestInput } from './hooks/schemas.js';
